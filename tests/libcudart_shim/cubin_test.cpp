// Cubin metadata reader tests against real nvcc 13.0 / 11.8 output (fixtures
// and the ptxas / nvlink -v output they were checked against:
// data/README.md, "Cubin fixtures"), plus truncation, corruption and
// extreme-value sweeps: the shim reads whatever binary it is loaded into.
#include "libcudart_shim/cubin.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "libcudart_shim/fatbin.h"

namespace fb = warpsim::fatbin;

namespace {

using Bytes = std::vector<std::byte>;

std::string data_path(const std::string& name) {
  return std::string(WARPSIM_SOURCE_DIR) + "/tests/libcudart_shim/data/" + name;
}

Bytes read_bytes(const std::string& name) {
  std::ifstream in(data_path(name), std::ios::binary);
  EXPECT_TRUE(in) << "missing fixture " << name;
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  Bytes b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// The decompressed ELF of the fixture's entry for `arch`.
Bytes elf_image(const std::string& file, uint32_t arch) {
  const Bytes bytes = read_bytes(file);
  auto parsed = fb::parse_fatbin(bytes);
  EXPECT_TRUE(parsed) << file << ": " << parsed.error().message;
  if (!parsed) return {};
  for (const fb::Entry* e : parsed->entries()) {
    if (!e->is_elf() || e->arch != arch) continue;
    auto image = fb::decompress(*e);
    EXPECT_TRUE(image) << image.error().message;
    if (!image) return {};
    Bytes b(image->size());
    std::memcpy(b.data(), image->data(), image->size());
    return b;
  }
  ADD_FAILURE() << file << " has no ELF sm_" << arch;
  return {};
}

fb::CubinInfo read_ok(const Bytes& elf) {
  auto info = fb::read_cubin(elf);
  EXPECT_TRUE(info) << info.error().message;
  return info ? std::move(info.value()) : fb::CubinInfo{};
}

const fb::CubinFunction& function(const fb::CubinInfo& info, const std::string& name) {
  static const fb::CubinFunction missing;
  const fb::CubinFunction* f = fb::find_function(info, name);
  EXPECT_NE(f, nullptr) << "no function " << name;
  return f != nullptr ? *f : missing;
}

// Every (fixture, arch) image.
struct Image {
  const char* file;
  uint32_t arch;
};

const std::vector<Image>& all_images() {
  static const std::vector<Image> v = {
      {"cubin_sm75.fatbin", 75},         {"cubin_sm80.fatbin", 80},          {"cubin_sm90.fatbin", 90},
      {"cubin_sm100.fatbin", 100},       {"cubin_cuda118_sm75.fatbin", 75}, {"cubin_cuda118_sm80.fatbin", 80},
      {"cubin_large_params.fatbin", 80}, {"cubin_large_params.fatbin", 100}, {"cubin_rdc.fatbin", 80},
      {"cubin_rdc.fatbin", 90},          {"cubin_linked.fatbin", 80},        {"cubin_linked.fatbin", 90},
  };
  return v;
}

constexpr uint32_t kNotRecorded = std::numeric_limits<uint32_t>::max();

// One kernel as ptxas -v (or nvlink -v for the linked images) reported it.
struct KernelExpect {
  const char* name;
  uint32_t registers;  // "Used N registers" / nvlink "used N registers"
  uint32_t barriers;   // "used N barriers" (CUDA 11.8 ptxas does not print it; see Fixture::note)
  uint32_t frame;      // "N bytes stack frame"
  uint32_t stack;      // "N bytes cumulative stack size" (0 when not printed) / nvlink "N stack"
  uint64_t smem;       // "N bytes smem" (0 when not printed)
  uint64_t cmem;       // "N bytes cmem[0]"
};

struct Fixture {
  const char* file;
  uint32_t arch;
  uint16_t elf_type;
  std::vector<KernelExpect> kernels;
};

// Values not printed by the tool that produced the image are marked in
// data/README.md with where the expectation comes from instead.
const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> f = {
      {"cubin_sm75.fatbin",
       75,
       2,
       {
           {"_Z14named_barriersPf", 12, 6, 0, 0, 0, 360},
           {"_Z9grid_syncPii", 12, 1, 0, 0, 0, 364},
           {"_Z8pressurePKfPf", 24, 0, 80, 80, 0, 368},
           {"_Z10call_chainPfi", 36, 0, 128, 128, 0, 364},
           {"_Z10dyn_sharedPf", 10, 1, 0, 0, 0, 360},
           {"_Z8tile_sumPKfPf", 12, 1, 0, 0, 1024, 368},
           {"params", 9, 0, 0, 0, 0, 388},
       }},
      {"cubin_sm80.fatbin",
       80,
       2,
       {
           {"_Z14named_barriersPf", 12, 6, 0, 0, 0, 360},
           {"_Z9grid_syncPii", 16, 1, 0, 0, 0, 364},
           {"_Z8pressurePKfPf", 24, 0, 80, 80, 0, 368},
           {"_Z10call_chainPfi", 31, 0, 128, 128, 0, 364},
           {"_Z10dyn_sharedPf", 10, 1, 0, 0, 0, 360},
           {"_Z8tile_sumPKfPf", 12, 1, 0, 0, 1024, 368},
           {"params", 9, 0, 0, 0, 0, 388},
       }},
      // CUDA 13 ptxas prints no cmem[0] for sm_90+: the sm_90 sizes are the
      // ones nvlink -v printed for the linked sm_90 image (same kernels).
      {"cubin_sm90.fatbin",
       90,
       2,
       {
           {"_Z11fixed_blockPf", 8, 0, 0, 0, 0, 536},
           {"_Z12cluster_rankPf", 10, 0, 0, 0, 0, 536},
           {"_Z9clusteredPf", 10, 0, 0, 0, 0, 536},
           {"_Z14named_barriersPf", 12, 6, 0, 0, 0, 536},
           {"_Z9grid_syncPii", 14, 1, 0, 0, 0, 540},
           {"_Z8pressurePKfPf", 24, 0, 80, 80, 0, 544},
           {"_Z10call_chainPfi", 31, 0, 128, 128, 0, 540},
           {"_Z10dyn_sharedPf", 10, 1, 0, 0, 0, 536},
           {"_Z8tile_sumPKfPf", 12, 1, 0, 0, 1024, 544},
           {"params", 14, 0, 0, 0, 0, 564},
       }},
      // cmem[0] for sm_100: readelf section sizes (no tool prints it).
      {"cubin_sm100.fatbin",
       100,
       2,
       {
           {"_Z11fixed_blockPf", 8, 0, 0, 0, 0, 904},
           {"_Z12cluster_rankPf", 10, 0, 0, 0, 0, 904},
           {"_Z9clusteredPf", 10, 0, 0, 0, 0, 904},
           {"_Z14named_barriersPf", 12, 6, 0, 0, 0, 904},
           {"_Z9grid_syncPii", 16, 1, 0, 0, 0, 908},
           {"_Z8pressurePKfPf", 24, 0, 80, 80, 0, 912},
           {"_Z10call_chainPfi", 32, 0, 128, 128, 0, 908},
           {"_Z10dyn_sharedPf", 10, 1, 0, 0, 0, 904},
           {"_Z8tile_sumPKfPf", 11, 1, 0, 0, 1024, 912},
           {"params", 14, 0, 0, 0, 0, 932},
       }},
      // CUDA 11.8 ptxas prints neither barriers nor cumulative stack: the
      // barrier counts are CUDA 13's for the same source, the stack equals
      // the frame (no separate callee frames after inlining the chain).
      {"cubin_cuda118_sm75.fatbin",
       75,
       2,
       {
           {"_Z14named_barriersPf", 12, 6, 0, 0, 0, 360},
           {"_Z9grid_syncPii", 12, 1, 0, 0, 0, 364},
           {"_Z8pressurePKfPf", 24, 0, 80, 80, 0, 368},
           {"_Z10call_chainPfi", 24, 0, 128, 128, 0, 364},
           {"_Z10dyn_sharedPf", 10, 1, 0, 0, 0, 360},
           {"_Z8tile_sumPKfPf", 12, 1, 0, 0, 1024, 368},
           {"params", 9, 0, 0, 0, 0, 388},
       }},
      {"cubin_cuda118_sm80.fatbin",
       80,
       2,
       {
           {"_Z14named_barriersPf", 12, 6, 0, 0, 0, 360},
           {"_Z9grid_syncPii", 16, 1, 0, 0, 0, 364},
           {"_Z8pressurePKfPf", 24, 0, 80, 80, 0, 368},
           {"_Z10call_chainPfi", 24, 0, 128, 128, 0, 364},
           {"_Z10dyn_sharedPf", 10, 1, 0, 0, 0, 360},
           {"_Z8tile_sumPKfPf", 12, 1, 0, 0, 1024, 368},
           {"params", 9, 0, 0, 0, 0, 388},
       }},
      {"cubin_large_params.fatbin", 80, 2, {{"_Z12large_params5LargePKfc6TriplePi", 11, 0, 0, 0, 0, 26816}}},
      {"cubin_large_params.fatbin", 100, 2, {{"_Z12large_params5LargePKfc6TriplePi", 10, 0, 0, 0, 0, 20928}}},
      // Relocatable objects (-rdc) record no cumulative stack: the call
      // graph is only known after nvlink.
      {"cubin_rdc.fatbin",
       80,
       1,
       {
           {"_Z14named_barriersPf", 12, 6, 0, kNotRecorded, 0, 360},
           {"_Z9grid_syncPii", 26, 1, 0, kNotRecorded, 0, 364},
           {"_Z8pressurePKfPf", 24, 0, 80, kNotRecorded, 0, 368},
           {"_Z10call_chainPfi", 31, 0, 64, kNotRecorded, 0, 364},
           {"_Z10dyn_sharedPf", 10, 1, 0, kNotRecorded, 0, 360},
           {"_Z8tile_sumPKfPf", 12, 1, 0, kNotRecorded, 1024, 368},
           {"params", 9, 0, 0, kNotRecorded, 0, 388},
       }},
      {"cubin_rdc.fatbin",
       90,
       1,
       {
           {"_Z11fixed_blockPf", 8, 0, 0, kNotRecorded, 0, 536},
           {"_Z12cluster_rankPf", 10, 0, 0, kNotRecorded, 0, 536},
           {"_Z9clusteredPf", 10, 0, 0, kNotRecorded, 0, 536},
           {"_Z14named_barriersPf", 12, 6, 0, kNotRecorded, 0, 536},
           {"_Z9grid_syncPii", 14, 1, 0, kNotRecorded, 0, 540},
           {"_Z8pressurePKfPf", 24, 0, 80, kNotRecorded, 0, 544},
           {"_Z10call_chainPfi", 31, 0, 64, kNotRecorded, 0, 540},
           {"_Z10dyn_sharedPf", 10, 1, 0, kNotRecorded, 0, 536},
           {"_Z8tile_sumPKfPf", 10, 1, 0, kNotRecorded, 1024, 544},
           {"params", 14, 0, 0, kNotRecorded, 0, 564},
       }},
      // nvlink -v: registers and stack over the call graph (call_chain ->
      // middle -> leaf: 43 registers, 64 + 88 bytes). Frames: ptxas of the
      // rdc objects. smem: nvlink prints the sm_90 section size including
      // the reserved 1 KiB (2048 / 1024); ptxas' value is asserted here.
      {"cubin_linked.fatbin",
       80,
       2,
       {
           {"_Z14named_barriersPf", 12, 6, 0, 0, 0, 360},
           {"_Z9grid_syncPii", 26, 1, 0, 0, 0, 364},
           {"_Z8pressurePKfPf", 24, 0, 80, 80, 0, 368},
           {"_Z10call_chainPfi", 43, 0, 64, 152, 0, 364},
           {"_Z10dyn_sharedPf", 10, 1, 0, 0, 0, 360},
           {"_Z8tile_sumPKfPf", 12, 1, 0, 0, 1024, 368},
           {"params", 9, 0, 0, 0, 0, 388},
       }},
      {"cubin_linked.fatbin",
       90,
       2,
       {
           {"_Z11fixed_blockPf", 8, 0, 0, 0, 0, 536},
           {"_Z12cluster_rankPf", 10, 0, 0, 0, 0, 536},
           {"_Z9clusteredPf", 10, 0, 0, 0, 0, 536},
           {"_Z14named_barriersPf", 12, 6, 0, 0, 0, 536},
           {"_Z9grid_syncPii", 14, 1, 0, 0, 0, 540},
           {"_Z8pressurePKfPf", 24, 0, 80, 80, 0, 544},
           {"_Z10call_chainPfi", 43, 0, 64, 152, 0, 540},
           {"_Z10dyn_sharedPf", 10, 1, 0, 0, 0, 536},
           {"_Z8tile_sumPKfPf", 10, 1, 0, 0, 1024, 544},
           {"params", 14, 0, 0, 0, 0, 564},
       }},
  };
  return f;
}

std::string where(const char* file, uint32_t arch) { return std::string(file) + " sm_" + std::to_string(arch); }

bool is_cuda118(const std::string& file) { return file.find("cuda118") != std::string::npos; }

TEST(CubinTest, KernelResourcesMatchPtxas) {
  for (const auto& fx : fixtures()) {
    SCOPED_TRACE(where(fx.file, fx.arch));
    const auto info = read_ok(elf_image(fx.file, fx.arch));
    EXPECT_EQ(info.arch, fx.arch);
    EXPECT_EQ(info.elf_type, fx.elf_type);
    EXPECT_EQ(info.kernel_count(), fx.kernels.size());
    for (const auto& k : fx.kernels) {
      SCOPED_TRACE(k.name);
      const auto& f = function(info, k.name);
      EXPECT_TRUE(f.is_kernel);
      EXPECT_EQ(f.registers, k.registers);
      EXPECT_EQ(f.barriers, k.barriers);
      EXPECT_EQ(f.frame_bytes, k.frame);
      if (k.stack == kNotRecorded) {
        EXPECT_FALSE(f.min_stack_bytes.has_value());
      } else {
        EXPECT_EQ(f.min_stack_bytes, k.stack);
      }
      EXPECT_EQ(f.shared_bytes, k.smem);
      EXPECT_EQ(f.const0_bytes, k.cmem);
      EXPECT_GT(f.code_bytes, 0u);
      EXPECT_EQ(f.cuda_api_version, is_cuda118(fx.file) ? 118u : 130u);
    }
  }
}

TEST(CubinTest, HeaderArchAndToolkit) {
  struct Case {
    const char* file;
    uint32_t arch;
    uint8_t os_abi;
    uint8_t abi_version;
    uint32_t e_flags;
    std::optional<uint32_t> toolkit;
  };
  const Case cases[] = {
      // CUDA 13: OS ABI 0x41, sm in e_flags bits 8-15, PTX target and
      // toolkit in .note.nv.cuinfo.
      {"cubin_sm75.fatbin", 75, 0x41, 8, 0x06004b04, 130},
      {"cubin_sm80.fatbin", 80, 0x41, 8, 0x06005004, 130},
      {"cubin_sm90.fatbin", 90, 0x41, 8, 0x06005a04, 130},
      {"cubin_sm100.fatbin", 100, 0x41, 8, 0x06006402, 130},
      {"cubin_rdc.fatbin", 90, 0x41, 8, 0x06005a04, 130},
      {"cubin_linked.fatbin", 80, 0x41, 8, 0x06005004, 130},
      // CUDA 11.8: OS ABI 0x33, sm in bits 0-7 and the PTX target in 16-23, no note.
      {"cubin_cuda118_sm75.fatbin", 75, 0x33, 7, 0x004b054b, std::nullopt},
      {"cubin_cuda118_sm80.fatbin", 80, 0x33, 7, 0x00500550, std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(where(c.file, c.arch));
    const auto info = read_ok(elf_image(c.file, c.arch));
    EXPECT_EQ(info.arch, c.arch);
    EXPECT_EQ(info.virtual_arch, c.arch);
    EXPECT_EQ(info.os_abi, c.os_abi);
    EXPECT_EQ(info.abi_version, c.abi_version);
    EXPECT_EQ(info.e_flags, c.e_flags);
    EXPECT_EQ(info.toolkit_version, c.toolkit);
  }
}

TEST(CubinTest, ParameterLayout) {
  // params(float*, double, char, Triple{float x3}, int): the C ABI layout.
  const std::vector<fb::KernelParam> expected = {{0, 0, 8}, {1, 8, 8}, {2, 16, 1}, {3, 20, 12}, {4, 32, 4}};
  for (const auto& img : all_images()) {
    if (std::string(img.file) == "cubin_large_params.fatbin") continue;
    SCOPED_TRACE(where(img.file, img.arch));
    const auto info = read_ok(elf_image(img.file, img.arch));
    const auto& p = function(info, "params");
    EXPECT_EQ(p.params, expected);
    EXPECT_EQ(p.param_bytes, 36u);
    // The parameters start after the driver's part of c[0]: 0x160 up to
    // sm_8x, 0x210 on sm_90, 0x380 on sm_100; cmem[0] = start + size.
    const uint32_t start = img.arch >= 100 ? 0x380 : img.arch >= 90 ? 0x210 : 0x160;
    EXPECT_EQ(p.param_offset, start);
    EXPECT_EQ(p.const0_bytes, start + 36u);
    const auto& t = function(info, "_Z8tile_sumPKfPf");
    EXPECT_EQ(t.params, (std::vector<fb::KernelParam>{{0, 0, 8}, {1, 8, 8}}));
    EXPECT_EQ(t.param_bytes, 16u);
    const auto& g = function(info, "_Z9grid_syncPii");
    EXPECT_EQ(g.params, (std::vector<fb::KernelParam>{{0, 0, 8}, {1, 8, 4}}));
    EXPECT_EQ(g.param_bytes, 12u);
  }
}

TEST(CubinTest, LargeParametersUseKparamInfoV2) {
  // large_params(Large{int[5000]}, const float*, char, Triple, int*).
  const std::vector<fb::KernelParam> expected = {
      {0, 0, 20000}, {1, 20000, 8}, {2, 20008, 1}, {3, 20012, 12}, {4, 20024, 8}};
  for (uint32_t arch : {80u, 100u}) {
    SCOPED_TRACE(arch);
    const auto info = read_ok(elf_image("cubin_large_params.fatbin", arch));
    ASSERT_EQ(info.functions.size(), 1u);
    const auto& f = info.functions[0];
    EXPECT_EQ(f.params, expected);
    EXPECT_EQ(f.param_bytes, 20032u);
    // sm_80 moves the parameters to 0x1a80 when they are this large
    // (ptxas: 26816 bytes cmem[0] = 0x1a80 + 20032).
    EXPECT_EQ(f.param_offset, arch == 80 ? 0x1a80u : 0x380u);
    EXPECT_EQ(f.const0_bytes, *f.param_offset + 20032u);
  }
}

TEST(CubinTest, LaunchBoundsClustersAndRegisterCaps) {
  for (const auto& img : all_images()) {
    if (std::string(img.file) == "cubin_large_params.fatbin") continue;
    SCOPED_TRACE(where(img.file, img.arch));
    const auto info = read_ok(elf_image(img.file, img.arch));
    // Without a cap ptxas records 255; -maxrregcount=24 (the CUDA 11.8
    // build) caps every kernel without launch bounds.
    const uint32_t default_cap = is_cuda118(img.file) ? 24 : 255;
    for (const auto& f : info.functions) {
      if (!f.is_kernel) continue;
      SCOPED_TRACE(f.name);
      if (f.name == "_Z8tile_sumPKfPf") {
        // __launch_bounds__(256, 4): .maxntid 256 and 65536 / (256 * 4) registers.
        // The minimum of 4 blocks is recorded nowhere else.
        EXPECT_EQ(f.max_threads, (fb::Dim3{256, 1, 1}));
        EXPECT_EQ(f.max_registers, 64u);
      } else if (f.name == "_Z12cluster_rankPf") {
        // __launch_bounds__(128, 1, 4): .maxntid and .maxclusterrank.
        EXPECT_EQ(f.max_threads, (fb::Dim3{128, 1, 1}));
        EXPECT_EQ(f.max_cluster_rank, 4u);
        EXPECT_EQ(f.max_registers, 255u);
      } else if (f.name == "_Z8pressurePKfPf") {
        EXPECT_FALSE(f.max_threads.has_value());
        EXPECT_EQ(f.max_registers, 24u);  // __maxnreg__(24) / -maxrregcount=24
      } else {
        EXPECT_FALSE(f.max_threads.has_value());
        EXPECT_EQ(f.max_registers, default_cap);
      }
      if (f.name == "_Z9clusteredPf") {
        EXPECT_EQ(f.cluster_dims, (fb::Dim3{2, 1, 1}));
        EXPECT_TRUE(f.explicit_cluster);
      } else if (f.name == "_Z11fixed_blockPf") {
        // __block_size__((128, 2, 1)): .reqntid, and a 1x1x1 cluster.
        EXPECT_EQ(f.required_threads, (fb::Dim3{128, 2, 1}));
        EXPECT_EQ(f.cluster_dims, (fb::Dim3{1, 1, 1}));
        EXPECT_FALSE(f.explicit_cluster);
      } else {
        EXPECT_FALSE(f.cluster_dims.has_value());
        EXPECT_FALSE(f.explicit_cluster);
      }
      if (f.name != "_Z11fixed_blockPf") {
        EXPECT_FALSE(f.required_threads.has_value());
      }
      if (f.name != "_Z12cluster_rankPf") {
        EXPECT_FALSE(f.max_cluster_rank.has_value());
      }
    }
  }
}

TEST(CubinTest, GridSyncIsRecordedByCuda13Only) {
  for (const auto& img : all_images()) {
    if (std::string(img.file) == "cubin_large_params.fatbin") continue;
    SCOPED_TRACE(where(img.file, img.arch));
    const auto info = read_ok(elf_image(img.file, img.arch));
    for (const auto& f : info.functions) {
      SCOPED_TRACE(f.name);
      // CUDA 11.8 does not emit EIATTR_COOP_GROUP_INSTR_OFFSETS.
      const bool expected = f.name == "_Z9grid_syncPii" && !is_cuda118(img.file);
      EXPECT_EQ(f.uses_grid_sync, expected);
    }
    // The CRS stack is recorded (as 0) for the kernels with a call or a grid sync.
    EXPECT_EQ(function(info, "_Z9grid_syncPii").crs_stack_bytes, 0u);
    EXPECT_FALSE(function(info, "params").crs_stack_bytes.has_value());
  }
}

TEST(CubinTest, SharedMemoryAndTheReservedKilobyte) {
  struct Case {
    const char* file;
    uint32_t arch;
    uint64_t tile_section;  // .nv.shared._Z8tile_sumPKfPf
    uint64_t dyn_section;   // .nv.shared._Z10dyn_sharedPf (extern __shared__ only)
  };
  // Linked (executable) sm_90+ images put the 1 KiB reserved per block at
  // the start of every shared section; relocatable ones and sm_8x do not.
  const Case cases[] = {
      {"cubin_sm75.fatbin", 75, 1024, 0},   {"cubin_sm80.fatbin", 80, 1024, 0},
      {"cubin_sm90.fatbin", 90, 2048, 1024}, {"cubin_sm100.fatbin", 100, 2048, 1024},
      {"cubin_cuda118_sm80.fatbin", 80, 1024, 0}, {"cubin_rdc.fatbin", 90, 1024, 0},
      {"cubin_linked.fatbin", 80, 1024, 0},  {"cubin_linked.fatbin", 90, 2048, 1024},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(where(c.file, c.arch));
    const auto info = read_ok(elf_image(c.file, c.arch));
    const auto& tile = function(info, "_Z8tile_sumPKfPf");
    EXPECT_EQ(tile.shared_section_bytes, c.tile_section);
    EXPECT_EQ(tile.shared_bytes, 1024u);  // float tile[256]
    const auto& dyn = function(info, "_Z10dyn_sharedPf");
    EXPECT_EQ(dyn.shared_section_bytes, c.dyn_section);
    EXPECT_EQ(dyn.shared_bytes, 0u);
  }
}

TEST(CubinTest, DeviceFunctions) {
  // -rdc objects: each non-inlined device function has its own .text section,
  // register count and frame (ptxas: middle 88 bytes stack frame, leaf 0;
  // middle$5 is ptxas' clone of middle).
  for (uint32_t arch : {80u, 90u}) {
    SCOPED_TRACE(arch);
    const auto rdc = read_ok(elf_image("cubin_rdc.fatbin", arch));
    const auto& leaf = function(rdc, "_Z4leafPKfi");
    EXPECT_FALSE(leaf.is_kernel);
    EXPECT_EQ(leaf.registers, 24u);
    EXPECT_EQ(leaf.frame_bytes, 0u);
    const auto& middle = function(rdc, "_Z6middlePKfi");
    EXPECT_FALSE(middle.is_kernel);
    EXPECT_EQ(middle.registers, 46u);
    EXPECT_EQ(middle.frame_bytes, 88u);
    EXPECT_EQ(function(rdc, "_Z6middlePKfi$5").frame_bytes, 88u);
    EXPECT_EQ(function(rdc, "_Z6middlePKfi$5").registers, 43u);
    EXPECT_TRUE(middle.params.empty());
    EXPECT_EQ(middle.shared_bytes, 0u);

    // After nvlink the kernel's registers and stack cover its callees, while
    // its own .text sh_info keeps ptxas' 31 registers (sm_80: CUDA 13 still
    // fills sh_info below sm_90).
    const auto linked = read_ok(elf_image("cubin_linked.fatbin", arch));
    const auto& chain = function(linked, "_Z10call_chainPfi");
    EXPECT_EQ(chain.registers, 43u);
    EXPECT_EQ(chain.frame_bytes, 64u);
    EXPECT_EQ(chain.min_stack_bytes, 152u);
    EXPECT_EQ(fb::find_function(linked, "_Z6middlePKfi"), nullptr);  // only the clone is kept
  }
  // Whole-program builds: ptxas merges the call chain into the kernel's
  // section as local functions "$kernel$function", without register counts.
  for (const auto& img : std::vector<Image>{{"cubin_sm80.fatbin", 80},
                                            {"cubin_sm90.fatbin", 90},
                                            {"cubin_cuda118_sm75.fatbin", 75}}) {
    SCOPED_TRACE(where(img.file, img.arch));
    const auto info = read_ok(elf_image(img.file, img.arch));
    const auto& local = function(info, "$_Z10call_chainPfi$_Z6middlePKfi");
    EXPECT_FALSE(local.is_kernel);
    EXPECT_FALSE(local.registers.has_value());
    EXPECT_EQ(local.section, function(info, "_Z10call_chainPfi").section);
    // ptxas -v says 0 bytes for middle; sm_90+ records the kernel's frame.
    EXPECT_EQ(local.frame_bytes, img.arch >= 90 ? 128u : 0u);
  }
}

TEST(CubinTest, CubinOfTheFatbinFixtures) {
  // kernels.cu's sm_80 ELF from the fatbin tests: scale(float*, float, int),
  // add(const int*, const int*, int*, int).
  const Bytes bytes = read_bytes("ptx75_sm80.fatbin");
  auto parsed = fb::parse_fatbin(bytes);
  ASSERT_TRUE(parsed) << parsed.error().message;
  int elf = 0;
  for (const fb::Entry* e : parsed->entries()) {
    auto info = fb::read_cubin(*e);
    if (e->is_ptx()) {
      ASSERT_FALSE(info);
      EXPECT_NE(info.error().message.find("not an ELF"), std::string::npos) << info.error().message;
      continue;
    }
    ++elf;
    ASSERT_TRUE(info) << info.error().message;
    EXPECT_EQ(info->arch, 80u);
    EXPECT_EQ(info->kernel_count(), 2u);
    EXPECT_EQ(function(info.value(), "_Z5scalePffi").params,
              (std::vector<fb::KernelParam>{{0, 0, 8}, {1, 8, 4}, {2, 12, 4}}));
    EXPECT_EQ(function(info.value(), "_Z3addPKiS0_Pii").param_bytes, 28u);
  }
  EXPECT_EQ(elf, 1);
}

TEST(CubinTest, EntryOverloadChecksTheArch) {
  // Both compressions of ELF entries: zstd (nvcc 13) and LZ4 (nvcc 11.8).
  for (const char* file : {"cubin_sm80.fatbin", "cubin_cuda118_sm80.fatbin"}) {
    SCOPED_TRACE(file);
    Bytes bytes = read_bytes(file);
    auto parsed = fb::parse_fatbin(bytes);
    ASSERT_TRUE(parsed) << parsed.error().message;
    ASSERT_EQ(parsed->entries().size(), 1u);
    const fb::Entry& e = *parsed->entries()[0];
    EXPECT_EQ(e.compression, is_cuda118(file) ? fb::Compression::Lz4 : fb::Compression::Zstd);
    auto info = fb::read_cubin(e);
    ASSERT_TRUE(info) << info.error().message;
    EXPECT_EQ(info->kernel_count(), 7u);
    // An entry claiming another arch than its ELF is rejected.
    const uint32_t other = 86;
    std::memcpy(bytes.data() + e.offset + 28, &other, 4);
    auto patched = fb::parse_fatbin(bytes);
    ASSERT_TRUE(patched);
    auto bad = fb::read_cubin(*patched->entries()[0]);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("sm_86"), std::string::npos) << bad.error().message;
    // A size limit below the image fails in decompression.
    EXPECT_FALSE(fb::read_cubin(e, 1000));
  }
}

TEST(CubinTest, FindAndDescribe) {
  const auto info = read_ok(elf_image("cubin_sm90.fatbin", 90));
  EXPECT_EQ(fb::find_function(info, "no_such_kernel"), nullptr);
  ASSERT_NE(fb::find_function(info, "params"), nullptr);
  const std::string d = fb::describe(info);
  EXPECT_NE(d.find("sm_90 cubin from compute_90, CUDA 13.0, executable (10 kernels, 2 device functions)"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("kernel _Z8tile_sumPKfPf: 12 registers"), std::string::npos) << d;
  EXPECT_NE(d.find("1024 B smem"), std::string::npos) << d;
  EXPECT_NE(d.find("max threads 256x1x1"), std::string::npos) << d;
  EXPECT_NE(d.find("cluster 2x1x1"), std::string::npos) << d;
  EXPECT_NE(d.find("grid sync"), std::string::npos) << d;
  EXPECT_EQ(std::count(d.begin(), d.end(), '\n'), 12);
}

// --- Malformed input -------------------------------------------------------

void put16(Bytes& b, size_t off, uint16_t v) { std::memcpy(b.data() + off, &v, 2); }
void put32(Bytes& b, size_t off, uint32_t v) { std::memcpy(b.data() + off, &v, 4); }
void put64(Bytes& b, size_t off, uint64_t v) { std::memcpy(b.data() + off, &v, 8); }

template <typename T>
T get(const Bytes& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

// Minimal view of a well-formed fixture's section headers, to aim edits.
struct SectionRef {
  size_t header = 0;  // offset of the section header
  uint32_t type = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string name;
};

std::vector<SectionRef> sections_of(const Bytes& elf) {
  std::vector<SectionRef> out;
  const uint64_t shoff = get<uint64_t>(elf, 40);
  const uint16_t shnum = get<uint16_t>(elf, 60);
  const uint16_t shstrndx = get<uint16_t>(elf, 62);
  const uint64_t strings = get<uint64_t>(elf, shoff + shstrndx * 64 + 24);
  for (size_t i = 0; i < shnum; ++i) {
    SectionRef s;
    s.header = shoff + i * 64;
    s.type = get<uint32_t>(elf, s.header + 4);
    s.offset = get<uint64_t>(elf, s.header + 24);
    s.size = get<uint64_t>(elf, s.header + 32);
    s.name = reinterpret_cast<const char*>(elf.data() + strings + get<uint32_t>(elf, s.header));
    out.push_back(s);
  }
  return out;
}

const SectionRef& section_named(const std::vector<SectionRef>& sections, const std::string& name) {
  for (const auto& s : sections)
    if (s.name == name) return s;
  ADD_FAILURE() << "no section " << name;
  return sections.front();
}

void expect_error(const Bytes& b, const std::string& needle) {
  auto r = fb::read_cubin(b);
  ASSERT_FALSE(r) << "expected an error mentioning '" << needle << "'";
  EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
}

TEST(CubinTest, RejectsMalformedImages) {
  const Bytes good = elf_image("cubin_sm80.fatbin", 80);
  const auto sections = sections_of(good);
  expect_error({}, "truncated ELF header");
  expect_error(Bytes(good.begin(), good.begin() + 63), "truncated ELF header");
  Bytes b = good;
  b[0] = std::byte{0};
  expect_error(b, "bad magic");
  b = good;
  b[4] = std::byte{1};
  expect_error(b, "64-bit");
  b = good;
  b[5] = std::byte{2};
  expect_error(b, "little-endian");
  b = good;
  put16(b, 18, 62);  // EM_X86_64
  expect_error(b, "not CUDA");
  b = good;
  b[7] = std::byte{0};
  expect_error(b, "OS ABI");
  b = good;
  put64(b, 40, 0);
  expect_error(b, "no section headers");
  b = good;
  put16(b, 58, 40);
  expect_error(b, "section header size");
  b = good;
  put64(b, 40, good.size() - 10);
  expect_error(b, "section header table");
  b = good;
  put16(b, 60, 0xffff);
  expect_error(b, "section header table");
  b = good;
  put16(b, 62, 0);
  expect_error(b, "section name table index");
  b = good;
  put32(b, section_named(sections, ".shstrtab").header + 4, 1);  // PROGBITS
  expect_error(b, "not STRTAB");
  b = good;
  put32(b, section_named(sections, ".text.params").header, 0xfffffff0);  // name offset
  expect_error(b, "name");
  b = good;
  put64(b, section_named(sections, ".symtab").header + 56, 16);  // entsize
  expect_error(b, "symbol table entry size");
  b = good;
  put64(b, section_named(sections, ".symtab").header + 32, good.size());
  expect_error(b, "symbol table");
  b = good;
  put32(b, section_named(sections, ".symtab").header + 40, 0);  // sh_link
  expect_error(b, "string table");
  b = good;
  put64(b, section_named(sections, ".strtab").header + 24, good.size() - 1);  // strings at the very end
  expect_error(b, "symbol string table");

  // Function symbol name beyond the string table.
  b = good;
  {
    const auto& st = section_named(sections, ".symtab");
    bool patched = false;
    for (uint64_t off = st.offset; off + 24 <= st.offset + st.size && !patched; off += 24) {
      if ((get<uint8_t>(b, off + 4) & 0xf) != 2) continue;
      put32(b, off, 0x7fffffff);
      patched = true;
    }
    ASSERT_TRUE(patched);
    expect_error(b, "string offset");
  }

  // .nv.info entries.
  const auto& params_info = section_named(sections, ".nv.info.params");
  b = good;
  b[params_info.offset] = std::byte{9};  // format
  expect_error(b, "unknown attribute format 9");
  b = good;
  put16(b, params_info.offset + 2, 0xfff0);  // SVAL size
  expect_error(b, "past the section end");
  b = good;
  put64(b, params_info.header + 32, params_info.size + 2);  // a 2-byte tail
  expect_error(b, "truncated attribute");
  // A KPARAM_INFO with the wrong payload size: find one and shrink it to 8
  // bytes; the 4 that follow then read as an entry of format 0.
  b = good;
  {
    bool patched = false;
    for (uint64_t off = params_info.offset; off + 4 <= params_info.offset + params_info.size && !patched;) {
      const auto fmt = get<uint8_t>(b, off);
      const auto attr = get<uint8_t>(b, off + 1);
      const auto len = get<uint16_t>(b, off + 2);
      if (fmt == 4 && attr == 0x17) {
        put16(b, off + 2, 8);
        patched = true;
      }
      off += 4 + (fmt == 4 ? len : 0);
    }
    ASSERT_TRUE(patched);
    expect_error(b, "attribute 0x17");
  }
  // REGCOUNT in the global .nv.info with an HVAL format.
  b = good;
  {
    const auto& global = section_named(sections, ".nv.info");
    ASSERT_EQ(get<uint8_t>(b, global.offset + 1), 0x2f);
    b[global.offset] = std::byte{3};
    expect_error(b, "attribute 0x2f");
  }
  // .nv.constant0 outside the image.
  b = good;
  put64(b, section_named(sections, ".nv.constant0.params").header + 32, uint64_t{1} << 62);
  expect_error(b, ".nv.constant0.params");
}

TEST(CubinTest, ToleratedOddities) {
  const Bytes good = elf_image("cubin_sm90.fatbin", 90);
  const auto sections = sections_of(good);
  // A malformed cuinfo note only loses the PTX target and toolkit version.
  Bytes b = good;
  put32(b, section_named(sections, ".note.nv.cuinfo").offset + 4, 0xffff);  // descsz
  auto info = fb::read_cubin(b);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_FALSE(info->virtual_arch.has_value());
  EXPECT_FALSE(info->toolkit_version.has_value());
  EXPECT_EQ(info->arch, 90u);
  // Attributes naming symbols that are not functions are ignored.
  b = good;
  const auto& global = section_named(sections, ".nv.info");
  ASSERT_EQ(get<uint8_t>(b, global.offset + 1), 0x2f);
  put32(b, global.offset + 4, 0x7fffffff);
  info = fb::read_cubin(b);
  ASSERT_TRUE(info) << info.error().message;
  size_t unrecorded = 0;
  for (const auto& f : info->functions) unrecorded += f.is_kernel && !f.registers ? 1 : 0;
  EXPECT_EQ(unrecorded, 1u);  // sm_90 has no sh_info fallback
  // Extended section numbering: e_shnum 0 and e_shstrndx SHN_XINDEX with
  // the real values in section 0.
  b = good;
  const uint16_t shnum = get<uint16_t>(b, 60);
  const uint16_t shstrndx = get<uint16_t>(b, 62);
  const uint64_t shoff = get<uint64_t>(b, 40);
  put16(b, 60, 0);
  put16(b, 62, 0xffff);
  put64(b, shoff + 32, shnum);
  put32(b, shoff + 40, shstrndx);
  info = fb::read_cubin(b);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->kernel_count(), 10u);
  EXPECT_EQ(function(info.value(), "_Z8tile_sumPKfPf").shared_bytes, 1024u);
}

// `elf` with a new section header table appended: the original headers,
// then `extra` more from `make_extra(i)`. Returns the new image.
template <typename F>
Bytes with_extra_sections(const Bytes& elf, size_t extra, F make_extra) {
  const uint64_t shoff = get<uint64_t>(elf, 40);
  const uint16_t shnum = get<uint16_t>(elf, 60);
  Bytes out = elf;
  out.resize((out.size() + 7) / 8 * 8);
  const uint64_t table = out.size();
  out.insert(out.end(), elf.begin() + static_cast<std::ptrdiff_t>(shoff),
             elf.begin() + static_cast<std::ptrdiff_t>(shoff + shnum * size_t{64}));
  for (size_t i = 0; i < extra; ++i) {
    const Bytes h = make_extra(i);
    out.insert(out.end(), h.begin(), h.end());
  }
  put64(out, 40, table);
  put16(out, 60, static_cast<uint16_t>(shnum + extra));
  return out;
}

Bytes header_copy(const Bytes& elf, const SectionRef& s) {
  return Bytes(elf.begin() + static_cast<std::ptrdiff_t>(s.header),
               elf.begin() + static_cast<std::ptrdiff_t>(s.header + 64));
}

TEST(CubinTest, SharedBytesCannotMultiplyTheWork) {
  const Bytes good = elf_image("cubin_sm80.fatbin", 80);
  const auto sections = sections_of(good);
  // 1000 more headers for the same .nv.info.params bytes: parsing them all
  // would record 5000 more parameters from one 140-byte section.
  const Bytes info = header_copy(good, section_named(sections, ".nv.info.params"));
  Bytes b = with_extra_sections(good, 1000, [&](size_t) { return info; });
  expect_error(b, ".nv.info sections overlap");
  // A few duplicates stay within the budget and are read.
  b = with_extra_sections(good, 3, [&](size_t) { return info; });
  auto r = fb::read_cubin(b);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(function(r.value(), "params").params.size(), 20u);

  // 400 more sections, all named by one 4 KiB string: looking every name up
  // would scan 1.7 MB of a 54 KB image; the scan budget stops it.
  Bytes c = good;
  c.resize((c.size() + 7) / 8 * 8);
  const uint64_t names = c.size();
  c.insert(c.end(), 4096, std::byte{'x'});
  c.push_back(std::byte{0});
  Bytes strtab = header_copy(good, section_named(sections, ".shstrtab"));
  put32(strtab, 0, 0);
  put64(strtab, 24, names);
  put64(strtab, 32, 4097);
  const uint16_t first_new = get<uint16_t>(good, 60);
  c = with_extra_sections(c, 400, [&](size_t) { return strtab; });
  put16(c, 62, first_new);  // the new table names every section
  for (size_t i = 0; i < get<uint16_t>(c, 60); ++i) put32(c, get<uint64_t>(c, 40) + i * 64, 0);
  expect_error(c, "too large to scan");
}

// --- Sweeps ------------------------------------------------------------------

// Drives every consumer of a result; on corrupt input only "no crash, no
// sanitizer report, bounded output" is checked. Returns whether it parsed.
bool exercise(std::span<const std::byte> elf) {
  auto r = fb::read_cubin(elf);
  if (!r) {
    EXPECT_FALSE(r.error().message.empty());
    return false;
  }
  EXPECT_LE(r->functions.size(), elf.size() / 24);
  size_t params = 0;
  for (const auto& f : r->functions) {
    params += f.params.size();
    EXPECT_EQ(fb::find_function(r.value(), f.name) != nullptr, true);
  }
  EXPECT_LE(params, elf.size() / 16);
  EXPECT_FALSE(fb::describe(r.value()).empty());
  return true;
}

TEST(CubinTest, EveryTruncationIsHandled) {
  for (const auto& img : all_images()) {
    SCOPED_TRACE(where(img.file, img.arch));
    const Bytes elf = elf_image(img.file, img.arch);
    ASSERT_TRUE(exercise(elf));
    size_t parsed = 0;
    for (size_t len = 0; len < elf.size(); ++len) {
      // An exact-size heap copy so that ASan sees any over-read.
      const Bytes prefix(elf.begin(), elf.begin() + static_cast<std::ptrdiff_t>(len));
      parsed += exercise(prefix) ? 1 : 0;
    }
    // Only prefixes that keep every section read (cutting the trailing
    // program headers or unread section data) can parse.
    EXPECT_LT(parsed, elf.size() / 4);
  }
}

// Byte ranges holding metadata: ELF header, section header table, symbol
// and string tables, every .nv.info section. Corruption is aimed there half
// of the time; the rest is mostly machine code, which the reader skips.
std::vector<std::pair<size_t, size_t>> metadata_ranges(const Bytes& elf) {
  std::vector<std::pair<size_t, size_t>> out = {{0, 64}};
  const uint64_t shoff = get<uint64_t>(elf, 40);
  out.emplace_back(shoff, get<uint16_t>(elf, 60) * size_t{64});
  for (const auto& s : sections_of(elf)) {
    if (s.type == 8 || s.size == 0) continue;
    if (s.type == 2 || s.type == 3 || s.name.starts_with(".nv.info") || s.name.starts_with(".note"))
      out.emplace_back(s.offset, s.size);
  }
  return out;
}

TEST(CubinTest, RandomCorruptionIsHandled) {
  std::mt19937 rng(20261124);
  for (const auto& img : all_images()) {
    SCOPED_TRACE(where(img.file, img.arch));
    const Bytes elf = elf_image(img.file, img.arch);
    const auto ranges = metadata_ranges(elf);
    std::uniform_int_distribution<size_t> anywhere(0, elf.size() - 1), which(0, ranges.size() - 1);
    std::uniform_int_distribution<int> flips(1, 4), bit(1, 255), coin(0, 1);
    int parsed = 0;
    for (int i = 0; i < 1000; ++i) {
      Bytes b = elf;
      for (int n = flips(rng); n > 0; --n) {
        size_t pos = anywhere(rng);
        if (coin(rng) == 1) {
          const auto& [start, len] = ranges[which(rng)];
          pos = start + std::uniform_int_distribution<size_t>(0, len - 1)(rng);
        }
        b[pos] ^= static_cast<std::byte>(bit(rng));
      }
      parsed += exercise(b) ? 1 : 0;
    }
    // Flips in code or unread sections leave the image readable.
    EXPECT_GT(parsed, 250);
  }
}

TEST(CubinTest, ExtremeFieldValuesAreHandled) {
  const uint64_t values[] = {0, 1, 0x80, 0x7fffffff, 0xffffffff, ~uint64_t{0}};
  for (const auto& img : all_images()) {
    SCOPED_TRACE(where(img.file, img.arch));
    const Bytes elf = elf_image(img.file, img.arch);
    const auto sections = sections_of(elf);
    std::vector<std::pair<size_t, size_t>> fields;  // (offset, width)
    // ELF header: every 2 bytes, as wide as the field there.
    for (size_t off = 0; off + 2 <= 64; off += 2) fields.emplace_back(off, off % 8 == 0 ? 8 : off % 4 == 0 ? 4 : 2);
    for (const auto& s : sections) {
      // Section header: name, type | flags | addr | offset | size | link, info | align | entsize.
      for (size_t off = 0; off < 64; off += 4)
        fields.emplace_back(s.header + off, off % 8 == 0 && off != 0 && off != 40 ? 8 : 4);
      if (s.type == 2) {
        // Symbols: name, info/other, shndx, value, size.
        for (size_t sym = 0; sym + 24 <= s.size; sym += 24)
          for (auto [off, width] : {std::pair<size_t, size_t>{0, 4}, {4, 2}, {6, 2}, {8, 8}, {16, 8}})
            fields.emplace_back(s.offset + sym + off, width);
      }
      if (s.name.starts_with(".nv.info") || s.name == ".note.nv.cuinfo") {
        // Entries are 4-aligned {format, attribute, u16}: every u16 and u32.
        for (size_t off = 0; off + 2 <= s.size; off += 2) fields.emplace_back(s.offset + off, off % 4 == 0 ? 4 : 2);
      }
    }
    Bytes b = elf;  // edited in place and restored: exact size for ASan
    size_t parsed = 0;
    for (const auto& [off, width] : fields) {
      if (off + width > b.size()) continue;
      uint64_t last = 1;  // values truncated to the width repeat; skip those
      for (uint64_t v : values) {
        const uint64_t mask = width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
        if ((v & mask) == last) continue;
        last = v & mask;
        std::memcpy(b.data() + off, &v, width);  // little endian: the low bytes of v
        parsed += exercise(b) ? 1 : 0;
        std::memcpy(b.data() + off, elf.data() + off, width);
      }
    }
    EXPECT_GT(parsed, fields.size());
  }
}

}  // namespace
