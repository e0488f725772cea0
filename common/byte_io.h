#pragma once
// Bounds-checked reading of binary formats from memory (fatbins, cubins,
// host ELF files): the range check every reader needs before it touches a
// field, written once without overflow, and the unaligned little-endian load
// that follows it.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace warpsim::bytes {

// True if [off, off + len) lies within [0, size), without overflowing.
constexpr bool fits(uint64_t off, uint64_t len, uint64_t size) {
  return off <= size && len <= size - off;
}

// Unaligned load of a trivially copyable T from `p`; the caller has checked
// the bounds (every format warpsim reads is little endian, as the host is).
template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace warpsim::bytes
