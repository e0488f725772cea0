#pragma once
// Reader for the NVIDIA fatbin format that nvcc embeds in host binaries and
// hands to __cudaRegisterFatBinary (layout: docs/fatbin.md). Everything is
// parsed from memory with explicit bounds; malformed input yields an Error
// value, never an exception or abort, because the bytes come from whatever
// binary the user runs under the shim.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace warpsim::fatbin {

struct Error {
  std::string message;
  // The bytes read fine but hold nothing for the request (no PTX for the
  // GPU's architecture): a rebuild for another architecture helps. Otherwise
  // the device code is damaged or not what nvcc writes, and a rebuild for
  // another architecture would not help.
  bool no_match = false;
};

// A value or an Error (std::expected is C++23).
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

inline constexpr uint32_t kWrapperMagic = 0x466243b1;    // __fatBinC_Wrapper_t::magic
inline constexpr uint32_t kContainerMagic = 0xBA55ED50;  // fatbin container header
inline constexpr size_t kWrapperSize = 24;
inline constexpr size_t kContainerHeaderSize = 16;
inline constexpr size_t kEntryHeaderMinSize = 64;

// Entry flag bits (nvcc 13.0, measured).
inline constexpr uint64_t kFlag64Bit = 0x1;
inline constexpr uint64_t kFlagDebug = 0x2;
inline constexpr uint64_t kFlagLinux = 0x10;
inline constexpr uint64_t kFlagLz4 = 0x2000;
inline constexpr uint64_t kFlagZstd = 0x8000;
inline constexpr uint64_t kFlagArchSpecific = 0x100000;  // sm_90a etc.

enum class EntryKind : uint16_t { Ptx = 1, Elf = 2 };
enum class Compression { None, Lz4, Zstd };

// One image (PTX text or cubin) inside a container.
struct Entry {
  size_t offset = 0;  // of the entry header, from the start of the parsed bytes
  uint16_t kind = 0;  // raw; compare with EntryKind
  uint16_t version = 0;
  uint32_t header_size = 0;
  uint64_t padded_size = 0;      // payload bytes reserved after the header (multiple of 8)
  uint32_t compressed_size = 0;  // exact stored bytes when compressed, else 0
  uint32_t options_offset = 0;   // of the {str_off, len, chars} record inside the header, 0 = none
  uint16_t minor = 0;            // PTX ISA minor (ELF: 8)
  uint16_t major = 0;            // PTX ISA major (ELF: 1)
  uint32_t arch = 0;             // 75, 80, 90, ...
  uint64_t flags = 0;
  uint64_t uncompressed_size = 0;  // 0 when not compressed
  std::string ident;               // --ident string, empty if none
  std::string options;             // ptxas options (--cmdline), empty if none
  Compression compression = Compression::None;
  std::span<const std::byte> payload;  // stored bytes (compressed_size or padded_size long)

  bool is_ptx() const { return kind == static_cast<uint16_t>(EntryKind::Ptx); }
  bool is_elf() const { return kind == static_cast<uint16_t>(EntryKind::Elf); }
  bool arch_specific() const { return (flags & kFlagArchSpecific) != 0; }
};

struct Container {
  size_t offset = 0;  // of the container header, from the start of the parsed bytes
  uint16_t version = 0;
  uint16_t header_size = 0;
  uint64_t fat_size = 0;  // bytes of entries after the header
  std::vector<Entry> entries;

  size_t total_size() const { return header_size + fat_size; }
};

// One or more containers back to back (a .nv_fatbin section, a .fatbin file).
struct Fatbin {
  std::vector<Container> containers;

  // All entries of all containers, in order.
  std::vector<const Entry*> entries() const;
};

// Parses every container in `bytes`. Zero padding between and after
// containers (section alignment) is skipped; anything else is an error.
Result<Fatbin> parse_fatbin(std::span<const std::byte> bytes);

// Parses exactly one container at the start of `bytes` (trailing bytes are
// ignored). Entry and container offsets are relative to `bytes`.
Result<Container> parse_container(std::span<const std::byte> bytes);

// Decompression output is capped so that a corrupt size field cannot make
// us allocate gigabytes.
inline constexpr size_t kDefaultMaxImageSize = size_t{256} << 20;

// The entry's image, decompressed if needed (raw bytes; for PTX see ptx_text).
Result<std::string> decompress(const Entry& entry, size_t max_size = kDefaultMaxImageSize);

// The PTX text of a PTX entry: decompressed and cut at the first NUL.
Result<std::string> ptx_text(const Entry& entry, size_t max_size = kDefaultMaxImageSize);

struct SelectedPtx {
  const Entry* entry = nullptr;
  uint32_t arch = 0;
  std::string text;
};

// The PTX with the highest virtual architecture not above `compute_capability`
// (major*10+minor, e.g. 86). Arch-specific PTX (compute_90a) only matches its
// exact CC and loses a tie against the portable one.
Result<SelectedPtx> select_ptx(const Fatbin& fatbin, uint32_t compute_capability,
                               size_t max_size = kDefaultMaxImageSize);

// "PTX compute_75, ELF sm_80 (zstd)" - what a fatbin holds, for messages.
std::string describe(const Fatbin& fatbin);

// __fatBinC_Wrapper_t as received by __cudaRegisterFatBinary.
struct Wrapper {
  uint32_t magic = 0;
  uint32_t version = 0;  // 1 = normal, 2 = -rdc (data = nvlink output + prelinked list)
  const std::byte* data = nullptr;
  const void* filename_or_fatbins = nullptr;
  Fatbin fatbin;                   // the container `data` points to
  std::vector<Fatbin> prelinked;  // version 2: the per-object fatbins
};

struct WrapperLimits {
  size_t max_fatbin_size = size_t{1} << 30;  // one container's header + fat size
  size_t max_prelinked = 4096;               // entries in the NULL-terminated list
};

// Reads a wrapper from in-process memory (the registration ABI gives no sizes;
// every container's extent comes from its own header, checked against the
// limits before anything beyond the 16-byte header is read).
Result<Wrapper> parse_wrapper(const void* wrapper, const WrapperLimits& limits = {});

}  // namespace warpsim::fatbin
