#include "libcudart_shim/errors.h"

namespace warpsim::cudart {

namespace {

struct ErrorInfo {
  int value;
  int since;
  const char* name;
  const char* text;
};

constexpr ErrorInfo kErrors[] = {
#define CUDA_ERROR(name, value, since, text) {value, since, "cudaError" #name, text},
#include "libcudart_shim/cuda_errors.def"
#undef CUDA_ERROR
};

const ErrorInfo* find(int code, int major) {
  for (const ErrorInfo& e : kErrors)
    if (e.value == code) return e.since <= major ? &e : nullptr;
  return nullptr;
}

}  // namespace

const char* error_name(int code, int major) {
  if (code == 0) return "cudaSuccess";
  const ErrorInfo* e = find(code, major);
  return e ? e->name : "unrecognized error code";
}

const char* error_string(int code, int major) {
  const ErrorInfo* e = find(code, major);
  return e ? e->text : "unrecognized error code";
}

bool is_sticky(Error e) {
  switch (e) {
    case Error::IllegalAddress:
    case Error::MisalignedAddress:
    case Error::LaunchFailure:
    case Error::IllegalInstruction:
    case Error::Assert:
    case Error::LaunchTimeout:
    case Error::HardwareStackError:
    case Error::InvalidPc:
    case Error::InvalidAddressSpace:
    case Error::ECCUncorrectable:
      return true;
    default:
      return false;
  }
}

}  // namespace warpsim::cudart
