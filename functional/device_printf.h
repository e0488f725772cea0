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
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
// the format pointer and the argument values - to a buffer in device memory
// that the host reads and formats at the next flush point (a launch from the
// host, a synchronisation, a blocking copy). The buffer "is circular and if
// more output is produced during kernel execution than can fit in the
// buffer, older output is overwritten" (CUDA C++ Programming Guide,
// "Formatted Output"); printf still returns the number of arguments it
// parsed. NVIDIA does not document the record layout. warpsim counts, per
// call, kPrintfRecordHeaderBytes (the format pointer and a length/metadata
// word) + the argument buffer nvcc built, up to the end of its last argument
// used, + each %s string with its NUL (copied: the host cannot read it later),
// each part rounded up to 8 bytes, and the whole rounded up to
// kPrintfRecordGranule: on an H100 (CUDA 13) a 512 KiB buffer kept the last
// 2048 lines of a 4000-line flood of one-to-nine-argument printfs, and a
// 1 MiB one all 4000 (docs/runtime-shim.md, "Behaviour measured on a GPU").
inline constexpr uint64_t kPrintfRecordHeaderBytes = 16;
inline constexpr uint64_t kPrintfRecordGranule = 256;
// The runtime's default cudaLimitPrintfFifoSize on an H100 (CUDA 13), and
// the smallest it accepts: smaller requests read back as this.
inline constexpr uint64_t kDefaultPrintfFifoBytes = 8650752;
inline constexpr uint64_t kMinPrintfFifoBytes = 512 << 10;

// Device printf output not yet read by the host: each record's text and the
// bytes it takes in the FIFO, in the order of the output.
struct PrintedRecords {
  std::string text;
  std::vector<std::pair<size_t, uint64_t>> records;  // text length, FIFO bytes
  void add(std::string_view t, uint64_t bytes);
  void append(const PrintedRecords& other);
  bool empty() const { return records.empty(); }
  void clear();
  // f(text of the record, its FIFO bytes) for each record in order.
  void for_each(const std::function<void(std::string_view, uint64_t)>& f) const;
};

// The FIFO of one device (thread-safe). The host reads it at each flush point.
class PrintfFifo {
 public:
  // False once a kernel that calls printf was launched: CUDA then refuses a
  // new cudaLimitPrintfFifoSize with cudaErrorInvalidValue.
  bool set_capacity(uint64_t bytes);
  uint64_t capacity() const;
  // Called when a kernel that calls printf is launched.
  void fix_capacity();
  bool capacity_fixed() const;

  // Appends a record; while the records held take more than the capacity,
  // the oldest ones are overwritten.
  void push(std::string_view text, uint64_t bytes);
  // The host reads the FIFO: the text of the records it holds, in order, and
  // (*overwritten) how many records were lost since the last read.
  std::string take(uint64_t* overwritten);

 private:
  mutable std::mutex mu_;
  uint64_t capacity_ = kDefaultPrintfFifoBytes;
  std::deque<std::pair<std::string, uint64_t>> records_;
  uint64_t used_ = 0;
  uint64_t overwritten_ = 0;
  bool fixed_ = false;
};

}  // namespace warpsim::functional
