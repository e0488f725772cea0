#pragma once
// The binary interface of the CUDA runtime API as one major version of
// libcudart exposes it: the types, enumerator values and struct layouts that
// appear in the signatures of the functions the shim exports. Compiled once
// per major (WARPSIM_CUDA_MAJOR = 11, 12 or 13); the layouts that differ
// between majors are selected here, so the API files are written once.
//
// These are warpsim's own declarations of the published interface (NVIDIA's
// headers are not needed to build warpsim). How each layout was checked is in
// docs/runtime-shim.md: against the CUDA 13.0 and 11.8 headers by a test that
// compares sizeof/offsetof of every field (tests/libcudart_shim/abi_layout),
// and against the documented CUDA 12 headers for 12.
//
// Only what the implemented functions use is declared; everything is in the
// global namespace with CUDA's names because the extern "C" entry points are
// written against them.
#include <cstddef>
#include <cstdint>

#ifndef WARPSIM_CUDA_MAJOR
#error "WARPSIM_CUDA_MAJOR must be 11, 12 or 13"
#endif

// ---- basic types ---------------------------------------------------------------------------

typedef int cudaError_t;  // enum cudaError; values in cuda_errors.def

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
};
static_assert(sizeof(dim3) == 12);

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct cudaArray* cudaArray_t;
typedef const struct cudaArray* cudaArray_const_t;
typedef struct cudaMipmappedArray* cudaMipmappedArray_t;
typedef struct CUkern_st* cudaKernel_t;
typedef struct CUfunc_st* cudaFunction_t;
typedef struct CUmemPoolHandle_st* cudaMemPool_t;
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void* user);
typedef void (*cudaHostFn_t)(void* user);

// Special stream handles (driver_types.h).
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

struct CUuuid_st {
  char bytes[16];
};
typedef CUuuid_st cudaUUID_t;

// ---- enumerations (only their values matter at the ABI) -----------------------------------

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaLimit : int {
  cudaLimitStackSize = 0x00,
  cudaLimitPrintfFifoSize = 0x01,
  cudaLimitMallocHeapSize = 0x02,
  cudaLimitDevRuntimeSyncDepth = 0x03,
  cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity = 0x05,
  cudaLimitPersistingL2CacheSize = 0x06,
};

enum cudaFuncCache : int {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};

enum cudaSharedMemConfig : int {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2,
};

enum cudaFuncAttribute : int {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
  cudaFuncAttributeMax,
};

enum cudaMemoryType : int {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};

enum cudaChannelFormatKind : int {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
};

enum cudaResourceType : int {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3,
};

enum cudaResourceViewFormat : int { cudaResViewFormatNone = 0 };

enum cudaTextureAddressMode : int {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3,
};
enum cudaTextureFilterMode : int { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode : int { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

enum cudaStreamCaptureStatus : int {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaStreamCaptureMode : int {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};

enum cudaMemoryAdvise : int {
  cudaMemAdviseSetReadMostly = 1,
  cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy = 5,
  cudaMemAdviseUnsetAccessedBy = 6,
};

enum cudaMemLocationType : int {
  cudaMemLocationTypeInvalid = 0,
  cudaMemLocationTypeDevice = 1,
  cudaMemLocationTypeHost = 2,
  cudaMemLocationTypeHostNuma = 3,
  cudaMemLocationTypeHostNumaCurrent = 4,
};

enum cudaLaunchAttributeID : int {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10,
  cudaLaunchAttributePreferredClusterDimension = 11,
  cudaLaunchAttributeLaunchCompletionEvent = 12,
  cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
  cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
};

enum cudaDriverEntryPointQueryResult : int {
  cudaDriverEntryPointSuccess = 0,
  cudaDriverEntryPointSymbolNotFound = 1,
  cudaDriverEntryPointVersionNotSufficent = 2,
};

// ---- flags ---------------------------------------------------------------------------------

inline constexpr unsigned cudaHostAllocDefault = 0x00;
inline constexpr unsigned cudaHostAllocPortable = 0x01;
inline constexpr unsigned cudaHostAllocMapped = 0x02;
inline constexpr unsigned cudaHostAllocWriteCombined = 0x04;
inline constexpr unsigned cudaHostRegisterDefault = 0x00;
inline constexpr unsigned cudaHostRegisterPortable = 0x01;
inline constexpr unsigned cudaHostRegisterMapped = 0x02;
inline constexpr unsigned cudaHostRegisterIoMemory = 0x04;
inline constexpr unsigned cudaHostRegisterReadOnly = 0x08;
inline constexpr unsigned cudaMemAttachGlobal = 0x01;
inline constexpr unsigned cudaMemAttachHost = 0x02;
inline constexpr unsigned cudaMemAttachSingle = 0x04;
inline constexpr unsigned cudaStreamDefault = 0x00;
inline constexpr unsigned cudaStreamNonBlocking = 0x01;
inline constexpr unsigned cudaEventDefault = 0x00;
inline constexpr unsigned cudaEventBlockingSync = 0x01;
inline constexpr unsigned cudaEventDisableTiming = 0x02;
inline constexpr unsigned cudaEventInterprocess = 0x04;
inline constexpr unsigned cudaEventRecordDefault = 0x00;
inline constexpr unsigned cudaEventRecordExternal = 0x01;
inline constexpr unsigned cudaDeviceScheduleAuto = 0x00;
inline constexpr unsigned cudaDeviceScheduleSpin = 0x01;
inline constexpr unsigned cudaDeviceScheduleYield = 0x02;
inline constexpr unsigned cudaDeviceScheduleBlockingSync = 0x04;
inline constexpr unsigned cudaDeviceScheduleMask = 0x07;
inline constexpr unsigned cudaDeviceMapHost = 0x08;
inline constexpr unsigned cudaDeviceLmemResizeToMax = 0x10;
inline constexpr unsigned cudaDeviceSyncMemops = 0x80;
inline constexpr unsigned cudaDeviceMask = 0xff;
inline constexpr unsigned cudaArrayDefault = 0x00;
inline constexpr unsigned cudaArrayLayered = 0x01;
inline constexpr unsigned cudaArraySurfaceLoadStore = 0x02;
inline constexpr unsigned cudaArrayCubemap = 0x04;
inline constexpr unsigned cudaArrayTextureGather = 0x08;
inline constexpr unsigned cudaOccupancyDefault = 0x00;
inline constexpr unsigned cudaOccupancyDisableCachingOverride = 0x01;
inline constexpr unsigned cudaCooperativeLaunchMultiDeviceNoPreSync = 0x01;
inline constexpr unsigned cudaCooperativeLaunchMultiDeviceNoPostSync = 0x02;

// ---- structs --------------------------------------------------------------------------------

struct cudaChannelFormatDesc {
  int x, y, z, w;
  cudaChannelFormatKind f;
};

struct cudaExtent {
  size_t width, height, depth;
};
struct cudaPos {
  size_t x, y, z;
};
struct cudaPitchedPtr {
  void* ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
};

struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  cudaMemcpyKind kind;
};

struct cudaMemcpy3DPeerParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  int srcDevice;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  int dstDevice;
  cudaExtent extent;
};

struct cudaMemLocation {
  cudaMemLocationType type;
  int id;
};

struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
#if WARPSIM_CUDA_MAJOR >= 13
  long reserved[8];
#endif
};

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
#if WARPSIM_CUDA_MAJOR >= 12
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
#endif
};

struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      cudaMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void* devPtr;
      cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void* devPtr;
      cudaChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
#if WARPSIM_CUDA_MAJOR >= 13
    struct {
      int reserved[32];
    } reserved;
#endif
  } res;
#if WARPSIM_CUDA_MAJOR >= 13
  unsigned int flags;
#endif
};

struct cudaResourceViewDesc {
  cudaResourceViewFormat format;
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
#if WARPSIM_CUDA_MAJOR >= 13
  unsigned int reserved[16];
#endif
};

struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
#if WARPSIM_CUDA_MAJOR >= 12
  int seamlessCubemap;
#endif
};

// Launch attributes (cudaLaunchKernelExC). The value union is 64 bytes in
// every major that has it; only the members warpsim reads are named.
union cudaLaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct {
    unsigned int x, y, z;
  } clusterDim;
  int priority;
};
struct cudaLaunchAttribute_st {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
};
typedef cudaLaunchAttribute_st cudaLaunchAttribute;
struct cudaLaunchConfig_st {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attrs;
  unsigned int numAttrs;
};
typedef cudaLaunchConfig_st cudaLaunchConfig_t;

// cudaDeviceProp: the layout of each major.
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
#if WARPSIM_CUDA_MAJOR <= 12
  int clockRate;
#endif
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
#if WARPSIM_CUDA_MAJOR <= 12
  int deviceOverlap;
#endif
  int multiProcessorCount;
#if WARPSIM_CUDA_MAJOR <= 12
  int kernelExecTimeoutEnabled;
#endif
  int integrated;
  int canMapHostMemory;
#if WARPSIM_CUDA_MAJOR <= 12
  int computeMode;
#endif
  int maxTexture1D;
  int maxTexture1DMipmap;
#if WARPSIM_CUDA_MAJOR <= 12
  int maxTexture1DLinear;
#endif
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
#if WARPSIM_CUDA_MAJOR <= 12
  int memoryClockRate;
#endif
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
#if WARPSIM_CUDA_MAJOR <= 12
  int singleToDoublePrecisionPerfRatio;
#endif
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
#if WARPSIM_CUDA_MAJOR <= 12
  int cooperativeMultiDeviceLaunch;
#endif
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
#if WARPSIM_CUDA_MAJOR >= 12
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
#endif
#if WARPSIM_CUDA_MAJOR == 12
  int reserved[63];
#endif
#if WARPSIM_CUDA_MAJOR >= 13
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
#endif
};

// The registration ABI (crt/host_runtime.h).
struct __fatBinC_Wrapper_t {
  int magic;
  int version;
  const unsigned long long* data;
  void* filename_or_fatbins;
};
