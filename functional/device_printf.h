#pragma once
// Host-side formatting of a device printf call (vprintf(format, args)), and
// the space accounting of the device's printf FIFO.
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
#include <mutex>
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
  // What device printf returns: the number of arguments it parsed (0 with
  // none), -1 for a null format (CUDA Programming Guide, "Formatted Output").
  int returned = 0;
  // Bytes the call takes in the printf FIFO (printf_record_bytes).
  uint64_t record_bytes = 0;
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

// ---- the printf FIFO (cudaLimitPrintfFifoSize) --------------------------------
//
// On a GPU, printf does not format: it appends a record - internal metadata,
// the format pointer and the argument values - to a FIFO in device memory that
// the host drains and formats at the next synchronisation ("the buffer used
// to transfer the printf() arguments and internal metadata to the host",
// 1 MiB by default). A printf that finds the FIFO full is lost. NVIDIA does
// not document the record layout; warpsim charges, per call:
//   kPrintfRecordHeaderBytes (the format pointer and a length/metadata word)
//   + the argument buffer nvcc built, up to the end of the last argument used
//   + for each %s, the string and its NUL (copied: the host cannot read it
//     later), each part rounded up to 8 bytes.
inline constexpr uint64_t kPrintfRecordHeaderBytes = 16;
inline constexpr uint64_t kDefaultPrintfFifoBytes = 1ull << 20;

// Printf's return value when its record does not fit in the FIFO. Not
// documented; CUDA documents -2 for "an internal error".
inline constexpr int kPrintfDroppedResult = -2;

// Space accounting for the FIFO, shared by every CTA of every launch on a
// device (thread-safe: CTAs may run on several host threads). The host side
// drains it at each synchronisation.
class PrintfFifo {
 public:
  // False once a kernel that calls printf was launched: CUDA then refuses a
  // new cudaLimitPrintfFifoSize with cudaErrorInvalidValue.
  bool set_capacity(uint64_t bytes);
  uint64_t capacity() const;
  // Called when a kernel that calls printf is launched.
  void fix_capacity();
  bool capacity_fixed() const;

  // Takes `bytes` for one record; false (the printf is dropped) when the
  // FIFO has less room left.
  bool reserve(uint64_t bytes);
  // The host read everything: the FIFO is empty again. Returns how many
  // records were dropped since the last drain.
  uint64_t drain();

 private:
  mutable std::mutex mu_;
  uint64_t capacity_ = kDefaultPrintfFifoBytes;
  uint64_t used_ = 0;
  uint64_t dropped_ = 0;
  bool fixed_ = false;
};

}  // namespace warpsim::functional
