#pragma once
// Shared by the extern "C" entry points (api_*.cpp): the process's Runtime
// and the wrapper every entry point goes through, which takes the runtime's
// lock, applies the context's error state and records the thread's last
// error, exactly as the real runtime does:
//  - a configuration that failed to load fails every call with
//    cudaErrorInitializationError;
//  - after a kernel fault (a sticky error) every call that uses the context
//    returns that error without doing anything (kContext), while queries
//    that do not (device properties, versions, error strings) still work
//    (kNoContext);
//  - any failing call becomes the thread's last error (cudaGetLastError).
#include <mutex>

#include "libcudart_shim/cuda_abi.h"
#include "libcudart_shim/runtime.h"

namespace warpsim::cudart::api {

// The process's runtime, created on first use from the environment
// (`warpsim run` sets it). Never destroyed: host code may call the runtime
// from static destructors and atexit handlers.
Runtime& rt();
// The runtime if a call has created it, else null (nothing is created).
Runtime* created_runtime();

enum Needs { kContext, kNoContext };

template <typename F>
cudaError_t entry(Needs needs, F&& body) {
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  Error e;
  if (r.init_error() != Error::Success)
    e = r.init_error();
  else if (needs == kContext && r.sticky_error() != Error::Success)
    e = r.sticky_error();
  else
    e = body(r);
  return static_cast<cudaError_t>(r.record(e));
}

// An entry point warpsim does not implement (a real one whose semantics
// are not modelled yet): one line on stderr, cudaErrorNotSupported.
cudaError_t unsupported(const char* function);

// cudaMemcpy3DParms as a Copy3D (api_memory.cpp); err receives the result.
Copy3D from_parms(const cudaMemcpy3DParms& p, Runtime& r, Error& err);

inline functional::Dim3 to_dim3(const dim3& d) { return {d.x, d.y, d.z}; }

}  // namespace warpsim::cudart::api
