#include "libcudart_shim/fatbin.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "common/byte_io.h"

namespace warpsim::fatbin {

static_assert(std::endian::native == std::endian::little, "the fatbin format is little endian");

namespace {

using bytes::fits;
using bytes::load;

Error err(std::string msg) { return Error{std::move(msg)}; }

const char* kind_name(uint16_t kind) {
  switch (kind) {
    case 1: return "PTX";
    case 2: return "ELF";
    default: return "unknown";
  }
}

// Reads the {u32 str_off, u32 len, chars} record of the options field; the
// string offset is relative to the entry header like the record itself.
Result<std::string> header_string(std::span<const std::byte> header, uint64_t off, uint64_t len,
                                  const char* what) {
  if (!fits(off, len, header.size()))
    return err(fmt::format("{} string (offset {}, length {}) outside the {}-byte entry header", what, off,
                           len, header.size()));
  std::string s(reinterpret_cast<const char*>(header.data() + off), len);
  // Stored strings may carry a terminating NUL inside `len`.
  if (auto nul = s.find('\0'); nul != std::string::npos) s.resize(nul);
  return s;
}

Result<Entry> parse_entry(std::span<const std::byte> bytes, size_t offset, size_t end) {
  if (!fits(offset, kEntryHeaderMinSize, end))
    return err(fmt::format("entry at offset {}: truncated header ({} bytes left, need {})", offset,
                           end - std::min(offset, end), kEntryHeaderMinSize));
  const std::byte* h = bytes.data() + offset;
  Entry e;
  e.offset = offset;
  e.kind = load<uint16_t>(h + 0);
  e.version = load<uint16_t>(h + 2);
  e.header_size = load<uint32_t>(h + 4);
  e.padded_size = load<uint64_t>(h + 8);
  e.compressed_size = load<uint32_t>(h + 16);
  e.options_offset = load<uint32_t>(h + 20);
  e.minor = load<uint16_t>(h + 24);
  e.major = load<uint16_t>(h + 26);
  e.arch = load<uint32_t>(h + 28);
  const uint32_t ident_off = load<uint32_t>(h + 32);
  const uint32_t ident_len = load<uint32_t>(h + 36);
  e.flags = load<uint64_t>(h + 40);
  e.uncompressed_size = load<uint64_t>(h + 56);

  const std::string where = fmt::format("entry at offset {}", offset);
  if (e.kind != 1 && e.kind != 2) return err(fmt::format("{}: unknown kind {}", where, e.kind));
  if (e.header_size < kEntryHeaderMinSize)
    return err(fmt::format("{}: header size {} below the minimum {}", where, e.header_size, kEntryHeaderMinSize));
  if (!fits(offset, e.header_size, end))
    return err(fmt::format("{}: header size {} runs past the container end", where, e.header_size));
  if (!fits(offset + e.header_size, e.padded_size, end))
    return err(fmt::format("{}: payload size {} runs past the container end", where, e.padded_size));

  const auto header = bytes.subspan(offset, e.header_size);
  if (e.options_offset != 0) {
    if (!fits(e.options_offset, 8, e.header_size))
      return err(fmt::format("{}: options record at {} outside the header", where, e.options_offset));
    auto s = header_string(header, load<uint32_t>(h + e.options_offset), load<uint32_t>(h + e.options_offset + 4),
                           "options");
    if (!s) return err(fmt::format("{}: {}", where, s.error().message));
    e.options = std::move(s.value());
  }
  if (ident_off != 0) {
    auto s = header_string(header, ident_off, ident_len, "ident");
    if (!s) return err(fmt::format("{}: {}", where, s.error().message));
    e.ident = std::move(s.value());
  }

  const bool lz4 = (e.flags & kFlagLz4) != 0;
  const bool zstd = (e.flags & kFlagZstd) != 0;
  if (lz4 && zstd) return err(fmt::format("{}: both LZ4 and zstd compression flags set", where));
  e.compression = lz4 ? Compression::Lz4 : zstd ? Compression::Zstd : Compression::None;
  uint64_t stored = e.padded_size;
  if (e.compression != Compression::None) {
    if (e.compressed_size == 0 || e.compressed_size > e.padded_size)
      return err(fmt::format("{}: compressed size {} not within the payload size {}", where, e.compressed_size,
                             e.padded_size));
    stored = e.compressed_size;
  }
  e.payload = bytes.subspan(offset + e.header_size, stored);
  return e;
}

}  // namespace

std::vector<const Entry*> Fatbin::entries() const {
  std::vector<const Entry*> out;
  for (const auto& c : containers)
    for (const auto& e : c.entries) out.push_back(&e);
  return out;
}

Result<Container> parse_container(std::span<const std::byte> bytes) {
  if (bytes.size() < kContainerHeaderSize)
    return err(fmt::format("truncated fatbin container header ({} bytes, need {})", bytes.size(),
                           kContainerHeaderSize));
  const std::byte* h = bytes.data();
  const uint32_t magic = load<uint32_t>(h);
  if (magic != kContainerMagic)
    return err(fmt::format("bad fatbin container magic {:#010x} (expected {:#010x})", magic, kContainerMagic));
  Container c;
  c.version = load<uint16_t>(h + 4);
  c.header_size = load<uint16_t>(h + 6);
  c.fat_size = load<uint64_t>(h + 8);
  if (c.version != 1) return err(fmt::format("unsupported fatbin container version {}", c.version));
  if (c.header_size < kContainerHeaderSize || c.header_size > bytes.size())
    return err(fmt::format("fatbin container header size {} invalid for {} bytes", c.header_size, bytes.size()));
  if (!fits(c.header_size, c.fat_size, bytes.size()))
    return err(fmt::format("fatbin container size {} + {} exceeds the {} bytes available", c.header_size,
                           c.fat_size, bytes.size()));
  const size_t end = c.header_size + c.fat_size;
  size_t pos = c.header_size;
  while (pos < end) {
    auto e = parse_entry(bytes, pos, end);
    if (!e) return e.error();
    // header_size >= 64 guarantees progress; both terms were bounds-checked.
    pos += e->header_size + e->padded_size;
    c.entries.push_back(std::move(e.value()));
  }
  return c;
}

Result<Fatbin> parse_fatbin(std::span<const std::byte> bytes) {
  Fatbin fb;
  size_t pos = 0;
  while (pos < bytes.size()) {
    // Sections align each container; the gap is zero-filled.
    if (bytes[pos] == std::byte{0}) {
      ++pos;
      continue;
    }
    auto c = parse_container(bytes.subspan(pos));
    if (!c) return err(fmt::format("container at offset {}: {}", pos, c.error().message));
    Container& got = c.value();
    got.offset = pos;
    for (auto& e : got.entries) {
      e.offset += pos;
    }
    pos += got.total_size();
    fb.containers.push_back(std::move(got));
  }
  if (fb.containers.empty()) return err("no fatbin container found (empty or all-zero input)");
  return fb;
}

Result<std::string> decompress(const Entry& entry, size_t max_size) {
  const auto& in = entry.payload;
  switch (entry.compression) {
    case Compression::None:
      if (in.size() > max_size) return err(fmt::format("image of {} bytes exceeds the limit {}", in.size(), max_size));
      return std::string(reinterpret_cast<const char*>(in.data()), in.size());
    case Compression::Lz4: {
      // A raw LZ4 block: the output size comes only from the header.
      if (entry.uncompressed_size == 0 || entry.uncompressed_size > max_size ||
          entry.uncompressed_size > static_cast<uint64_t>(INT_MAX) || in.size() > static_cast<size_t>(INT_MAX))
        return err(fmt::format("LZ4 image at offset {}: uncompressed size {} invalid (limit {})", entry.offset,
                               entry.uncompressed_size, max_size));
      std::string out(entry.uncompressed_size, '\0');
      const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()), out.data(),
                                        static_cast<int>(in.size()), static_cast<int>(out.size()));
      if (n < 0) return err(fmt::format("LZ4 image at offset {}: corrupt compressed data", entry.offset));
      out.resize(static_cast<size_t>(n));
      return out;
    }
    case Compression::Zstd: {
      if (entry.uncompressed_size == 0 || entry.uncompressed_size > max_size)
        return err(fmt::format("zstd image at offset {}: uncompressed size {} invalid (limit {})", entry.offset,
                               entry.uncompressed_size, max_size));
      std::string out(entry.uncompressed_size, '\0');
      const size_t n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
      if (ZSTD_isError(n))
        return err(fmt::format("zstd image at offset {}: {}", entry.offset, ZSTD_getErrorName(n)));
      out.resize(n);
      return out;
    }
  }
  return err("unknown compression");
}

Result<std::string> ptx_text(const Entry& entry, size_t max_size) {
  if (!entry.is_ptx())
    return err(fmt::format("entry at offset {} is {} sm_{}, not PTX", entry.offset, kind_name(entry.kind), entry.arch));
  auto raw = decompress(entry, max_size);
  if (!raw) return raw;
  std::string& s = raw.value();
  if (auto nul = s.find('\0'); nul != std::string::npos) s.resize(nul);
  return raw;
}

std::string describe(const Fatbin& fatbin) {
  std::string out;
  for (const Entry* e : fatbin.entries()) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}_{}{}", kind_name(e->kind), e->is_ptx() ? "compute" : "sm", e->arch,
                       e->arch_specific() ? "a" : "");
    if (e->compression == Compression::Lz4) out += " (lz4)";
    if (e->compression == Compression::Zstd) out += " (zstd)";
  }
  return out.empty() ? "no images" : out;
}

Result<SelectedPtx> select_ptx(const Fatbin& fatbin, uint32_t compute_capability, size_t max_size) {
  const Entry* best = nullptr;
  for (const Entry* e : fatbin.entries()) {
    if (!e->is_ptx() || e->arch > compute_capability) continue;
    if (e->arch_specific() && e->arch != compute_capability) continue;
    if (best == nullptr || e->arch > best->arch || (e->arch == best->arch && best->arch_specific() && !e->arch_specific()))
      best = e;
  }
  if (best == nullptr) {
    Error e = err(fmt::format("no PTX image usable on compute capability {}.{}: the binary contains {}",
                              compute_capability / 10, compute_capability % 10, describe(fatbin)));
    e.no_match = true;
    return e;
  }
  auto text = ptx_text(*best, max_size);
  if (!text) return err(fmt::format("PTX compute_{}: {}", best->arch, text.error().message));
  return SelectedPtx{best, best->arch, std::move(text.value())};
}

namespace {

// The container at `p` from trusted process memory: its size comes from its
// own header, which is checked against the limit before reading further.
Result<Fatbin> parse_fatbin_at(const std::byte* p, const WrapperLimits& limits) {
  if (p == nullptr) return err("null fatbin pointer");
  const uint32_t magic = load<uint32_t>(p);
  if (magic != kContainerMagic)
    return err(fmt::format("bad fatbin container magic {:#010x} (expected {:#010x})", magic, kContainerMagic));
  const uint64_t header = load<uint16_t>(p + 6);
  const uint64_t fat = load<uint64_t>(p + 8);
  if (header < kContainerHeaderSize || fat > limits.max_fatbin_size || header + fat > limits.max_fatbin_size)
    return err(fmt::format("fatbin container size {} + {} invalid (limit {})", header, fat, limits.max_fatbin_size));
  auto c = parse_container(std::span(p, header + fat));
  if (!c) return c.error();
  Fatbin fb;
  fb.containers.push_back(std::move(c.value()));
  return fb;
}

}  // namespace

Result<Wrapper> parse_wrapper(const void* wrapper, const WrapperLimits& limits) {
  if (wrapper == nullptr) return err("null fatbin wrapper");
  const auto* w = static_cast<const std::byte*>(wrapper);
  Wrapper out;
  out.magic = load<uint32_t>(w);
  out.version = load<uint32_t>(w + 4);
  out.data = load<const std::byte*>(w + 8);
  out.filename_or_fatbins = load<const void*>(w + 16);
  if (out.magic != kWrapperMagic)
    return err(fmt::format("bad fatbin wrapper magic {:#010x} (expected {:#010x})", out.magic, kWrapperMagic));
  if (out.version != 1 && out.version != 2)
    return err(fmt::format("unsupported fatbin wrapper version {}", out.version));
  auto fb = parse_fatbin_at(out.data, limits);
  if (!fb) return err(fmt::format("wrapper data: {}", fb.error().message));
  out.fatbin = std::move(fb.value());
  // Version 2 (-rdc): a NULL-terminated array of the per-object fatbins.
  if (out.version == 2 && out.filename_or_fatbins != nullptr) {
    const auto* list = static_cast<const std::byte*>(out.filename_or_fatbins);
    for (size_t i = 0;; ++i) {
      if (i == limits.max_prelinked)
        return err(fmt::format("prelinked fatbin list longer than {} entries", limits.max_prelinked));
      const auto* p = load<const std::byte*>(list + i * sizeof(void*));
      if (p == nullptr) break;
      auto pre = parse_fatbin_at(p, limits);
      if (!pre) return err(fmt::format("prelinked fatbin {}: {}", i, pre.error().message));
      out.prelinked.push_back(std::move(pre.value()));
    }
  }
  return out;
}

}  // namespace warpsim::fatbin
