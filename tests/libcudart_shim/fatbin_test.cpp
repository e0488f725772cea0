// Fatbin reader tests against real nvcc 13.0 output (data/README.md says how
// each fixture was made), plus truncation and corruption sweeps: the shim
// parses whatever binary it is loaded into, so bad bytes must give errors.
#include "libcudart_shim/fatbin.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace fb = warpsim::fatbin;

namespace {

using Bytes = std::vector<std::byte>;

std::string data_path(const std::string& name) {
  return std::string(WARPSIM_SOURCE_DIR) + "/tests/libcudart_shim/data/" + name;
}

std::string read_text(const std::string& name) {
  std::ifstream in(data_path(name), std::ios::binary);
  EXPECT_TRUE(in) << "missing fixture " << name;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Bytes read_bytes(const std::string& name) {
  const std::string s = read_text(name);
  Bytes b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// What a fixture must contain: (kind, arch, compression), in file order.
using Image = std::tuple<uint16_t, uint32_t, fb::Compression>;
constexpr uint16_t kPtx = 1;
constexpr uint16_t kElf = 2;
constexpr auto kNone = fb::Compression::None;
constexpr auto kLz4 = fb::Compression::Lz4;
constexpr auto kZstd = fb::Compression::Zstd;

struct Fixture {
  const char* file;
  std::vector<Image> images;
};

const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> f = {
      {"ptx75_sm80.fatbin", {{kElf, 80, kNone}, {kPtx, 75, kZstd}}},
      {"ptx75_sm80_all.fatbin", {{kElf, 80, kZstd}, {kPtx, 75, kZstd}}},
      {"ptx80_ptx90.fatbin", {{kPtx, 80, kZstd}, {kPtx, 90, kZstd}}},
      {"ptx80_ptx90_plain.fatbin", {{kPtx, 80, kNone}, {kPtx, 90, kNone}}},
      {"ptx75_ptx86_lz4.fatbin", {{kPtx, 75, kLz4}, {kPtx, 86, kLz4}}},
  };
  return f;
}

// Every binary fixture, for the truncation and corruption sweeps.
const std::vector<std::string>& all_fatbin_files() {
  static const std::vector<std::string> f = {"ptx75_sm80.fatbin",       "ptx75_sm80_all.fatbin",
                                             "ptx80_ptx90.fatbin",      "ptx80_ptx90_plain.fatbin",
                                             "ptx75_ptx86_lz4.fatbin", "exe_ptx75_sm80.nv_fatbin"};
  return f;
}

std::vector<Image> sorted(std::vector<Image> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// PTX as fatbinary stores it has comments stripped and lines re-indented, so
// compare without comments, blank lines and whitespace differences.
std::string normalize_ptx(const std::string& ptx) {
  std::istringstream in(ptx);
  std::string line, out;
  while (std::getline(in, line)) {
    if (auto c = line.find("//"); c != std::string::npos) line.resize(c);
    // Collapse whitespace runs: fatbinary also turns "op \targs" into "op args".
    std::istringstream words(line);
    std::string word, joined;
    while (words >> word) joined += (joined.empty() ? "" : " ") + word;
    if (joined.empty()) continue;
    out += joined;
    out += '\n';
  }
  return out;
}

constexpr size_t kSweepLimit = size_t{1} << 20;

// Drives every consumer of a parse result; used on corrupt inputs where only
// "no crash, no sanitizer report" is checked. Returns whether it parsed.
bool exercise(std::span<const std::byte> bytes) {
  auto parsed = fb::parse_fatbin(bytes);
  if (!parsed) {
    EXPECT_FALSE(parsed.error().message.empty());
    return false;
  }
  for (const fb::Entry* e : parsed->entries()) {
    auto d = fb::decompress(*e, kSweepLimit);
    if (!d) {
      EXPECT_FALSE(d.error().message.empty());
    }
    (void)fb::ptx_text(*e, kSweepLimit);
  }
  for (uint32_t cc : {70u, 75u, 80u, 86u, 90u}) (void)fb::select_ptx(parsed.value(), cc, kSweepLimit);
  EXPECT_FALSE(fb::describe(parsed.value()).empty());
  return true;
}

void put32(Bytes& b, size_t off, uint32_t v) { std::memcpy(b.data() + off, &v, 4); }
void put64(Bytes& b, size_t off, uint64_t v) { std::memcpy(b.data() + off, &v, 8); }

// The __fatBinC_Wrapper_t layout nvcc emits.
struct FakeWrapper {
  uint32_t magic;
  uint32_t version;
  const void* data;
  const void* filename_or_fatbins;
};
static_assert(sizeof(FakeWrapper) == fb::kWrapperSize);

// 8-byte aligned copy, as fatbins are in .nv_fatbin.
std::vector<uint64_t> aligned_copy(const Bytes& b) {
  std::vector<uint64_t> v((b.size() + 7) / 8, 0);
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

TEST(FatbinTest, FixturesParseWithExpectedImages) {
  for (const auto& f : fixtures()) {
    SCOPED_TRACE(f.file);
    const Bytes bytes = read_bytes(f.file);
    auto parsed = fb::parse_fatbin(bytes);
    ASSERT_TRUE(parsed) << parsed.error().message;
    ASSERT_EQ(parsed->containers.size(), 1u);
    const auto& c = parsed->containers[0];
    EXPECT_EQ(c.version, 1);
    EXPECT_EQ(c.header_size, 16);
    EXPECT_EQ(c.total_size(), bytes.size());
    std::vector<Image> got;
    for (const auto& e : c.entries) {
      got.emplace_back(e.kind, e.arch, e.compression);
      EXPECT_EQ(e.version, 0x0101);
      EXPECT_EQ(e.padded_size % 8, 0u);
      EXPECT_NE(e.flags & fb::kFlag64Bit, 0u);
      EXPECT_NE(e.flags & fb::kFlagLinux, 0u);
      EXPECT_FALSE(e.arch_specific());
      EXPECT_TRUE(e.ident.empty());
      EXPECT_TRUE(e.options.empty());
      if (e.is_ptx()) {
        EXPECT_EQ(e.header_size, 80u);  // + the empty options record
        EXPECT_EQ(e.options_offset, 64u);
        EXPECT_EQ(e.major, 9);
        EXPECT_EQ(e.minor, 0);
      } else {
        EXPECT_EQ(e.header_size, 64u);
        EXPECT_EQ(e.major, 1);
        EXPECT_EQ(e.minor, 8);
      }
      if (e.compression == fb::Compression::None) {
        EXPECT_EQ(e.compressed_size, 0u);
        EXPECT_EQ(e.uncompressed_size, 0u);
      } else {
        EXPECT_GT(e.compressed_size, 0u);
        EXPECT_GT(e.uncompressed_size, e.compressed_size);
      }
    }
    EXPECT_EQ(sorted(got), sorted(f.images));
  }
}

TEST(FatbinTest, CompressedPayloadsHaveTheirFormatsSignature) {
  const Bytes bytes = read_bytes("ptx75_sm80_all.fatbin");
  auto parsed = fb::parse_fatbin(bytes);
  ASSERT_TRUE(parsed) << parsed.error().message;
  for (const fb::Entry* e : parsed->entries()) {
    ASSERT_EQ(e->compression, fb::Compression::Zstd);
    ASSERT_GE(e->payload.size(), 4u);
    EXPECT_EQ(std::memcmp(e->payload.data(), "\x28\xb5\x2f\xfd", 4), 0);  // zstd frame magic
    auto d = fb::decompress(*e);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->size(), e->uncompressed_size);
    if (e->is_elf()) {
      EXPECT_EQ(d->substr(0, 4), "\x7f" "ELF");
      auto p = fb::ptx_text(*e);
      EXPECT_FALSE(p);
      EXPECT_NE(p.error().message.find("not PTX"), std::string::npos);
    }
  }
}

TEST(FatbinTest, PtxMatchesNvccPtxOutput) {
  for (const auto& f : fixtures()) {
    SCOPED_TRACE(f.file);
    const Bytes bytes = read_bytes(f.file);
    auto parsed = fb::parse_fatbin(bytes);
    ASSERT_TRUE(parsed) << parsed.error().message;
    for (const fb::Entry* e : parsed->entries()) {
      if (!e->is_ptx()) continue;
      auto text = fb::ptx_text(*e);
      ASSERT_TRUE(text) << text.error().message;
      const std::string arch = std::to_string(e->arch);
      EXPECT_NE(text->find(".target sm_" + arch + "\n"), std::string::npos);
      EXPECT_NE(text->find(".entry _Z5scalePffi("), std::string::npos);
      EXPECT_NE(text->find(".entry _Z3addPKiS0_Pii("), std::string::npos);
      EXPECT_EQ(text->find('\0'), std::string::npos);
      const std::string expected = read_text("kernels_compute_" + arch + ".ptx");
      EXPECT_EQ(normalize_ptx(text.value()), normalize_ptx(expected));
    }
  }
}

TEST(FatbinTest, SelectsHighestPtxNotAboveComputeCapability) {
  struct Case {
    const char* file;
    uint32_t cc;
    uint32_t want;  // 0 = error
  };
  const Case cases[] = {
      {"ptx75_sm80.fatbin", 70, 0},        {"ptx75_sm80.fatbin", 75, 75},
      {"ptx75_sm80.fatbin", 80, 75},       {"ptx75_sm80.fatbin", 86, 75},
      {"ptx75_sm80.fatbin", 90, 75},       {"ptx80_ptx90.fatbin", 75, 0},
      {"ptx80_ptx90.fatbin", 80, 80},      {"ptx80_ptx90.fatbin", 86, 80},
      {"ptx80_ptx90.fatbin", 90, 90},      {"ptx80_ptx90_plain.fatbin", 89, 80},
      {"ptx80_ptx90_plain.fatbin", 90, 90}, {"ptx75_ptx86_lz4.fatbin", 70, 0},
      {"ptx75_ptx86_lz4.fatbin", 75, 75},  {"ptx75_ptx86_lz4.fatbin", 80, 75},
      {"ptx75_ptx86_lz4.fatbin", 86, 86},  {"ptx75_ptx86_lz4.fatbin", 90, 86},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " cc " + std::to_string(c.cc));
    const Bytes bytes = read_bytes(c.file);
    auto parsed = fb::parse_fatbin(bytes);
    ASSERT_TRUE(parsed) << parsed.error().message;
    auto sel = fb::select_ptx(parsed.value(), c.cc);
    if (c.want == 0) {
      ASSERT_FALSE(sel);
      continue;
    }
    ASSERT_TRUE(sel) << sel.error().message;
    EXPECT_EQ(sel->arch, c.want);
    EXPECT_EQ(sel->entry->arch, c.want);
    EXPECT_NE(sel->text.find(".target sm_" + std::to_string(c.want)), std::string::npos);
  }
}

TEST(FatbinTest, SelectionErrorNamesTheContents) {
  const Bytes bytes = read_bytes("ptx75_sm80.fatbin");
  auto parsed = fb::parse_fatbin(bytes);
  ASSERT_TRUE(parsed);
  auto sel = fb::select_ptx(parsed.value(), 70);
  ASSERT_FALSE(sel);
  const std::string& m = sel.error().message;
  EXPECT_NE(m.find("7.0"), std::string::npos) << m;
  EXPECT_NE(m.find("PTX compute_75"), std::string::npos) << m;
  EXPECT_NE(m.find("ELF sm_80"), std::string::npos) << m;
}

// Nothing for the GPU (a rebuild for another architecture helps) and a
// chosen image that cannot be read (corrupt: it would not) are told apart,
// and the second names the image and its offset.
TEST(FatbinTest, SelectionTellsAMissingArchitectureFromDamagedBytes) {
  Bytes bytes = read_bytes("ptx80_ptx90.fatbin");
  auto parsed = fb::parse_fatbin(bytes);
  ASSERT_TRUE(parsed);
  auto none = fb::select_ptx(parsed.value(), 75);
  ASSERT_FALSE(none);
  EXPECT_TRUE(none.error().no_match);
  const fb::Entry* ptx90 = parsed->entries().back();
  ASSERT_EQ(ptx90->arch, 90u);
  ASSERT_EQ(ptx90->compression, fb::Compression::Zstd);
  const size_t offset = ptx90->offset;
  const auto payload = static_cast<size_t>(ptx90->payload.data() - bytes.data());
  bytes[payload] ^= std::byte{0x5a};  // the zstd frame's magic number
  parsed = fb::parse_fatbin(bytes);
  ASSERT_TRUE(parsed) << "the damage is inside a payload, not in a header";
  auto damaged = fb::select_ptx(parsed.value(), 90);
  ASSERT_FALSE(damaged);
  EXPECT_FALSE(damaged.error().no_match);
  const std::string& m = damaged.error().message;
  EXPECT_NE(m.find(fmt::format("PTX compute_90: zstd image at offset {}:", offset)), std::string::npos) << m;
  // The other image still reads: only the chosen one is damaged.
  EXPECT_TRUE(fb::select_ptx(parsed.value(), 86));
}

TEST(FatbinTest, ArchSpecificPtxOnlyMatchesItsExactCapability) {
  Bytes bytes = read_bytes("ptx80_ptx90_plain.fatbin");
  auto parsed = fb::parse_fatbin(bytes);
  ASSERT_TRUE(parsed);
  // Mark the compute_90 image as compute_90a.
  const fb::Entry* e90 = nullptr;
  for (const fb::Entry* e : parsed->entries())
    if (e->arch == 90) e90 = e;
  ASSERT_NE(e90, nullptr);
  put64(bytes, e90->offset + 40, e90->flags | fb::kFlagArchSpecific);
  auto marked = fb::parse_fatbin(bytes);
  ASSERT_TRUE(marked) << marked.error().message;
  auto at90 = fb::select_ptx(marked.value(), 90);
  ASSERT_TRUE(at90);
  EXPECT_EQ(at90->arch, 90u);
  auto at100 = fb::select_ptx(marked.value(), 100);
  ASSERT_TRUE(at100);
  EXPECT_EQ(at100->arch, 80u);
  EXPECT_NE(fb::describe(marked.value()).find("compute_90a"), std::string::npos);
}

TEST(FatbinTest, ContainersBackToBackWithPadding) {
  Bytes a = read_bytes("ptx75_sm80.fatbin");
  const Bytes b = read_bytes("ptx80_ptx90.fatbin");
  const size_t a_size = a.size();
  a.resize(a.size() + 8);  // zero alignment gap
  a.insert(a.end(), b.begin(), b.end());
  a.resize(a.size() + 16);  // trailing section padding
  auto parsed = fb::parse_fatbin(a);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->containers.size(), 2u);
  EXPECT_EQ(parsed->containers[0].offset, 0u);
  EXPECT_EQ(parsed->containers[1].offset, a_size + 8);
  EXPECT_EQ(parsed->entries().size(), 4u);
  for (const fb::Entry* e : parsed->entries()) {
    if (!e->is_ptx()) continue;
    auto t = fb::ptx_text(*e);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_NE(t->find(".target sm_" + std::to_string(e->arch)), std::string::npos);
  }
  auto sel = fb::select_ptx(parsed.value(), 86);
  ASSERT_TRUE(sel);
  EXPECT_EQ(sel->arch, 80u);
}

TEST(FatbinTest, RejectsMalformedHeaders) {
  const Bytes good = read_bytes("ptx80_ptx90_plain.fatbin");
  auto expect_error = [](const Bytes& b, const std::string& needle) {
    auto r = fb::parse_fatbin(b);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
  };
  expect_error({}, "no fatbin container");
  expect_error(Bytes(64, std::byte{0}), "no fatbin container");
  Bytes b = good;
  put32(b, 0, 0x12345678);
  expect_error(b, "magic");
  b = good;
  put64(b, 8, good.size());  // fat size larger than the data
  expect_error(b, "exceeds");
  b = good;
  b[16] = std::byte{7};  // first entry kind
  expect_error(b, "unknown kind 7");
  b = good;
  put32(b, 16 + 4, 32);  // entry header size below 64
  expect_error(b, "header size");
  b = good;
  put64(b, 16 + 8, uint64_t{1} << 62);  // payload size
  expect_error(b, "payload size");
  b = good;
  put64(b, 16 + 40, fb::kFlagLz4 | fb::kFlagZstd);
  expect_error(b, "both");
  b = good;
  put64(b, 16 + 40, fb::kFlagZstd);
  put32(b, 16 + 16, 0xFFFFFFFF);  // compressed size > padded size
  expect_error(b, "compressed size");
  b = good;
  put32(b, 16 + 20, 78);  // options record straddles the header end
  expect_error(b, "options");
  b = good;
  put32(b, 16 + 32, 70);
  put32(b, 16 + 36, 100);  // ident past the header
  expect_error(b, "ident");
  b = good;
  b.resize(40);
  expect_error(b, "exceeds");
}

TEST(FatbinTest, DecompressionRespectsSizeLimit) {
  const Bytes bytes = read_bytes("ptx75_ptx86_lz4.fatbin");
  auto parsed = fb::parse_fatbin(bytes);
  ASSERT_TRUE(parsed);
  const fb::Entry* e = parsed->entries().front();
  auto small = fb::decompress(*e, e->uncompressed_size - 1);
  ASSERT_FALSE(small);
  EXPECT_NE(small.error().message.find("limit"), std::string::npos);
  auto full = fb::decompress(*e, e->uncompressed_size);
  ASSERT_TRUE(full) << full.error().message;
  // A lying uncompressed size is caught by the decoder, not overrun.
  fb::Entry lying = *e;
  lying.uncompressed_size = e->uncompressed_size / 2;
  EXPECT_FALSE(fb::decompress(lying));
}

TEST(FatbinTest, WrapperVersion1) {
  const auto data = aligned_copy(read_bytes("ptx75_sm80.fatbin"));
  const FakeWrapper w{fb::kWrapperMagic, 1, data.data(), nullptr};
  auto parsed = fb::parse_wrapper(&w);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->version, 1u);
  EXPECT_EQ(parsed->data, reinterpret_cast<const std::byte*>(data.data()));
  EXPECT_TRUE(parsed->prelinked.empty());
  EXPECT_EQ(parsed->fatbin.entries().size(), 2u);
  auto sel = fb::select_ptx(parsed->fatbin, 80);
  ASSERT_TRUE(sel) << sel.error().message;
  EXPECT_EQ(sel->arch, 75u);
}

TEST(FatbinTest, WrapperVersion2WithPrelinkedList) {
  const auto linked = aligned_copy(read_bytes("ptx75_sm80.fatbin"));
  const auto obj1 = aligned_copy(read_bytes("ptx80_ptx90.fatbin"));
  const auto obj2 = aligned_copy(read_bytes("ptx75_ptx86_lz4.fatbin"));
  const void* list[] = {obj1.data(), obj2.data(), nullptr};
  const FakeWrapper w{fb::kWrapperMagic, 2, linked.data(), list};
  auto parsed = fb::parse_wrapper(&w);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->version, 2u);
  ASSERT_EQ(parsed->prelinked.size(), 2u);
  auto s1 = fb::select_ptx(parsed->prelinked[0], 90);
  ASSERT_TRUE(s1) << s1.error().message;
  EXPECT_EQ(s1->arch, 90u);
  auto s2 = fb::select_ptx(parsed->prelinked[1], 90);
  ASSERT_TRUE(s2) << s2.error().message;
  EXPECT_EQ(s2->arch, 86u);

  fb::WrapperLimits limits;
  limits.max_prelinked = 1;
  EXPECT_FALSE(fb::parse_wrapper(&w, limits));
}

TEST(FatbinTest, WrapperErrors) {
  const auto data = aligned_copy(read_bytes("ptx75_sm80.fatbin"));
  EXPECT_FALSE(fb::parse_wrapper(nullptr));
  const FakeWrapper bad_magic{0x1234, 1, data.data(), nullptr};
  EXPECT_NE(fb::parse_wrapper(&bad_magic).error().message.find("magic"), std::string::npos);
  const FakeWrapper bad_version{fb::kWrapperMagic, 3, data.data(), nullptr};
  EXPECT_NE(fb::parse_wrapper(&bad_version).error().message.find("version 3"), std::string::npos);
  const FakeWrapper null_data{fb::kWrapperMagic, 1, nullptr, nullptr};
  EXPECT_FALSE(fb::parse_wrapper(&null_data));
  const FakeWrapper good{fb::kWrapperMagic, 1, data.data(), nullptr};
  fb::WrapperLimits limits;
  limits.max_fatbin_size = 100;  // smaller than the container
  EXPECT_FALSE(fb::parse_wrapper(&good, limits));
}

// A real executable's .nv_fatbin section (dlink container + object
// container) and the two wrapper records of its .nvFatBinSegment, whose data
// pointers are virtual addresses; the section was at this address.
constexpr uint64_t kExeFatbinSectionAddr = 0x2028;

TEST(FatbinTest, ExecutableSectionHoldsTwoContainers) {
  const Bytes section = read_bytes("exe_ptx75_sm80.nv_fatbin");
  auto parsed = fb::parse_fatbin(section);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->containers.size(), 2u);
  // Container 0 is nvlink's (ELF only); container 1 the object's.
  ASSERT_EQ(parsed->containers[0].entries.size(), 1u);
  EXPECT_TRUE(parsed->containers[0].entries[0].is_elf());
  EXPECT_EQ(parsed->containers[0].entries[0].arch, 80u);
  std::vector<Image> got;
  for (const auto& e : parsed->containers[1].entries) got.emplace_back(e.kind, e.arch, e.compression);
  EXPECT_EQ(sorted(got), sorted({{kElf, 80, kNone}, {kPtx, 75, kZstd}}));
  auto sel = fb::select_ptx(parsed.value(), 86);
  ASSERT_TRUE(sel) << sel.error().message;
  EXPECT_EQ(normalize_ptx(sel->text), normalize_ptx(read_text("kernels_compute_75.ptx")));
}

TEST(FatbinTest, ExecutableWrapperRecords) {
  const Bytes section = read_bytes("exe_ptx75_sm80.nv_fatbin");
  const Bytes segment = read_bytes("exe_ptx75_sm80.nvFatBinSegment");
  ASSERT_EQ(segment.size(), 2 * fb::kWrapperSize);
  const auto image = aligned_copy(section);
  const auto* base = reinterpret_cast<const std::byte*>(image.data());
  const void* empty_list[] = {nullptr};  // filename_or_fatbins of the dlink record is outside the fixture
  std::vector<uint32_t> versions;
  for (size_t i = 0; i < 2; ++i) {
    FakeWrapper w;
    std::memcpy(&w, segment.data() + i * fb::kWrapperSize, sizeof w);
    EXPECT_EQ(w.magic, fb::kWrapperMagic);
    const uint64_t va = reinterpret_cast<uintptr_t>(w.data);
    ASSERT_GE(va, kExeFatbinSectionAddr);
    ASSERT_LT(va - kExeFatbinSectionAddr, section.size());
    w.data = base + (va - kExeFatbinSectionAddr);
    if (w.filename_or_fatbins != nullptr) w.filename_or_fatbins = empty_list;
    auto parsed = fb::parse_wrapper(&w);
    ASSERT_TRUE(parsed) << parsed.error().message;
    versions.push_back(parsed->version);
    EXPECT_TRUE(parsed->prelinked.empty());
    if (parsed->version == 1) {
      auto sel = fb::select_ptx(parsed->fatbin, 80);
      ASSERT_TRUE(sel) << sel.error().message;
      EXPECT_EQ(sel->arch, 75u);
    }
  }
  // Whole-program mode: a version-2 dlink record, then the object's version 1.
  EXPECT_EQ(versions, (std::vector<uint32_t>{2, 1}));
}

TEST(FatbinTest, EveryTruncationIsHandled) {
  for (const auto& file : all_fatbin_files()) {
    SCOPED_TRACE(file);
    const Bytes bytes = read_bytes(file);
    auto full = fb::parse_fatbin(bytes);
    ASSERT_TRUE(full);
    std::vector<size_t> ends;
    for (const auto& c : full->containers) ends.push_back(c.offset + c.total_size());
    for (size_t len = 0; len < bytes.size(); ++len) {
      // An exact-size heap copy so that ASan sees any over-read.
      const Bytes prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len));
      auto r = fb::parse_fatbin(prefix);
      // Only a prefix ending exactly at a container end is complete.
      if (r) {
        EXPECT_EQ(std::count(ends.begin(), ends.end(), len), 1) << "prefix " << len;
      }
      exercise(prefix);
    }
  }
}

TEST(FatbinTest, RandomCorruptionIsHandled) {
  std::mt19937 rng(20261123);
  for (const auto& file : all_fatbin_files()) {
    SCOPED_TRACE(file);
    const Bytes bytes = read_bytes(file);
    std::uniform_int_distribution<size_t> pos(0, bytes.size() - 1);
    std::uniform_int_distribution<int> flips(1, 4), bit(1, 255);
    int parsed = 0;
    for (int i = 0; i < 400; ++i) {
      Bytes b = bytes;
      for (int n = flips(rng); n > 0; --n) b[pos(rng)] ^= static_cast<std::byte>(bit(rng));
      parsed += exercise(b) ? 1 : 0;
    }
    // Most flips hit payloads: the decoders must see corrupt data too.
    EXPECT_GT(parsed, 100);
  }
}

TEST(FatbinTest, ExtremeHeaderFieldValuesAreHandled) {
  for (const auto& file : all_fatbin_files()) {
    SCOPED_TRACE(file);
    const Bytes bytes = read_bytes(file);
    auto parsed = fb::parse_fatbin(bytes);
    ASSERT_TRUE(parsed);
    std::vector<size_t> header_starts = {0};
    for (const fb::Entry* e : parsed->entries()) header_starts.push_back(e->offset);
    for (size_t start : header_starts) {
      for (size_t off = 0; off + 4 <= 80 && start + off + 4 <= bytes.size(); off += 2) {
        for (uint32_t v : {0u, 1u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x80u}) {
          Bytes b = bytes;
          put32(b, start + off, v);
          exercise(b);
        }
      }
    }
  }
}

}  // namespace
