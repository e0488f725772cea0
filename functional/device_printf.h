#pragma once
// Host-side formatting of a device printf call (vprintf(format, args)).
//
// nvcc lowers device printf to vprintf(.b64 format, .b64 args): `format` is the
// generic address of the NUL-terminated format string, `args` the generic
// address of a local buffer into which the caller stored the (promoted)
// arguments, each at the next offset aligned to its own size:
//   int-sized values (%d %i %u %o %x %X %c, h/hh variants, `*` width and
//   precision)                                  4 bytes, aligned 4
//   l/ll/z/j/t/L integers, %p, %s, %n           8 bytes, aligned 8
//   every floating conversion (float promoted)  8-byte double, aligned 8
// With no arguments nvcc passes args = 0.
//
// The formatter never touches memory directly: everything goes through a
// DeviceReader, so it works on any memory model and never writes (%n is
// refused). Like CUDA, at most 32 arguments are consumed; conversions needing
// more are printed as written.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace warpsim::functional {

// Reads `size` bytes at a device address into dst; returns false if any byte of
// [address, address + size) is invalid.
using DeviceReader = std::function<bool(uint64_t address, void* dst, size_t size)>;

struct PrintfResult {
  // Best-effort output; usable even when ok is false.
  std::string text;
  // False when anything went wrong (unreadable format/argument/string, %n,
  // argument limit, clamped field); `error` then says what.
  bool ok = true;
  std::string error;
};

// CUDA's documented limit on arguments after the format string.
inline constexpr int kMaxPrintfArguments = 32;
// Bounds that keep a corrupt format or string from running away.
inline constexpr size_t kMaxPrintfFormatBytes = 64 * 1024;
inline constexpr size_t kMaxPrintfStringBytes = 64 * 1024;
// Field width and precision beyond this are clamped (and reported).
inline constexpr int kMaxPrintfFieldWidth = 64 * 1024;

PrintfResult format_device_printf(uint64_t format_address, uint64_t args_address,
                                  const DeviceReader& read);

}  // namespace warpsim::functional
