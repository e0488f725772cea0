// Device printf: formatting a vprintf call on the host, and the printf FIFO's
// space accounting (see device_printf.h).
#include "functional/device_printf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>

namespace warpsim::functional {

namespace {

// Result of scanning a device string: the bytes before the NUL (or before
// `limit`), whether a NUL ended it, and where reading failed if it did.
struct DeviceString {
  std::string text;
  bool terminated = false;
  bool readable = true;
  uint64_t fault = 0;
};

// Reads at most `limit` bytes, stopping at a NUL. Reads in aligned chunks for
// speed; a chunk that fails is retried byte by byte, because a string may end
// just before the end of valid memory while the chunk runs past it.
DeviceString read_device_string(const DeviceReader& read, uint64_t address, size_t limit) {
  constexpr size_t kChunk = 256;
  DeviceString out;
  char buf[kChunk];
  while (out.text.size() < limit) {
    const uint64_t at = address + out.text.size();
    if (at < address) {  // wrapped past the top of the address space
      out.readable = false;
      out.fault = at;
      return out;
    }
    size_t n = std::min<size_t>(kChunk - at % kChunk, limit - out.text.size());
    if (const uint64_t room = std::numeric_limits<uint64_t>::max() - at; room < n - 1) {
      n = static_cast<size_t>(room) + 1;
    }
    if (!read(at, buf, n)) {
      size_t k = 0;
      for (; k < n; ++k) {
        if (!read(at + k, buf + k, 1)) {
          out.text.append(buf, k);
          out.readable = false;
          out.fault = at + k;
          return out;
        }
        if (buf[k] == '\0') break;
      }
      n = std::min(k + 1, n);
    }
    if (const void* nul = std::memchr(buf, '\0', n)) {
      out.text.append(buf, static_cast<size_t>(static_cast<const char*>(nul) - buf));
      out.terminated = true;
      return out;
    }
    out.text.append(buf, n);
  }
  return out;
}

// Walks the argument buffer with the device ABI: each value at the next offset
// aligned to its own size. Counts arguments for CUDA's 32-argument limit.
class ArgCursor {
 public:
  ArgCursor(const DeviceReader& read, uint64_t base) : read_(read), base_(base) {}

  int used() const { return used_; }
  // Bytes of the argument buffer up to the end of the last argument used.
  uint64_t bytes() const { return offset_; }

  // Aligns, reads `size` bytes and advances even on failure, so that later
  // arguments keep their offsets. Returns false (fault set) if unreadable.
  bool fetch(size_t size, void* dst, uint64_t* fault) {
    const uint64_t at = base_ + skip(size);
    if (at < base_ || !read_(at, dst, size)) {
      *fault = at;
      return false;
    }
    return true;
  }

  // Advances past an argument without reading it; returns its offset.
  uint64_t skip(size_t size) {
    offset_ = (offset_ + size - 1) / size * size;
    const uint64_t at = offset_;
    offset_ += size;
    ++used_;
    return at;
  }

 private:
  const DeviceReader& read_;
  uint64_t base_;
  uint64_t offset_ = 0;
  int used_ = 0;
};

// One parsed conversion specification: %[flags][width][.precision][length]conv.
struct Spec {
  bool flag_minus = false, flag_plus = false, flag_space = false, flag_hash = false,
       flag_zero = false;
  bool width_star = false;
  int64_t width = -1;  // -1: none
  bool precision_star = false;
  int64_t precision = -1;  // -1: none
  std::string_view length;
  char conversion = 0;
  size_t end = 0;  // one past the conversion character
};

constexpr std::string_view kConversions = "diouxXcspeEfFgGaAn%";

// Saturating decimal parse: huge widths must not overflow before clamping.
int64_t parse_number(std::string_view fmt, size_t& pos) {
  int64_t value = 0;
  while (pos < fmt.size() && fmt[pos] >= '0' && fmt[pos] <= '9') {
    value = std::min<int64_t>(value * 10 + (fmt[pos] - '0'), int64_t{1} << 40);
    ++pos;
  }
  return value;
}

// Parses the specification starting at fmt[pos] == '%'. Returns false when it
// is cut off by the end of the format or names no known conversion; the
// caller then prints it literally (up to and including the offending char).
bool parse_spec(std::string_view fmt, size_t pos, Spec& spec) {
  ++pos;
  for (; pos < fmt.size(); ++pos) {
    const char c = fmt[pos];
    if (c == '-') spec.flag_minus = true;
    else if (c == '+') spec.flag_plus = true;
    else if (c == ' ') spec.flag_space = true;
    else if (c == '#') spec.flag_hash = true;
    else if (c == '0') spec.flag_zero = true;
    else break;
  }
  if (pos < fmt.size() && fmt[pos] == '*') {
    spec.width_star = true;
    ++pos;
  } else if (pos < fmt.size() && fmt[pos] >= '1' && fmt[pos] <= '9') {
    spec.width = parse_number(fmt, pos);
  }
  if (pos < fmt.size() && fmt[pos] == '.') {
    ++pos;
    if (pos < fmt.size() && fmt[pos] == '*') {
      spec.precision_star = true;
      ++pos;
    } else {
      spec.precision = parse_number(fmt, pos);  // "." alone means precision 0
    }
  }
  for (std::string_view len : {"hh", "h", "ll", "l", "z", "j", "t", "L"}) {
    if (fmt.substr(pos, len.size()) == len) {
      spec.length = len;
      pos += len.size();
      break;
    }
  }
  spec.end = std::min(pos + 1, fmt.size());
  if (pos >= fmt.size() || kConversions.find(fmt[pos]) == std::string_view::npos) return false;
  spec.conversion = fmt[pos];
  return true;
}

// The C-level spec handed to the host snprintf. Width and precision are
// already resolved to numbers, so the only variadic argument is the value.
std::string host_spec(const Spec& spec, std::string_view length) {
  std::string out = "%";
  if (spec.flag_minus) out += '-';
  if (spec.flag_plus) out += '+';
  if (spec.flag_space) out += ' ';
  if (spec.flag_hash) out += '#';
  if (spec.flag_zero) out += '0';
  if (spec.width >= 0) out += std::to_string(spec.width);
  if (spec.precision >= 0) out += '.' + std::to_string(spec.precision);
  out += length;
  out += spec.conversion;
  return out;
}

template <typename T>
void append_formatted(std::string& out, const std::string& spec, T value) {
  char small[128];
  const int n = std::snprintf(small, sizeof small, spec.c_str(), value);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof small) {
    out.append(small, static_cast<size_t>(n));
    return;
  }
  const size_t old = out.size();
  out.resize(old + static_cast<size_t>(n) + 1);
  std::snprintf(out.data() + old, static_cast<size_t>(n) + 1, spec.c_str(), value);
  out.resize(old + static_cast<size_t>(n));
}

class Formatter {
 public:
  Formatter(uint64_t args_address, const DeviceReader& read)
      : read_(read), args_(read, args_address) {}

  PrintfResult run(uint64_t format_address) {
    // Without a usable format nothing reaches the FIFO and printf returns -1.
    result_.returned = -1;
    if (format_address == 0) {
      fail("null format string");
      return std::move(result_);
    }
    DeviceString format = read_device_string(read_, format_address, kMaxPrintfFormatBytes);
    if (!format.readable) {
      fail(fmt::format("format string unreadable at 0x{:x}", format.fault));
      return std::move(result_);
    }
    if (!format.terminated) {
      fail(fmt::format("format string at 0x{:x} has no NUL within {} bytes", format_address,
                       kMaxPrintfFormatBytes));
      return std::move(result_);
    }
    const std::string_view fmt_text = format.text;
    size_t pos = 0;
    while (pos < fmt_text.size()) {
      const size_t percent = fmt_text.find('%', pos);
      result_.text.append(fmt_text.substr(pos, percent - pos));
      if (percent == std::string_view::npos) break;
      Spec spec;
      if (!parse_spec(fmt_text, percent, spec)) {
        // Cut off or unknown conversion: the docs say nothing, so print it as written.
        result_.text.append(fmt_text.substr(percent, spec.end - percent));
      } else {
        convert(spec, fmt_text.substr(percent, spec.end - percent));
      }
      pos = spec.end;
    }
    result_.returned = args_.used();
    const uint64_t content =
        round_up8(kPrintfRecordHeaderBytes) + round_up8(args_.bytes()) + string_bytes_;
    result_.record_bytes = (content + kPrintfRecordGranule - 1) / kPrintfRecordGranule *
                           kPrintfRecordGranule;
    return std::move(result_);
  }

 private:
  void fail(std::string message) {
    constexpr int kMaxMessages = 8;
    result_.ok = false;
    if (++errors_ > kMaxMessages) return;
    if (!result_.error.empty()) result_.error += "; ";
    result_.error += errors_ == kMaxMessages ? std::string("further errors omitted") : message;
  }

  // Reads a 4-byte `*` argument and resolves it the way C does.
  bool resolve_stars(Spec& spec, std::string_view as_written) {
    int32_t value = 0;
    uint64_t fault = 0;
    if (spec.width_star) {
      if (!args_.fetch(4, &value, &fault)) return bad_argument(as_written, fault);
      if (value < 0) spec.flag_minus = true;  // negative width means left-justify
      spec.width = value < 0 ? -int64_t{value} : value;
    }
    if (spec.precision_star) {
      if (!args_.fetch(4, &value, &fault)) return bad_argument(as_written, fault);
      spec.precision = value < 0 ? -1 : value;  // negative precision: as if omitted
    }
    if (spec.width > kMaxPrintfFieldWidth || spec.precision > kMaxPrintfFieldWidth) {
      fail(fmt::format("field width/precision in '{}' clamped to {}", as_written,
                       kMaxPrintfFieldWidth));
      spec.width = std::min<int64_t>(spec.width, kMaxPrintfFieldWidth);
      spec.precision = std::min<int64_t>(spec.precision, kMaxPrintfFieldWidth);
    }
    return true;
  }

  bool bad_argument(std::string_view as_written, uint64_t fault) {
    fail(fmt::format("argument {} of '{}' unreadable at 0x{:x}", args_.used(), as_written, fault));
    result_.text.append(as_written);
    return false;
  }

  void convert(Spec& spec, std::string_view as_written) {
    const char conv = spec.conversion;
    if (conv == '%') {  // glibc ignores flags/width on %%; consumes nothing
      result_.text += '%';
      return;
    }
    const int needed = 1 + spec.width_star + spec.precision_star;
    if (exhausted_ || args_.used() + needed > kMaxPrintfArguments) {
      // CUDA: arguments past the 32nd are ignored and their specifier is printed as-is.
      if (!exhausted_) {
        fail(fmt::format("more than {} arguments; the rest printed as written",
                         kMaxPrintfArguments));
      }
      exhausted_ = true;
      result_.text.append(as_written);
      return;
    }
    if (!resolve_stars(spec, as_written)) return;
    uint64_t fault = 0;
    if (conv == 'n') {  // the pointer occupies a slot, but we never write through it
      args_.skip(8);
      fail("%n is not supported (nothing written)");
      return;
    }
    const bool wide = spec.length == "l" || spec.length == "ll" || spec.length == "z" ||
                      spec.length == "j" || spec.length == "t" || spec.length == "L";
    if (std::string_view("diouxX").find(conv) != std::string_view::npos) {
      const bool is_signed = conv == 'd' || conv == 'i';
      if (wide) {
        uint64_t v = 0;
        if (!args_.fetch(8, &v, &fault)) return (void)bad_argument(as_written, fault);
        const std::string s = host_spec(spec, "ll");
        if (is_signed) append_formatted(result_.text, s, static_cast<long long>(v));
        else append_formatted(result_.text, s, static_cast<unsigned long long>(v));
      } else {
        // h/hh arguments were promoted to int; the host printf narrows them.
        uint32_t v = 0;
        if (!args_.fetch(4, &v, &fault)) return (void)bad_argument(as_written, fault);
        const std::string s = host_spec(spec, spec.length);
        if (is_signed) append_formatted(result_.text, s, static_cast<int32_t>(v));
        else append_formatted(result_.text, s, static_cast<unsigned>(v));
      }
    } else if (conv == 'c') {  // char promoted to int; %lc is treated as %c
      int32_t v = 0;
      if (!args_.fetch(4, &v, &fault)) return (void)bad_argument(as_written, fault);
      append_formatted(result_.text, host_spec(spec, ""), static_cast<int>(v));
    } else if (conv == 'p') {
      uint64_t v = 0;
      if (!args_.fetch(8, &v, &fault)) return (void)bad_argument(as_written, fault);
      static_assert(sizeof(void*) == 8, "%p goes through a 64-bit host pointer");
      append_formatted(result_.text, host_spec(spec, ""),
                       reinterpret_cast<void*>(static_cast<uintptr_t>(v)));
    } else if (conv == 's') {
      uint64_t v = 0;
      if (!args_.fetch(8, &v, &fault)) return (void)bad_argument(as_written, fault);
      format_string(spec, v);
    } else {  // floating: every length is the 8-byte double the caller promoted to
      double v = 0;
      if (!args_.fetch(8, &v, &fault)) return (void)bad_argument(as_written, fault);
      append_formatted(result_.text, host_spec(spec, ""), v);
    }
  }

  void format_string(const Spec& spec, uint64_t pointer) {
    const std::string s = host_spec(spec, "");
    if (pointer == 0) {
      // glibc's rule: "(null)" unless the precision is too short to hold it.
      const bool fits = spec.precision < 0 || spec.precision >= 6;
      append_formatted(result_.text, s, fits ? "(null)" : "");
      return;
    }
    // With a precision the array need not be NUL-terminated (C rule), so read no further.
    const bool bounded =
        spec.precision >= 0 && static_cast<size_t>(spec.precision) <= kMaxPrintfStringBytes;
    const size_t limit = bounded ? static_cast<size_t>(spec.precision) : kMaxPrintfStringBytes;
    const DeviceString str = read_device_string(read_, pointer, limit);
    if (!str.readable) {
      fail(fmt::format("%s argument 0x{:x} unreadable at 0x{:x}", pointer, str.fault));
      result_.text += fmt::format("<unreadable string at 0x{:x}>", pointer);
      return;
    }
    if (!str.terminated && !bounded) {
      fail(fmt::format("%s argument 0x{:x} has no NUL within {} bytes; truncated", pointer,
                       kMaxPrintfStringBytes));
    }
    string_bytes_ += round_up8(str.text.size() + 1);  // the FIFO holds a copy and its NUL
    append_formatted(result_.text, s, str.text.c_str());
  }

  static uint64_t round_up8(uint64_t n) { return (n + 7) / 8 * 8; }

  const DeviceReader& read_;
  ArgCursor args_;
  PrintfResult result_;
  int errors_ = 0;
  bool exhausted_ = false;
  uint64_t string_bytes_ = 0;  // %s strings copied into the FIFO record
};

}  // namespace

PrintfResult format_device_printf(uint64_t format_address, uint64_t args_address,
                                  const DeviceReader& read) {
  return Formatter(args_address, read).run(format_address);
}

// ---- PrintfFifo -----------------------------------------------------------------------

void PrintedRecords::add(std::string_view t, uint64_t bytes) {
  text.append(t);
  records.emplace_back(t.size(), bytes);
}

void PrintedRecords::append(const PrintedRecords& other) {
  text += other.text;
  records.insert(records.end(), other.records.begin(), other.records.end());
}

void PrintedRecords::clear() {
  text.clear();
  records.clear();
}

void PrintedRecords::for_each(const std::function<void(std::string_view, uint64_t)>& f) const {
  size_t at = 0;
  for (const auto& [length, bytes] : records) {
    f(std::string_view(text).substr(at, length), bytes);
    at += length;
  }
}

bool PrintfFifo::set_capacity(uint64_t bytes) {
  std::lock_guard lock(mu_);
  if (fixed_) return false;
  capacity_ = bytes;
  return true;
}

uint64_t PrintfFifo::capacity() const {
  std::lock_guard lock(mu_);
  return capacity_;
}

void PrintfFifo::fix_capacity() {
  std::lock_guard lock(mu_);
  fixed_ = true;
}

bool PrintfFifo::capacity_fixed() const {
  std::lock_guard lock(mu_);
  return fixed_;
}

void PrintfFifo::push(std::string_view text, uint64_t bytes) {
  std::lock_guard lock(mu_);
  records_.emplace_back(std::string(text), bytes);
  used_ += bytes;
  while (used_ > capacity_ && !records_.empty()) {
    used_ -= records_.front().second;
    records_.pop_front();
    ++overwritten_;
  }
}

std::string PrintfFifo::take(uint64_t* overwritten) {
  std::lock_guard lock(mu_);
  std::string text;
  for (const auto& [t, bytes] : records_) text += t;
  records_.clear();
  used_ = 0;
  if (overwritten) *overwritten = overwritten_;
  overwritten_ = 0;
  return text;
}

}  // namespace warpsim::functional
