// device_api.cu - device management part of the CUDA runtime API.
//
// Covers: cudaRuntimeGetVersion / cudaDriverGetVersion, cudaGetDeviceCount, cudaGetDevice,
// cudaSetDevice (valid and invalid ordinal), cudaDeviceSetLimit / cudaDeviceGetLimit (stack,
// printf FIFO, malloc heap), cudaGetDeviceProperties vs cudaDeviceGetAttribute for every
// attribute that has a cudaDeviceProp field (in both CUDA 11.8 and 13), an invalid attribute,
// cudaDeviceGetStreamPriorityRange, cudaChooseDevice, cudaDeviceGetPCIBusId /
// cudaDeviceGetByPCIBusId round trip, cudaDeviceSynchronize, cudaDeviceReset followed by
// cudaSetDeviceFlags / cudaGetDeviceFlags and fresh allocations and launches.
//
// Prints one line that ctest compares with the configured GPU:
//   DEVICE name=<name> cc=<major>.<minor> sms=<n> smem_block=<bytes> l2=<bytes> mem=<bytes>
//
// Build: nvcc -cudart shared -o device_api device_api.cu        [also builds with CUDA 11.8]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define TEST_NAME "device_api"
#include "cuda_check.h"

__global__ void fill(int* out, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = base + i * 3;
}

static void run_fill_kernel(int base) {
  const int n = 1000;
  int* d = nullptr;
  int h[n];
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  fill<<<(n + 127) / 128, 128>>>(d, n, base);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == base + i * 3, "fill(base=%d): first mismatch at index %d: got %d, expected %d",
           base, i, h[i], base + i * 3);
  CHECK(cudaFree(d));
}

struct AttrField {
  const char* field;
  cudaDeviceAttr attr;
  long long prop_value;
};

int main() {
  // ---- versions (no context needed) ----
  int rt = 0, drv = 0;
  CHECK(cudaRuntimeGetVersion(&rt));
  CHECK(cudaDriverGetVersion(&drv));
  printf("runtime %d (CUDART_VERSION %d), driver %d\n", rt, CUDART_VERSION, drv);
  // The loaded libcudart may be a newer minor release than the headers the program was built
  // with (CUDA minor-version compatibility), so require the same major and >= CUDART_VERSION.
  EXPECT(rt / 1000 == CUDART_VERSION / 1000 && rt >= CUDART_VERSION,
         "cudaRuntimeGetVersion = %d, built with CUDART_VERSION %d", rt, CUDART_VERSION);
  // The driver must support at least the runtime's CUDA version.
  EXPECT(drv >= rt, "driver version %d < runtime version %d", drv, rt);

  // ---- device enumeration and selection ----
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  EXPECT(count >= 1, "cudaGetDeviceCount = %d", count);
  // cudaSetDevice: "cudaErrorInvalidDevice" for an ordinal outside [0, count).
  CHECK_FAILS(cudaSetDevice(count), cudaErrorInvalidDevice);
  CHECK(cudaSetDevice(0));
  int dev = -1;
  CHECK(cudaGetDevice(&dev));
  EXPECT(dev == 0, "cudaGetDevice = %d after cudaSetDevice(0)", dev);

  // ---- limits (before any kernel launch: the printf FIFO and malloc heap sizes cannot be
  // changed after a kernel using printf/malloc ran; values may be rounded up) ----
  struct LimitCase {
    cudaLimit limit;
    const char* name;
    size_t value;
  } limits[] = {
      {cudaLimitStackSize, "cudaLimitStackSize", 4096},
      {cudaLimitPrintfFifoSize, "cudaLimitPrintfFifoSize", 3u << 20},
      {cudaLimitMallocHeapSize, "cudaLimitMallocHeapSize", 24u << 20},
  };
  for (const LimitCase& lc : limits) {
    size_t before = 0, after = 0;
    CHECK(cudaDeviceGetLimit(&before, lc.limit));
    CHECK(cudaDeviceSetLimit(lc.limit, lc.value));
    CHECK(cudaDeviceGetLimit(&after, lc.limit));
    printf("limit %s: default %zu, set %zu, read back %zu\n", lc.name, before, lc.value, after);
    EXPECT(after >= lc.value, "%s read back %zu < requested %zu", lc.name, after, lc.value);
  }

  // ---- properties vs attributes ----
  cudaDeviceProp prop;
  memset(&prop, 0, sizeof prop);
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("DEVICE name=%s cc=%d.%d sms=%d smem_block=%zu l2=%d mem=%zu\n", prop.name, prop.major,
         prop.minor, prop.multiProcessorCount, prop.sharedMemPerBlock, prop.l2CacheSize,
         prop.totalGlobalMem);
  EXPECT(prop.name[0] != '\0', "empty device name");
  EXPECT(prop.warpSize == 32, "warpSize = %d", prop.warpSize);
  EXPECT(prop.major >= 7, "compute capability %d.%d < 7.0", prop.major, prop.minor);
  EXPECT(prop.multiProcessorCount >= 1, "multiProcessorCount = %d", prop.multiProcessorCount);
  EXPECT(prop.totalGlobalMem > 0, "totalGlobalMem = 0");
  EXPECT(prop.maxThreadsPerBlock == 1024, "maxThreadsPerBlock = %d", prop.maxThreadsPerBlock);
  EXPECT(prop.sharedMemPerBlockOptin >= prop.sharedMemPerBlock,
         "sharedMemPerBlockOptin %zu < sharedMemPerBlock %zu", prop.sharedMemPerBlockOptin,
         prop.sharedMemPerBlock);
  EXPECT(prop.maxThreadsPerMultiProcessor >= prop.maxThreadsPerBlock,
         "maxThreadsPerMultiProcessor %d < maxThreadsPerBlock %d",
         prop.maxThreadsPerMultiProcessor, prop.maxThreadsPerBlock);

#define FIELD(attr, field) {#field, attr, (long long)(prop.field)}
  const AttrField fields[] = {
      FIELD(cudaDevAttrMaxThreadsPerBlock, maxThreadsPerBlock),
      FIELD(cudaDevAttrMaxBlockDimX, maxThreadsDim[0]),
      FIELD(cudaDevAttrMaxBlockDimY, maxThreadsDim[1]),
      FIELD(cudaDevAttrMaxBlockDimZ, maxThreadsDim[2]),
      FIELD(cudaDevAttrMaxGridDimX, maxGridSize[0]),
      FIELD(cudaDevAttrMaxGridDimY, maxGridSize[1]),
      FIELD(cudaDevAttrMaxGridDimZ, maxGridSize[2]),
      FIELD(cudaDevAttrMaxSharedMemoryPerBlock, sharedMemPerBlock),
      FIELD(cudaDevAttrTotalConstantMemory, totalConstMem),
      FIELD(cudaDevAttrWarpSize, warpSize),
      FIELD(cudaDevAttrMaxPitch, memPitch),
      FIELD(cudaDevAttrMaxRegistersPerBlock, regsPerBlock),
      FIELD(cudaDevAttrTextureAlignment, textureAlignment),
      FIELD(cudaDevAttrMultiProcessorCount, multiProcessorCount),
      FIELD(cudaDevAttrIntegrated, integrated),
      FIELD(cudaDevAttrCanMapHostMemory, canMapHostMemory),
      FIELD(cudaDevAttrMaxTexture1DWidth, maxTexture1D),
      FIELD(cudaDevAttrMaxTexture2DWidth, maxTexture2D[0]),
      FIELD(cudaDevAttrMaxTexture2DHeight, maxTexture2D[1]),
      FIELD(cudaDevAttrMaxTexture3DWidth, maxTexture3D[0]),
      FIELD(cudaDevAttrMaxTexture3DHeight, maxTexture3D[1]),
      FIELD(cudaDevAttrMaxTexture3DDepth, maxTexture3D[2]),
      FIELD(cudaDevAttrMaxTexture2DLinearWidth, maxTexture2DLinear[0]),
      FIELD(cudaDevAttrMaxTexture2DLinearHeight, maxTexture2DLinear[1]),
      FIELD(cudaDevAttrMaxTexture2DLinearPitch, maxTexture2DLinear[2]),
      FIELD(cudaDevAttrMaxSurface2DWidth, maxSurface2D[0]),
      FIELD(cudaDevAttrMaxSurface2DHeight, maxSurface2D[1]),
      FIELD(cudaDevAttrSurfaceAlignment, surfaceAlignment),
      FIELD(cudaDevAttrConcurrentKernels, concurrentKernels),
      FIELD(cudaDevAttrEccEnabled, ECCEnabled),
      FIELD(cudaDevAttrPciBusId, pciBusID),
      FIELD(cudaDevAttrPciDeviceId, pciDeviceID),
      FIELD(cudaDevAttrPciDomainId, pciDomainID),
      FIELD(cudaDevAttrTccDriver, tccDriver),
      FIELD(cudaDevAttrAsyncEngineCount, asyncEngineCount),
      FIELD(cudaDevAttrUnifiedAddressing, unifiedAddressing),
      FIELD(cudaDevAttrGlobalMemoryBusWidth, memoryBusWidth),
      FIELD(cudaDevAttrL2CacheSize, l2CacheSize),
      FIELD(cudaDevAttrMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor),
      FIELD(cudaDevAttrTexturePitchAlignment, texturePitchAlignment),
      FIELD(cudaDevAttrComputeCapabilityMajor, major),
      FIELD(cudaDevAttrComputeCapabilityMinor, minor),
      FIELD(cudaDevAttrStreamPrioritiesSupported, streamPrioritiesSupported),
      FIELD(cudaDevAttrGlobalL1CacheSupported, globalL1CacheSupported),
      FIELD(cudaDevAttrLocalL1CacheSupported, localL1CacheSupported),
      FIELD(cudaDevAttrMaxSharedMemoryPerMultiprocessor, sharedMemPerMultiprocessor),
      FIELD(cudaDevAttrMaxRegistersPerMultiprocessor, regsPerMultiprocessor),
      FIELD(cudaDevAttrManagedMemory, managedMemory),
      FIELD(cudaDevAttrIsMultiGpuBoard, isMultiGpuBoard),
      FIELD(cudaDevAttrMultiGpuBoardGroupID, multiGpuBoardGroupID),
      FIELD(cudaDevAttrHostNativeAtomicSupported, hostNativeAtomicSupported),
      FIELD(cudaDevAttrPageableMemoryAccess, pageableMemoryAccess),
      FIELD(cudaDevAttrConcurrentManagedAccess, concurrentManagedAccess),
      FIELD(cudaDevAttrComputePreemptionSupported, computePreemptionSupported),
      FIELD(cudaDevAttrCanUseHostPointerForRegisteredMem, canUseHostPointerForRegisteredMem),
      FIELD(cudaDevAttrCooperativeLaunch, cooperativeLaunch),
      FIELD(cudaDevAttrMaxSharedMemoryPerBlockOptin, sharedMemPerBlockOptin),
      FIELD(cudaDevAttrPageableMemoryAccessUsesHostPageTables,
            pageableMemoryAccessUsesHostPageTables),
      FIELD(cudaDevAttrDirectManagedMemAccessFromHost, directManagedMemAccessFromHost),
      FIELD(cudaDevAttrMaxBlocksPerMultiprocessor, maxBlocksPerMultiProcessor),
      FIELD(cudaDevAttrMaxPersistingL2CacheSize, persistingL2CacheMaxSize),
      FIELD(cudaDevAttrMaxAccessPolicyWindowSize, accessPolicyMaxWindowSize),
      FIELD(cudaDevAttrReservedSharedMemoryPerBlock, reservedSharedMemPerBlock),
  };
#undef FIELD
  for (const AttrField& f : fields) {
    int v = -12345;
    CHECK(cudaDeviceGetAttribute(&v, f.attr, 0));
    EXPECT((long long)v == f.prop_value,
           "cudaDeviceGetAttribute(attr %d) = %d but cudaDeviceProp.%s = %lld", (int)f.attr, v,
           f.field, f.prop_value);
  }
  printf("%d attributes agree with cudaGetDeviceProperties\n",
         (int)(sizeof fields / sizeof fields[0]));

  // An attribute value outside the enum: the driver rejects it as an invalid value.
  {
    int v = 0;
    CHECK_FAILS(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)100000, 0), cudaErrorInvalidValue);
    // Valid attribute, invalid device ordinal.
    CHECK_FAILS(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, count), cudaErrorInvalidDevice);
  }

  // ---- stream priorities: range is [greatest, least], lower number = higher priority;
  // both are 0 when priorities are unsupported ----
  {
    int least = 1234, greatest = 1234;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    printf("stream priorities: least %d greatest %d\n", least, greatest);
    EXPECT(greatest <= least, "greatest priority %d > least priority %d", greatest, least);
    if (!prop.streamPrioritiesSupported)
      EXPECT(least == 0 && greatest == 0, "priorities unsupported but range [%d, %d]", greatest,
             least);
  }

  // ---- cudaChooseDevice: a device matching our own compute capability must be found ----
  {
    cudaDeviceProp want;
    memset(&want, 0, sizeof want);
    want.major = prop.major;
    want.minor = prop.minor;
    int chosen = -1;
    CHECK(cudaChooseDevice(&chosen, &want));
    EXPECT(chosen >= 0 && chosen < count, "cudaChooseDevice chose %d of %d", chosen, count);
  }

  // ---- PCI bus id round trip; the string is "domain:bus:device.function" in hex ----
  {
    char bus_id[64];
    memset(bus_id, 0, sizeof bus_id);
    CHECK(cudaDeviceGetPCIBusId(bus_id, (int)sizeof bus_id, 0));
    printf("pci bus id %s\n", bus_id);
    unsigned domain = 0, bus = 0, device = 0, function = 0;
    EXPECT(sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &device, &function) == 4,
           "unparsable PCI bus id '%s'", bus_id);
    EXPECT((int)domain == prop.pciDomainID && (int)bus == prop.pciBusID &&
               (int)device == prop.pciDeviceID,
           "PCI bus id '%s' does not match cudaDeviceProp %x:%x:%x", bus_id, prop.pciDomainID,
           prop.pciBusID, prop.pciDeviceID);
    int by_id = -1;
    CHECK(cudaDeviceGetByPCIBusId(&by_id, bus_id));
    EXPECT(by_id == 0, "cudaDeviceGetByPCIBusId('%s') = %d", bus_id, by_id);
  }

  // ---- a kernel, synchronize ----
  run_fill_kernel(100);
  CHECK(cudaDeviceSynchronize());

  // ---- cudaDeviceReset ----
  // The documentation only says that all allocations are destroyed and that accessing or
  // passing them afterwards is undefined behaviour, so the old pointer is not used again.
  int* before_reset = nullptr;
  CHECK(cudaMalloc(&before_reset, 4096));
  CHECK(cudaDeviceReset());
  before_reset = nullptr;

  // After the reset the device is uninitialized, so the flags can be set (documented to
  // initialize the device with the given flags; CUDA >= 11 also allows it on an active one).
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
  unsigned flags = 0;
  CHECK(cudaGetDeviceFlags(&flags));
  // cudaDeviceMapHost may be reported even though it was not set (documented), so only the
  // scheduling bits are compared.
  EXPECT((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync,
         "cudaGetDeviceFlags = %#x, expected schedule bits %#x", flags,
         (unsigned)cudaDeviceScheduleBlockingSync);
  // Any subsequent API call reinitializes the device: allocations and launches work again.
  run_fill_kernel(7);
  CHECK(cudaGetDeviceFlags(&flags));
  EXPECT((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync,
         "after reinitialization cudaGetDeviceFlags = %#x", flags);
  CHECK(cudaGetDevice(&dev));
  EXPECT(dev == 0, "cudaGetDevice = %d after reset", dev);

  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
