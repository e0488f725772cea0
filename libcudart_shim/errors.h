#pragma once
// CUDA runtime error codes (cuda_errors.def) and how the runtime treats them.
#include <cstdint>
#include <string_view>

namespace warpsim::cudart {

enum class Error : int {
#define CUDA_ERROR(name, value, since, text) name = value,
#include "libcudart_shim/cuda_errors.def"
#undef CUDA_ERROR
};

// "cudaErrorInvalidValue" / "invalid argument" for the codes CUDA `major`
// knows; for any other value the texts the real runtime uses for unknown
// codes.
const char* error_name(int code, int major);
const char* error_string(int code, int major);

// Errors that corrupt the context: once a kernel fails with one, every later
// call that uses the context returns it, until cudaDeviceReset (CUDA Runtime
// API, "Error Handling"; these are the "sticky" launch failures).
bool is_sticky(Error e);

}  // namespace warpsim::cudart
