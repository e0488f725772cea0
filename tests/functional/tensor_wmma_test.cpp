// Tensor-core instructions, part 2 (functional/exec_wmma.cpp): wmma.load /
// wmma.mma / wmma.store for every shape and type <mma.h> emits, with both
// memory layouts, explicit and default strides, global / shared / generic
// addresses; element-wise work on fragments; .satfinite; faults; and every
// kernel of the nvcc corpus tests/ptx/gen/tensor.*.ptx against a host GEMM.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/functional/tensor_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes
using namespace tensor_testing;

// ---- hand-written wmma kernels ---------------------------------------------------------

struct WmmaCase {
  const char* name;
  uint32_t m, n, k;
  std::string at, bt, ct, dt;
  bool a_row, b_row, c_row, d_row;
  uint32_t lda = 0, ldb = 0, ldc = 0, ldd = 0;  // 0: no stride operand (the default)
  bool satfinite = false;
};

uint32_t per_reg(const std::string& t) {
  return t == "f16" || t == "bf16" ? 2 : t == "s8" || t == "u8" ? 4 : 1;
}
// nvcc's fragment sizes: f16 A/B 8 registers, the rest rows * cols / 32 elements.
uint32_t frag_regs(const std::string& t, uint32_t rows, uint32_t cols, bool ab) {
  return t == "f16" && ab ? 8 : rows * cols / 32 / per_reg(t);
}
uint32_t default_ld(bool row, uint32_t rows, uint32_t cols) { return row ? cols : rows; }

// load a, b, c; mma; store d. `pre_mma` runs between the loads and the mma.
std::string wmma_kernel(const WmmaCase& w, const std::string& pre_mma = "") {
  const std::string shape = "m" + std::to_string(w.m) + "n" + std::to_string(w.n) + "k" + std::to_string(w.k);
  uint32_t next_r = 1, next_f = 1, next_fd = 1;
  auto regs = [&](const std::string& t, uint32_t n) {
    std::string s = "{";
    for (uint32_t i = 0; i < n; ++i) {
      s += i ? ", " : "";
      s += t == "f32" ? "%f" + std::to_string(next_f++)
           : t == "f64" ? "%fd" + std::to_string(next_fd++)
                        : "%r" + std::to_string(next_r++);
    }
    return s + "}";
  };
  auto lay = [](bool row) { return row ? "row" : "col"; };
  auto stride = [](uint32_t ld) { return ld ? ", " + std::to_string(ld) : std::string(); };
  // tf32 fragments live in .b32 registers like the corpus's.
  const std::string ra = regs(w.at == "tf32" ? "b32" : w.at, frag_regs(w.at, w.m, w.k, true));
  const std::string rb = regs(w.bt == "tf32" ? "b32" : w.bt, frag_regs(w.bt, w.k, w.n, true));
  const std::string rc = regs(w.ct, frag_regs(w.ct, w.m, w.n, false));
  const std::string rd = regs(w.dt, frag_regs(w.dt, w.m, w.n, false));
  const std::string types = w.at == "f16" ? "." + w.dt + "." + w.ct
                                          : "." + w.dt + "." + w.at + "." + w.bt + "." + w.ct +
                                                (w.at == "f64" ? ".rn" : "") + (w.satfinite ? ".satfinite" : "");
  std::ostringstream s;
  s << ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"
    << "  .reg .b32 %r<64>; .reg .f32 %f<32>; .reg .f64 %fd<8>; .reg .b64 %rd<8>;\n"
    << "  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc]; ld.param.u64 %rd4, [pd];\n"
    << "  wmma.load.a.sync.aligned." << lay(w.a_row) << "." << shape << ".global." << w.at << " " << ra
    << ", [%rd1]" << stride(w.lda) << ";\n"
    << "  wmma.load.b.sync.aligned." << lay(w.b_row) << "." << shape << ".global." << w.bt << " " << rb
    << ", [%rd2]" << stride(w.ldb) << ";\n"
    << "  wmma.load.c.sync.aligned." << lay(w.c_row) << "." << shape << ".global." << w.ct << " " << rc
    << ", [%rd3]" << stride(w.ldc) << ";\n"
    << pre_mma << "  wmma.mma.sync.aligned." << lay(w.a_row) << "." << lay(w.b_row) << "." << shape << types
    << " " << rd << ", " << ra << ", " << rb << ", " << rc << ";\n"
    << "  wmma.store.d.sync.aligned." << lay(w.d_row) << "." << shape << ".global." << w.dt << " [%rd4], " << rd
    << stride(w.ldd) << ";\n  ret;\n}\n";
  return s.str();
}

// Runs a case on A, B, C and returns D.
Mat run_wmma(const WmmaCase& w, const Mat& a, const Mat& b, const Mat& c, const std::string& pre_mma = "") {
  auto l = load(wmma_kernel(w, pre_mma));
  const uint32_t lda = w.lda ? w.lda : default_ld(w.a_row, w.m, w.k);
  const uint32_t ldb = w.ldb ? w.ldb : default_ld(w.b_row, w.k, w.n);
  const uint32_t ldc = w.ldc ? w.ldc : default_ld(w.c_row, w.m, w.n);
  const uint32_t ldd = w.ldd ? w.ldd : default_ld(w.d_row, w.m, w.n);
  const uint64_t da = upload(l->device, store(a, w.at, w.a_row, lda));
  const uint64_t db = upload(l->device, store(b, w.bt, w.b_row, ldb));
  const uint64_t dc = upload(l->device, store(c, w.ct, w.c_row, ldc));
  const size_t d_bytes = size_t{ldd} * (w.d_row ? w.m : w.n) * type_bytes(w.dt);
  const uint64_t dd = upload(l->device, std::vector<uint8_t>(d_bytes, 0xee));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(dd)});
  EXPECT_TRUE(r.ok()) << message(r) << wmma_kernel(w, pre_mma);
  const auto bytes = download<uint8_t>(l->device, dd, d_bytes);
  // Padding between rows/columns is never written.
  for (size_t i = 0; i < bytes.size(); ++i) {
    const size_t e = i / type_bytes(w.dt), minor = e % ldd;
    if (minor >= (w.d_row ? w.n : w.m)) {
      EXPECT_EQ(bytes[i], 0xee) << "padding byte " << i;
    }
  }
  return fetch(bytes, w.m, w.n, w.dt, w.d_row, ldd);
}

const WmmaCase kWmmaCases[] = {
    {"m16n16k16_f16_f32", 16, 16, 16, "f16", "f16", "f32", "f32", true, false, true, true},
    {"m16n16k16_f16_f16acc_strided", 16, 16, 16, "f16", "f16", "f16", "f32", false, true, false, true, 24, 32, 24, 20},
    {"m32n8k16_f16", 32, 8, 16, "f16", "f16", "f32", "f16", true, true, true, false, 0, 0, 0, 40},
    {"m8n32k16_f16", 8, 32, 16, "f16", "f16", "f16", "f16", false, false, true, true},
    {"m16n16k16_bf16", 16, 16, 16, "bf16", "bf16", "f32", "f32", true, false, false, true},
    {"m32n8k16_bf16_strided", 32, 8, 16, "bf16", "bf16", "f32", "f32", true, false, true, true, 24, 24, 16, 16},
    {"m8n32k16_bf16", 8, 32, 16, "bf16", "bf16", "f32", "f32", false, true, true, false},
    {"m16n16k16_s8", 16, 16, 16, "s8", "s8", "s32", "s32", true, false, true, true},
    {"m32n8k16_u8_strided", 32, 8, 16, "u8", "u8", "s32", "s32", false, true, true, false, 48, 16, 16, 40},
    {"m8n32k16_s8", 8, 32, 16, "s8", "s8", "s32", "s32", true, true, false, true},
    {"m16n16k8_tf32", 16, 16, 8, "tf32", "tf32", "f32", "f32", true, false, false, true},
    {"m16n16k8_tf32_colrow", 16, 16, 8, "tf32", "tf32", "f32", "f32", false, true, true, false, 24, 24, 24, 24},
    {"m8n8k4_f64", 8, 8, 4, "f64", "f64", "f64", "f64", true, false, true, true},
    {"m8n8k4_f64_colrow", 8, 8, 4, "f64", "f64", "f64", "f64", false, true, false, false, 8, 8, 8, 16},
};

TEST(TensorWmma, EveryShapeTypeAndLayout) {
  uint32_t seed = 100;
  for (const WmmaCase& w : kWmmaCases) {
    SCOPED_TRACE(w.name);
    seed += 3;
    const Mat a = random_mat(w.m, w.k, w.at, seed), b = random_mat(w.k, w.n, w.bt, seed + 1),
              c = random_mat(w.m, w.n, w.ct, seed + 2);
    expect_equal(run_wmma(w, a, b, c), reference(a, b, c, w.at, w.dt), w.name);
  }
}

// Element-wise work on fragments (what <mma.h> programs do with x[i]):
// every accumulator register incremented, then a fill of the A fragment.
// Any consistent layout gives D = A * B + (C + 7), and with A filled with
// ones, D = column sums of B + C + 7.
TEST(TensorWmma, ElementWiseFragmentOps) {
  const WmmaCase w{"s8", 16, 16, 16, "s8", "s8", "s32", "s32", true, false, true, true};
  std::string inc;
  for (uint32_t i = 5; i < 13; ++i)  // C's registers
    inc += "  add.s32 %r" + std::to_string(i) + ", %r" + std::to_string(i) + ", 7;\n";
  Mat a = random_mat(16, 16, "s8", 7), b = random_mat(16, 16, "s8", 8), c = random_mat(16, 16, "s32", 9);
  Mat c7 = c;
  for (double& x : c7.v) x += 7;
  expect_equal(run_wmma(w, a, b, c, inc), reference(a, b, c7, "s8", "s32"), "increment");
  // fill_fragment(a, 1): both A registers = 0x01010101.
  const std::string fill = "  mov.b32 %r1, 16843009;\n  mov.b32 %r2, 16843009;\n" + inc;
  Mat ones{16, 16, std::vector<double>(256, 1)};
  expect_equal(run_wmma(w, a, b, c, fill), reference(ones, b, c7, "s8", "s32"), "fill");
}

TEST(TensorWmma, SatfiniteClampsS32) {
  WmmaCase w{"satfinite", 16, 16, 16, "s8", "s8", "s32", "s32", true, false, true, true};
  Mat a{16, 16, std::vector<double>(256, -128)}, b{16, 16, std::vector<double>(256, 127)};
  Mat c{16, 16, std::vector<double>(256, INT32_MIN + 5)};
  for (uint32_t j = 0; j < 16; ++j) b.at(0, j) = j % 2 ? 127 : -128;  // some columns stay in range
  for (bool sat : {false, true}) {
    w.satfinite = sat;
    expect_equal(run_wmma(w, a, b, c), reference(a, b, c, "s8", "s32", sat), sat ? "clamped" : "wrapped");
  }
  EXPECT_EQ(reference(a, b, c, "s8", "s32", true).at(0, 1), INT32_MIN);
}

// wmma.load from shared memory (.shared) and through a generic address.
TEST(TensorWmma, SharedAndGenericAddresses) {
  auto l = load(R"(
.visible .entry k(.param .u64 pa, .param .u64 pd)
{
  .reg .b32 %r<32>; .reg .f32 %f<24>; .reg .b64 %rd<8>;
  .shared .align 32 .b8 tile[512];
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pd];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
  mov.u32 %r6, tile;
  shl.b32 %r7, %r1, 4;
  add.u32 %r8, %r6, %r7;
  st.shared.v4.u32 [%r8], {%r2, %r3, %r4, %r5};
  bar.sync 0;
  wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, [%r6];
  cvta.shared.u64 %rd5, tile;
  wmma.load.b.sync.aligned.col.m16n16k16.f16 {%r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25}, [%rd5], 16;
  mov.b32 %f1, 0;
  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, {%r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};
  wmma.store.d.sync.aligned.col.m16n16k16.f32 [%rd2], {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9};
  ret;
}
)");
  // One 16x16 f16 tile used as A (row-major) and as B (column-major): D = T * T^T.
  const Mat t = random_mat(16, 16, "f16", 21);
  Mat tt{16, 16, std::vector<double>(256)};
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < 16; ++c) tt.at(r, c) = t.at(c, r);
  const uint64_t da = upload(l->device, store(t, "f16", true, 16));
  const uint64_t dd = upload(l->device, std::vector<float>(256, -1));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(da), param_bytes(dd)});
  ASSERT_TRUE(r.ok()) << message(r);
  const Mat zero{16, 16, std::vector<double>(256, 0)};
  expect_equal(fetch(download<uint8_t>(l->device, dd, 1024), 16, 16, "f32", false, 16),
               reference(t, tt, zero, "f16", "f32"), "shared/generic");
}

TEST(TensorWmma, FaultsOutOfBoundsAndPartialWarp) {
  const WmmaCase w = kWmmaCases[0];
  auto l = load(wmma_kernel(w), true, strict_memory());
  const uint64_t small = upload(l->device, std::vector<uint8_t>(256));  // A needs 512 bytes
  const uint64_t big = upload(l->device, std::vector<uint8_t>(2048));
  const std::vector<std::vector<uint8_t>> args = {param_bytes(small), param_bytes(big), param_bytes(big),
                                                  param_bytes(big)};
  auto r = run(*l, "k", {1}, {32}, args);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->fault.kind, FaultKind::OutOfBounds);
  EXPECT_NE(r.fault->message.find("wmma.load.a"), std::string::npos) << r.fault->message;
  // A warp of 20 threads: illegal before any memory is touched.
  r = run(*l, "k", {1}, {20}, args);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->fault.kind, FaultKind::IllegalInstruction);
  EXPECT_NE(r.fault->message.find("wmma.load executed by a partial warp"), std::string::npos)
      << r.fault->message;
}

// ---- the nvcc corpus: tests/ptx/gen/tensor.*.ptx --------------------------------------

class TensorCorpus : public ::testing::TestWithParam<const char*> {};

std::string read_corpus(const std::string& variant) {
  std::ifstream f(std::string(WARPSIM_SOURCE_DIR) + "/tests/ptx/gen/tensor." + variant + ".ptx");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs one corpus kernel: `ins` are the inputs' bytes, D has `d` bytes.
std::vector<uint8_t> run_corpus(testing::Loaded& l, const char* kernel,
                                const std::vector<std::vector<uint8_t>>& ins, size_t d) {
  std::vector<std::vector<uint8_t>> args;
  for (const auto& in : ins) args.push_back(param_bytes(upload(l.device, in)));
  const uint64_t dd = upload(l.device, std::vector<uint8_t>(d, 0xee));
  args.push_back(param_bytes(dd));
  auto r = run(l, kernel, {1}, {32}, args);
  EXPECT_TRUE(r.ok()) << kernel << ": " << message(r);
  return download<uint8_t>(l.device, dd, d);
}

TEST_P(TensorCorpus, EveryKernelMatchesHostGemm) {
  const std::string text = read_corpus(GetParam());
  ASSERT_FALSE(text.empty());
  const size_t at = text.find(".target sm_");
  ASSERT_NE(at, std::string::npos);
  const bool sm80 = std::stoi(text.substr(at + 11, 2)) >= 80;  // bf16/tf32/f64 bodies exist
  auto l = load(text, false);
  ASSERT_TRUE(l->program);
  const Mat zero{16, 16, std::vector<double>(256, 0)};
  {
    const Mat a = random_mat(16, 16, "f16", 1), b = random_mat(16, 16, "f16", 2);
    const Mat c = random_mat(16, 16, "f32", 3);
    auto d = run_corpus(*l, "wmma_f16_f32", {store(a, "f16", true, 16), store(b, "f16", false, 16),
                                             store(c, "f32", true, 16)}, 1024);
    expect_equal(fetch(d, 16, 16, "f32", true, 16), reference(a, b, c, "f16", "f32"), "wmma_f16_f32");
  }
  {
    const Mat a = random_mat(16, 16, "f16", 4), b = random_mat(16, 16, "f16", 5);
    auto d = run_corpus(*l, "wmma_f16_f16", {store(a, "f16", true, 16), store(b, "f16", true, 16)}, 512);
    expect_equal(fetch(d, 16, 16, "f16", true, 16), reference(a, b, zero, "f16", "f16"), "wmma_f16_f16");
  }
  {
    const Mat a = random_mat(16, 16, "s8", 6), b = random_mat(16, 16, "s8", 7);
    auto d = run_corpus(*l, "wmma_s8", {store(a, "s8", true, 16), store(b, "s8", false, 16)}, 1024);
    expect_equal(fetch(d, 16, 16, "s32", true, 16), reference(a, b, zero, "s8", "s32"), "wmma_s8");
  }
  const std::vector<uint8_t> untouched(1024, 0xee);
  {
    const Mat a = random_mat(16, 16, "bf16", 8), b = random_mat(16, 16, "bf16", 9);
    auto d = run_corpus(*l, "wmma_bf16", {store(a, "bf16", true, 16), store(b, "bf16", false, 16)}, 1024);
    if (sm80) {
      expect_equal(fetch(d, 16, 16, "f32", true, 16), reference(a, b, zero, "bf16", "f32"), "wmma_bf16");
    } else {
      EXPECT_EQ(d, untouched) << "wmma_bf16 below sm_80 is empty";
    }
  }
  {
    // Arbitrary f32 inputs: the kernel rounds them with cvt.rna.tf32.f32.
    Mat a = random_mat(16, 8, "f32", 10), b = random_mat(8, 16, "f32", 11);
    for (size_t i = 0; i < a.v.size(); ++i) a.v[i] += 1.0 / (3 + static_cast<double>(i));
    for (size_t i = 0; i < b.v.size(); ++i) b.v[i] -= 1.0 / (5 + static_cast<double>(i));
    auto ab = store(a, "f32", true, 8), bb = store(b, "f32", false, 8);
    auto tf32 = [](Mat m) {
      for (double& x : m.v) x = fp::f32_from(fp::f32_to_tf32(fp::f32_bits(static_cast<float>(x))));
      return m;
    };
    auto d = run_corpus(*l, "wmma_tf32", {ab, bb}, 1024);
    if (sm80) {
      expect_equal(fetch(d, 16, 16, "f32", true, 16), reference(tf32(a), tf32(b), zero, "tf32", "f32"),
                   "wmma_tf32");
    } else {
      EXPECT_EQ(d, untouched) << "wmma_tf32 below sm_80 is empty";
    }
  }
  {
    const Mat a = random_mat(8, 4, "f64", 12), b = random_mat(4, 8, "f64", 13);
    const Mat z{8, 8, std::vector<double>(64, 0)};
    auto d = run_corpus(*l, "wmma_f64", {store(a, "f64", true, 4), store(b, "f64", false, 4)}, 512);
    if (sm80) {
      expect_equal(fetch(d, 8, 8, "f64", true, 8), reference(a, b, z, "f64", "f64"), "wmma_f64");
    } else {
      EXPECT_EQ(d, std::vector<uint8_t>(512, 0xee)) << "wmma_f64 below sm_80 is empty";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tensor, TensorCorpus,
                         ::testing::Values("default", "sm75", "sm80", "sm90", "G", "lineinfo"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace warpsim::functional
