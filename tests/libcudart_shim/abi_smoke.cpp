// A host program that talks to one built shim (libcudart.so.11.0, .12 or .13,
// linked like an nvcc program) through its exported C ABI only: it
// registers a real nvcc fatbin (data/ptx75_sm80.fatbin) the way nvcc's
// start-up code does, launches a kernel by the launch path of its major, and
// checks the struct sizes each major's entry points write. Compiled once per
// major with WARPSIM_CUDA_MAJOR; for CUDA 12, whose toolkit cannot be
// installed here, this is what exercises the 12 shim's entry points.
//
// Exit status 0 and "PASS abi_smoke_<major>" on success; one FAIL line
// otherwise.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "libcudart_shim/cuda_abi.h"

extern "C" {
void** __cudaRegisterFatBinary(void* fat_cubin);
void __cudaRegisterFatBinaryEnd(void** handle);
void __cudaUnregisterFatBinary(void** handle);
void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun,
                            const char* device_name, int thread_limit, uint3* tid, uint3* bid,
                            dim3* bdim, dim3* gdim, int* wsize);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, cudaStream_t stream);
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream);
cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                             cudaStream_t stream);
cudaError_t cudaMalloc(void** p, size_t n);
cudaError_t cudaFree(void* p);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, int kind);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p);
cudaError_t cudaGetLastError();
const char* cudaGetErrorString(cudaError_t e);
const char* cudaGetErrorName(cudaError_t e);
cudaError_t cudaRuntimeGetVersion(int* v);
cudaError_t cudaIpcGetMemHandle(void* handle, void* ptr);
#if WARPSIM_CUDA_MAJOR >= 12
cudaError_t __cudaGetKernel(cudaKernel_t* k, const void* host_fun);
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void** args, size_t shared,
                               cudaStream_t stream);
#endif
#if WARPSIM_CUDA_MAJOR == 12
cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp* prop, int device);
#endif
}

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (ok) return;
  std::printf("FAIL abi_smoke_%d: %s\n", WARPSIM_CUDA_MAJOR, what);
  ++failures;
}

// Host stand-in for the kernel's stub: only its address matters.
void scale_stub() {}

// Bytes [from, size) of `buffer` still hold the sentinel.
bool untouched(const unsigned char* buffer, size_t from, size_t size) {
  for (size_t i = from; i < size; ++i)
    if (buffer[i] != 0xab) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::printf("usage: %s FATBIN\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> fatbin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  expect(!fatbin.empty(), "fixture fatbin read");

  // What nvcc's __sti____cudaRegisterAll does.
  __fatBinC_Wrapper_t wrapper{0x466243b1, 1, reinterpret_cast<const unsigned long long*>(fatbin.data()),
                              nullptr};
  void** handle = __cudaRegisterFatBinary(&wrapper);
  char name[] = "_Z5scalePffi";
  __cudaRegisterFunction(handle, reinterpret_cast<const char*>(&scale_stub), name, name, -1,
                         nullptr, nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFatBinaryEnd(handle);

  int version = 0;
  expect(cudaRuntimeGetVersion(&version) == 0 && version / 1000 == WARPSIM_CUDA_MAJOR,
         "cudaRuntimeGetVersion");

  const int n = 300;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  void* d = nullptr;
  expect(cudaMalloc(&d, n * sizeof(float)) == 0, "cudaMalloc");
  expect(cudaMemcpy(d, x.data(), n * sizeof(float), 1) == 0, "cudaMemcpy H2D");
  float a = 3.0f;
  int count = n;
  void* args[] = {&d, &a, &count};

  // The <<<>>> sequence of this major's host stubs: push, pop, launch.
  expect(__cudaPushCallConfiguration(dim3{2, 1, 1}, dim3{256, 1, 1}, 0, nullptr) == 0, "push");
  dim3 grid{}, block{};
  size_t shared = 1;
  cudaStream_t stream = reinterpret_cast<cudaStream_t>(1);
  expect(__cudaPopCallConfiguration(&grid, &block, &shared, &stream) == 0, "pop");
  expect(grid.x == 2 && block.x == 256 && shared == 0 && stream == nullptr, "popped configuration");
#if WARPSIM_CUDA_MAJOR >= 13
  cudaKernel_t k = nullptr;
  expect(__cudaGetKernel(&k, reinterpret_cast<const void*>(&scale_stub)) == 0, "__cudaGetKernel");
  expect(__cudaLaunchKernel(k, grid, block, args, shared, stream) == 0, "__cudaLaunchKernel");
#else
  expect(cudaLaunchKernel(reinterpret_cast<const void*>(&scale_stub), grid, block, args, shared,
                          stream) == 0,
         "cudaLaunchKernel");
#endif
  expect(cudaGetLastError() == 0, "no error after the launch");
  expect(cudaMemcpy(y.data(), d, n * sizeof(float), 2) == 0, "cudaMemcpy D2H");
  for (int i = 0; i < n; ++i)
    if (y[i] != 3.0f * static_cast<float>(i)) {
      expect(false, "kernel results");
      break;
    }

  // Struct sizes the entry points write: exactly this major's.
  unsigned char props[2048];
  std::memset(props, 0xab, sizeof props);
  expect(cudaGetDeviceProperties(reinterpret_cast<cudaDeviceProp*>(props), 0) == 0,
         "cudaGetDeviceProperties");
  const auto* p = reinterpret_cast<const cudaDeviceProp*>(props);
  expect(std::strstr(p->name, "warpsim") != nullptr, "device name");
  expect(p->multiProcessorCount == 132 && p->warpSize == 32 && p->major == 9 && p->minor == 0,
         "device properties");
#if WARPSIM_CUDA_MAJOR == 12
  // The plain symbol keeps the 11.x contract: only the 728-byte prefix.
  expect(untouched(props, 728, sizeof props), "cudaGetDeviceProperties writes 728 bytes (12)");
  std::memset(props, 0xab, sizeof props);
  expect(cudaGetDeviceProperties_v2(reinterpret_cast<cudaDeviceProp*>(props), 0) == 0,
         "cudaGetDeviceProperties_v2");
  expect(untouched(props, 1032, sizeof props), "cudaGetDeviceProperties_v2 writes 1032 bytes");
  expect(p->hostRegisterSupported == 1 && p->multiProcessorCount == 132, "_v2 properties");
#else
  expect(untouched(props, sizeof(cudaDeviceProp), sizeof props), "cudaDeviceProp size");
  expect(sizeof(cudaDeviceProp) == (WARPSIM_CUDA_MAJOR == 13 ? 1008u : 728u), "cudaDeviceProp layout");
#endif
  unsigned char attrs[256];
  std::memset(attrs, 0xab, sizeof attrs);
  expect(cudaPointerGetAttributes(reinterpret_cast<cudaPointerAttributes*>(attrs), d) == 0,
         "cudaPointerGetAttributes");
  expect(untouched(attrs, WARPSIM_CUDA_MAJOR >= 13 ? 88 : 24, sizeof attrs),
         "cudaPointerAttributes size");
  expect(reinterpret_cast<cudaPointerAttributes*>(attrs)->type == cudaMemoryTypeDevice,
         "pointer type");

  // Errors: texts of the real runtime; an unimplemented call is 801, not a crash.
  expect(std::strcmp(cudaGetErrorString(700), "an illegal memory access was encountered") == 0,
         "cudaGetErrorString");
  expect(std::strcmp(cudaGetErrorName(801), "cudaErrorNotSupported") == 0, "cudaGetErrorName");
  char ipc[64];
  expect(cudaIpcGetMemHandle(ipc, d) == 801, "unimplemented call returns cudaErrorNotSupported");
  expect(cudaGetLastError() == 801, "and sets the last error");
  expect(cudaGetLastError() == 0, "which cudaGetLastError clears");

  expect(cudaFree(d) == 0, "cudaFree");
  __cudaUnregisterFatBinary(handle);
  if (failures) return 1;
  std::printf("PASS abi_smoke_%d\n", WARPSIM_CUDA_MAJOR);
  return 0;
}
