// Tensor-core instructions, part 1 (functional/exec_mma.cpp): mma.sync with
// fragments built by hand per the PTX ISA layouts for every shape,
// .satfinite, f16 accumulator rounding, tf32 truncation, the partial-warp
// fault; ldmatrix / stmatrix / movmatrix checked element by element and an
// ldmatrix-fed mma as CUTLASS builds it. wmma: tensor_wmma_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "tests/functional/tensor_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes
using namespace tensor_testing;

// ---- mma.sync with hand-built fragments ------------------------------------------------

// mma.m16n8k16 f16 -> f32. Each lane loads its fragments from global memory
// at addresses computed from groupID g = lane >> 2 and t = lane % 4 exactly
// as the ISA's "Matrix Fragments for mma.m16n8k16" tables say: A row-major
// 16x16 (a0a1 = A[g][2t..2t+1], a2a3 = A[g+8][2t..], a4a5 = A[g][2t+8..],
// a6a7 = A[g+8][2t+8..]), B column-major (b0b1 = B[2t..2t+1][g], b2b3 =
// B[2t+8..][g]), C/D row-major 16x8 (c0c1 = C[g][2t..], c2c3 = C[g+8][2t..]).
const char* kMmaF16F32 = R"(
.visible .entry mma(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
  .reg .b32 %r<20>; .reg .b64 %rd<12>; .reg .f32 %f<10>;
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc]; ld.param.u64 %rd4, [pd];
  mov.u32 %r1, %laneid;
  shr.u32 %r2, %r1, 2;            // g
  and.b32 %r3, %r1, 3;            // t
  shl.b32 %r4, %r3, 1;            // 2t
  shl.b32 %r5, %r2, 4;
  add.u32 %r5, %r5, %r4;          // g * 16 + 2t
  mul.wide.u32 %rd5, %r5, 2;
  add.s64 %rd6, %rd1, %rd5;       // &A[g][2t]
  ld.global.b32 %r10, [%rd6];
  ld.global.b32 %r11, [%rd6+256];
  ld.global.b32 %r12, [%rd6+16];
  ld.global.b32 %r13, [%rd6+272];
  add.s64 %rd7, %rd2, %rd5;       // &B[2t][g] (column g holds 16 halves)
  ld.global.b32 %r14, [%rd7];
  ld.global.b32 %r15, [%rd7+16];
  shl.b32 %r6, %r2, 3;
  add.u32 %r6, %r6, %r4;          // g * 8 + 2t
  mul.wide.u32 %rd8, %r6, 4;
  add.s64 %rd9, %rd3, %rd8;
  ld.global.v2.f32 {%f1, %f2}, [%rd9];
  ld.global.v2.f32 {%f3, %f4}, [%rd9+256];
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f1, %f2, %f3, %f4};
  add.s64 %rd10, %rd4, %rd8;
  st.global.v2.f32 [%rd10], {%f5, %f6};
  st.global.v2.f32 [%rd10+256], {%f7, %f8};
  ret;
}
)";

struct MmaBuffers {
  uint64_t a, b, c, d;
};
MmaBuffers upload_gemm(Device& dev, const Mat& a, const std::string& at, bool a_row, const Mat& b,
                       const std::string& bt, bool b_row, const Mat& c, const std::string& ct,
                       size_t d_bytes) {
  return {upload(dev, store(a, at, a_row, a_row ? a.cols : a.rows)),
          upload(dev, store(b, bt, b_row, b_row ? b.cols : b.rows)),
          upload(dev, store(c, ct, true, c.cols)), upload(dev, std::vector<uint8_t>(d_bytes, 0xee))};
}

TEST(TensorMma, M16n8k16F16F32FragmentsFromGlobal) {
  auto l = load(kMmaF16F32);
  const Mat a = random_mat(16, 16, "f16", 1), b = random_mat(16, 8, "f16", 2),
            c = random_mat(16, 8, "f32", 3);
  auto m = upload_gemm(l->device, a, "f16", true, b, "f16", false, c, "f32", 16 * 8 * 4);
  auto r = run(*l, "mma", {1}, {32},
               {param_bytes(m.a), param_bytes(m.b), param_bytes(m.c), param_bytes(m.d)});
  ASSERT_TRUE(r.ok()) << message(r);
  expect_equal(fetch(download<uint8_t>(l->device, m.d, 16 * 8 * 4), 16, 8, "f32", true, 8),
               reference(a, b, c, "f16", "f32"), "mma.m16n8k16");
}

TEST(TensorMma, PartialWarpFaults) {
  auto l = load(kMmaF16F32);
  const Mat a = random_mat(16, 16, "f16", 1), b = random_mat(16, 8, "f16", 2),
            c = random_mat(16, 8, "f32", 3);
  auto m = upload_gemm(l->device, a, "f16", true, b, "f16", false, c, "f32", 16 * 8 * 4);
  auto r = run(*l, "mma", {1}, {16},
               {param_bytes(m.a), param_bytes(m.b), param_bytes(m.c), param_bytes(m.d)});
  ASSERT_FALSE(r.ok());
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->fault.kind, FaultKind::IllegalInstruction);
  EXPECT_NE(r.fault->message.find("partial warp (16 of 32 lanes active"), std::string::npos)
      << r.fault->message;
  EXPECT_NE(r.fault->message.find("mma.sync.aligned.m16n8k16"), std::string::npos) << r.fault->message;
}

// A whole kernel of one mma.sync form: fragments loaded element by element
// (u32 per register) from a buffer the host fills per the ISA layout, so
// every shape's layout formulas are checked independently of the kernel.
// Lane l's register r of operand X is at X[r * 32 + l].
std::string mma_regs_kernel(const std::string& form, uint32_t na, uint32_t nb, uint32_t nc,
                            uint32_t nd, bool wide) {
  std::ostringstream s;
  const std::string rt = wide ? "b64" : "b32", rp = wide ? "%rx" : "%r";
  s << ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"
    << "  .reg .b32 %r<64>; .reg .b64 %rx<64>; .reg .b64 %rd<16>;\n"
    << "  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc]; ld.param.u64 %rd4, [pd];\n"
    << "  mov.u32 %r0, %laneid; mul.wide.u32 %rd5, %r0, " << (wide ? 8 : 4) << ";\n";
  uint32_t next = 1;
  auto list = [&](uint32_t base, uint32_t n) {
    std::string t = "{";
    for (uint32_t i = 0; i < n; ++i) t += (i ? ", " : "") + rp + std::to_string(base + i);
    return t + "}";
  };
  auto load_op = [&](int param, uint32_t n) {
    const uint32_t base = next;
    s << "  add.s64 %rd6, %rd" << param << ", %rd5;\n";
    for (uint32_t i = 0; i < n; ++i)
      s << "  ld.global." << rt << " " << rp << next++ << ", [%rd6+" << i * 32 * (wide ? 8 : 4) << "];\n";
    return base;
  };
  const uint32_t a = load_op(1, na), b = load_op(2, nb), c = load_op(3, nc), d = next;
  next += nd;
  s << "  " << form << " " << list(d, nd) << ", " << list(a, na) << ", " << list(b, nb) << ", "
    << list(c, nc) << ";\n  add.s64 %rd6, %rd4, %rd5;\n";
  for (uint32_t i = 0; i < nd; ++i)
    s << "  st.global." << rt << " [%rd6+" << i * 32 * (wide ? 8 : 4) << "], " << rp << d + i << ";\n";
  s << "  ret;\n}\n";
  return s.str();
}

// The ISA fragment tables, written out per shape the way the ISA states
// them (not the compact form exec_mma.cpp uses).
struct Rc { uint32_t row, col; };
using FragFn = Rc (*)(uint32_t g, uint32_t t, uint32_t i);

// Packs X (logical matrix) into per-lane registers: element i of lane l at
// fn(g, t, i), `per` elements per register of `bits` each.
std::vector<uint64_t> pack(const Mat& x, const std::string& type, FragFn fn, uint32_t n, uint32_t per) {
  const uint32_t bits = per == 1 ? (type == "f64" ? 64 : 32) : 32 / per;
  std::vector<uint64_t> regs(size_t{n} / per * 32);
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < n; ++i) {
      const Rc rc = fn(l >> 2, l & 3, i);
      uint64_t v = encode(type, x.at(rc.row, rc.col));
      if (bits < 64) v &= (uint64_t{1} << bits) - 1;
      regs[(i / per) * 32 + l] |= v << (i % per * bits);
    }
  return regs;
}
Mat unpack(const std::vector<uint64_t>& regs, const std::string& type, FragFn fn, uint32_t rows,
           uint32_t cols, uint32_t per) {
  const uint32_t bits = per == 1 ? (type == "f64" ? 64 : 32) : 32 / per, n = rows * cols / 32;
  Mat m{rows, cols, std::vector<double>(size_t{rows} * cols)};
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < n; ++i) {
      const Rc rc = fn(l >> 2, l & 3, i);
      uint64_t v = regs[(i / per) * 32 + l] >> (i % per * bits);
      if (bits < 64) v &= (uint64_t{1} << bits) - 1;
      m.at(rc.row, rc.col) = decode(type, v);
    }
  return m;
}

struct MmaCase {
  const char* name;
  uint32_t m, n, k;
  std::string dt, at, bt, ct;
  FragFn fa, fb, fc;
  bool satfinite = false;
};

// C/D of every m16n8 shape; of m8n8 shapes.
Rc c16(uint32_t g, uint32_t t, uint32_t i) { return {i < 2 ? g : g + 8, t * 2 + (i & 1)}; }
Rc c8(uint32_t g, uint32_t t, uint32_t i) { return {g, t * 2 + i}; }
const MmaCase kMmaCases[] = {
    {"m16n8k16_f16", 16, 8, 16, "f16", "f16", "f16", "f16",
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc {
       return {(i < 2 || (i >= 4 && i < 6)) ? g : g + 8, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
     },
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g}; }, c16},
    {"m16n8k16_bf16", 16, 8, 16, "f32", "bf16", "bf16", "f32",
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc {
       return {(i < 2 || (i >= 4 && i < 6)) ? g : g + 8, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
     },
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g}; }, c16},
    {"m16n8k8_f16", 16, 8, 8, "f32", "f16", "f16", "f16",
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {i < 2 ? g : g + 8, t * 2 + (i & 1)}; },
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {t * 2 + i, g}; }, c16},
    {"m16n8k8_bf16", 16, 8, 8, "f32", "bf16", "bf16", "f32",
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {i < 2 ? g : g + 8, t * 2 + (i & 1)}; },
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {t * 2 + i, g}; }, c16},
    {"m16n8k8_tf32", 16, 8, 8, "f32", "tf32", "tf32", "f32",
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc {
       return {(i == 0 || i == 2) ? g : g + 8, i < 2 ? t : t + 4};
     },
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {i == 0 ? t : t + 4, g}; }, c16},
    {"m16n8k4_tf32", 16, 8, 4, "f32", "tf32", "tf32", "f32",
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {i == 0 ? g : g + 8, t}; },
     [](uint32_t g, uint32_t t, uint32_t) -> Rc { return {t, g}; }, c16},
    {"m8n8k4_f64", 8, 8, 4, "f64", "f64", "f64", "f64",
     [](uint32_t g, uint32_t t, uint32_t) -> Rc { return {g, t}; },
     [](uint32_t g, uint32_t t, uint32_t) -> Rc { return {t, g}; }, c8},
    {"m16n8k32_s8", 16, 8, 32, "s32", "s8", "s8", "s32",
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc {
       return {(i < 4 || (i >= 8 && i < 12)) ? g : g + 8, t * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
     },
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g}; }, c16},
    {"m16n8k16_u8s8", 16, 8, 16, "s32", "u8", "s8", "s32",
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {i < 4 ? g : g + 8, t * 4 + (i & 3)}; },
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {t * 4 + i, g}; }, c16},
    {"m8n8k16_s8", 8, 8, 16, "s32", "s8", "u8", "s32",
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {g, t * 4 + i}; },
     [](uint32_t g, uint32_t t, uint32_t i) -> Rc { return {t * 4 + i, g}; }, c8},
};

uint32_t per_reg(const std::string& t) {
  return t == "f16" || t == "bf16" ? 2 : t == "s8" || t == "u8" ? 4 : 1;
}

void run_mma_case(const MmaCase& mc, const Mat& a, const Mat& b, const Mat& c) {
  SCOPED_TRACE(mc.name);
  const bool wide = mc.at == "f64";
  const uint32_t na = mc.m * mc.k / 32, nb = mc.k * mc.n / 32, nc = mc.m * mc.n / 32;
  const std::string form = "mma.sync.aligned.m" + std::to_string(mc.m) + "n" + std::to_string(mc.n) +
                           "k" + std::to_string(mc.k) + ".row.col" + (mc.satfinite ? ".satfinite" : "") +
                           "." + mc.dt + "." + mc.at + "." + mc.bt + "." + mc.ct;
  auto l = load(mma_regs_kernel(form, na / per_reg(mc.at), nb / per_reg(mc.bt), nc / per_reg(mc.ct),
                                nc / per_reg(mc.dt), wide));
  auto to_words = [&](const std::vector<uint64_t>& v) {
    if (wide) return upload(l->device, v);
    std::vector<uint32_t> w(v.begin(), v.end());
    return upload(l->device, w);
  };
  const uint64_t da = to_words(pack(a, mc.at, mc.fa, na, per_reg(mc.at)));
  const uint64_t db = to_words(pack(b, mc.bt, mc.fb, nb, per_reg(mc.bt)));
  const uint64_t dc = to_words(pack(c, mc.ct, mc.fc, nc, per_reg(mc.ct)));
  const size_t d_regs = nc / per_reg(mc.dt) * 32;
  const uint64_t dd = to_words(std::vector<uint64_t>(d_regs, 0));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(dd)});
  ASSERT_TRUE(r.ok()) << message(r);
  std::vector<uint64_t> regs;
  if (wide) regs = download<uint64_t>(l->device, dd, d_regs);
  else for (uint32_t x : download<uint32_t>(l->device, dd, d_regs)) regs.push_back(x);
  expect_equal(unpack(regs, mc.dt, mc.fc, mc.m, mc.n, per_reg(mc.dt)),
               reference(a, b, c, mc.at, mc.dt, mc.satfinite), form);
}

TEST(TensorMma, EveryShapeMatchesIsaFragmentTables) {
  uint32_t seed = 10;
  for (const MmaCase& mc : kMmaCases) {
    seed += 3;
    run_mma_case(mc, random_mat(mc.m, mc.k, mc.at, seed), random_mat(mc.k, mc.n, mc.bt, seed + 1),
                 random_mat(mc.m, mc.n, mc.ct, seed + 2));
  }
}

// s8 m16n8k32 near the s32 limits: wrapped without .satfinite, clamped with.
TEST(TensorMma, SatfiniteClampsIntegerAccumulators) {
  MmaCase mc = kMmaCases[7];
  Mat a{16, 32, std::vector<double>(16 * 32, 127)}, b{32, 8, std::vector<double>(32 * 8, 127)};
  Mat c{16, 8, std::vector<double>(16 * 8, INT32_MAX - 1000)};
  for (uint32_t j = 0; j < 8; ++j) {
    c.at(1, j) = INT32_MIN + 1000;  // row 1: large negative sums
    for (uint32_t k = 0; k < 32; ++k) b.at(k, j) = j == 3 ? -128 : 127;
  }
  for (uint32_t k = 0; k < 32; ++k) a.at(0, k) = 0;  // row 0: no overflow at all
  for (bool sat : {false, true}) {
    mc.satfinite = sat;
    mc.name = sat ? "satfinite" : "wrap";
    run_mma_case(mc, a, b, c);
  }
  // The reference itself distinguishes the two: spot-check it.
  EXPECT_EQ(reference(a, b, c, "s8", "s32", true).at(2, 0), INT32_MAX);
  EXPECT_EQ(reference(a, b, c, "s8", "s32", true).at(1, 3), INT32_MIN);
  EXPECT_LT(reference(a, b, c, "s8", "s32", false).at(2, 0), 0);
}

// f16 accumulators: the sum is kept in f32 and rounded to f16 once. Row 0
// of A is {1, 2^-11, 2^-20, 0...}, B all ones: 1 + 2^-11 + 2^-20 rounds up
// to 1 + 2^-10 in f16; rounding after every step would give 1 (2^-11 is a
// tie, to even).
TEST(TensorMma, F16AccumulatorRoundsOnceAtTheEnd) {
  MmaCase mc = kMmaCases[0];  // m16n8k16 .f16.f16.f16.f16
  Mat a{16, 16, std::vector<double>(16 * 16, 0)}, b{16, 8, std::vector<double>(16 * 8, 1)};
  Mat c{16, 8, std::vector<double>(16 * 8, 0)};
  a.at(0, 0) = 1, a.at(0, 1) = std::ldexp(1.0, -11), a.at(0, 2) = std::ldexp(1.0, -20);
  a.at(1, 0) = 2048, a.at(1, 1) = 1, a.at(1, 2) = 0.5;  // 2049.5: beyond f16, rounds to 2050
  EXPECT_EQ(reference(a, b, c, "f16", "f16").at(0, 0), 1 + std::ldexp(1.0, -10));
  EXPECT_EQ(reference(a, b, c, "f16", "f16").at(1, 0), 2050);
  run_mma_case(mc, a, b, c);
}

// tf32 operands ignore the low 13 bits of each register: 1 + 2^-12 is read
// as 1, 1 + 2^-10 (a tf32 value) is kept.
TEST(TensorMma, Tf32IgnoresLowMantissaBits) {
  const MmaCase& mc = kMmaCases[4];  // m16n8k8 tf32
  Mat a{16, 8, std::vector<double>(16 * 8, 0)}, b{8, 8, std::vector<double>(8 * 8, 1)};
  Mat c{16, 8, std::vector<double>(16 * 8, 0)};
  for (uint32_t r = 0; r < 16; ++r) a.at(r, 0) = 1 + std::ldexp(1.0, r % 2 ? -12 : -10);
  Mat want = c;
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t j = 0; j < 8; ++j) want.at(r, j) = r % 2 ? 1 : 1 + std::ldexp(1.0, -10);
  // run_mma_case's reference would use the full f32 value: compare by hand.
  auto l = load(mma_regs_kernel("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 4, 2, 4, 4, false));
  auto words = [&](const std::vector<uint64_t>& v) {
    return upload(l->device, std::vector<uint32_t>(v.begin(), v.end()));
  };
  const uint64_t da = words(pack(a, "f32", mc.fa, 4, 1)), db = words(pack(b, "f32", mc.fb, 2, 1));
  const uint64_t dc = words(pack(c, "f32", mc.fc, 4, 1)), dd = words(std::vector<uint64_t>(128));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(dd)});
  ASSERT_TRUE(r.ok()) << message(r);
  auto got = download<uint32_t>(l->device, dd, 128);
  expect_equal(unpack(std::vector<uint64_t>(got.begin(), got.end()), "f32", mc.fc, 16, 8, 1), want, "tf32");
}

TEST(TensorMma, UnsupportedFormFaultsWhenExecuted) {
  // Volta's m8n8k4 f16 mma (quad-pair layout) has no handler.
  auto l = load(mma_regs_kernel("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", 2, 2, 8, 8, false));
  const uint64_t buf = upload(l->device, std::vector<uint32_t>(8 * 32));
  auto r = run(*l, "k", {1}, {32},
               {param_bytes(buf), param_bytes(buf), param_bytes(buf), param_bytes(buf)});
  ASSERT_TRUE(r.fault) << "m8n8k4 f16 executed";
  EXPECT_EQ(r.fault->fault.kind, FaultKind::Unsupported);
}

// ---- ldmatrix / stmatrix / movmatrix -------------------------------------------------

// 32 memory rows of 32 bytes in shared memory (copied from `in`); lane l
// names memory row perm(l) = (5 l + 3) % 32, so row r of matrix j comes from
// memory row perm(8 j + r). `body` runs after that with %r3 = smem,
// %r14 = the lane's row address, %rd6 = &out[lane * 16 bytes]; afterwards
// shared memory is copied back to out + 512.
uint32_t perm(uint32_t lane) { return (5 * lane + 3) % 32; }
std::string matrix_kernel(const std::string& body) {
  return R"(
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<40>; .reg .b64 %rd<16>;
  .shared .align 16 .b8 smem[1024];
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %laneid;
  shl.b32 %r2, %r1, 5;
  mul.wide.u32 %rd3, %r1, 32;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];
  ld.global.v4.u32 {%r8, %r9, %r10, %r11}, [%rd4+16];
  mov.u32 %r3, smem;
  add.u32 %r12, %r3, %r2;
  st.shared.v4.u32 [%r12], {%r4, %r5, %r6, %r7};
  st.shared.v4.u32 [%r12+16], {%r8, %r9, %r10, %r11};
  bar.sync 0;
  mul.lo.u32 %r13, %r1, 5;
  add.u32 %r13, %r13, 3;
  and.b32 %r13, %r13, 31;
  shl.b32 %r13, %r13, 5;
  add.u32 %r14, %r3, %r13;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd2, %rd5;
)" + body + R"(
  bar.sync 0;
  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r12];
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r12+16];
  add.s64 %rd7, %rd2, 512;
  add.s64 %rd8, %rd7, %rd3;
  st.global.v4.u32 [%rd8], {%r4, %r5, %r6, %r7};
  st.global.v4.u32 [%rd8+16], {%r8, %r9, %r10, %r11};
  ret;
}
)";
}

// Runs matrix_kernel(body) on `in` (1024 bytes); returns the 1536 output
// bytes as u16: [0, 256) the lanes' registers, [256, 768) shared memory.
std::vector<uint16_t> run_matrix(const std::string& body, const std::vector<uint16_t>& in) {
  auto l = load(matrix_kernel(body));
  const uint64_t din = upload(l->device, in), dout = upload(l->device, std::vector<uint16_t>(768, 0xeeee));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(din), param_bytes(dout)});
  EXPECT_TRUE(r.ok()) << message(r) << body;
  return download<uint16_t>(l->device, dout, 768);
}

// Memory row m, element c: a distinct u16.
uint16_t cell(uint32_t m, uint32_t c) { return static_cast<uint16_t>(0x1000 + m * 16 + c); }
std::vector<uint16_t> matrix_input() {
  std::vector<uint16_t> in(512);
  for (uint32_t m = 0; m < 32; ++m)
    for (uint32_t c = 0; c < 16; ++c) in[m * 16 + c] = cell(m, c);
  return in;
}

std::string regs(uint32_t n) {
  std::string s = "{";
  for (uint32_t j = 0; j < n; ++j) s += (j ? ", %r" : "%r") + std::to_string(20 + j);
  return s + "}";
}
std::string store_regs(uint32_t n) {
  return n == 1 ? "  st.global.u32 [%rd6], %r20;\n"
                : "  st.global.v" + std::to_string(n) + ".u32 [%rd6], " + regs(n) + ";\n";
}

TEST(TensorLdmatrix, EveryCountAndTransposeElementByElement) {
  const auto in = matrix_input();
  for (uint32_t n : {1u, 2u, 4u})
    for (bool trans : {false, true}) {
      const std::string inst = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(n) + (trans ? ".trans" : "") +
                               ".shared.b16";
      SCOPED_TRACE(inst);
      const auto out = run_matrix("  " + inst + " " + regs(n) + ", [%r14];\n" + store_regs(n), in);
      for (uint32_t l = 0; l < 32; ++l)
        for (uint32_t j = 0; j < n; ++j)
          for (uint32_t h = 0; h < 2; ++h) {
            // Fragment element (row l / 4, col 2 (l % 4) + h) of matrix j; .trans
            // reads the transpose: memory row = the column, element = the row.
            const uint32_t row = l / 4, col = 2 * (l % 4) + h;
            const uint16_t want = trans ? cell(perm(8 * j + col), row) : cell(perm(8 * j + row), col);
            ASSERT_EQ(out[l * 8 + j * 2 + h], want) << "lane " << l << " matrix " << j << " half " << h;
          }
    }
}

TEST(TensorLdmatrix, ScalarDestinationAndGenericAddress) {
  // `.x1` with a lone register, and a generic address of shared memory.
  const auto out = run_matrix(
      "  cvta.shared.u64 %rd9, smem;\n  cvt.u64.u32 %rd10, %r13;\n  add.s64 %rd9, %rd9, %rd10;\n"
      "  ldmatrix.sync.aligned.m8n8.x1.b16 %r20, [%rd9];\n" + store_regs(1),
      matrix_input());
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t h = 0; h < 2; ++h) ASSERT_EQ(out[l * 8 + h], cell(perm(l / 4), 2 * (l % 4) + h)) << l;
}

TEST(TensorStmatrix, EveryCountAndTransposeElementByElement) {
  // Lane l's register j holds halves (l << 8 | j << 4 | h); stmatrix writes
  // them to the lanes' row addresses; the shared copy is checked.
  for (uint32_t n : {1u, 2u, 4u})
    for (bool trans : {false, true}) {
      const std::string inst = "stmatrix.sync.aligned.m8n8.x" + std::to_string(n) + (trans ? ".trans" : "") +
                               ".shared.b16";
      SCOPED_TRACE(inst);
      std::string body;
      for (uint32_t j = 0; j < n; ++j)
        body += "  shl.b32 %r30, %r1, 8;\n  or.b32 %r" + std::to_string(20 + j) + ", %r30, " +
                std::to_string(j << 4 | ((j << 4 | 1) << 16)) + ";\n" + "  shl.b32 %r31, %r1, 24;\n  or.b32 %r" +
                std::to_string(20 + j) + ", %r" + std::to_string(20 + j) + ", %r31;\n";
      body += "  " + inst + " [%r14], " + regs(n) + ";\n";
      const auto out = run_matrix(body, matrix_input());
      auto half = [](uint32_t l, uint32_t j, uint32_t h) {
        return static_cast<uint16_t>(l << 8 | j << 4 | h);
      };
      for (uint32_t m = 0; m < 32; ++m)
        for (uint32_t c = 0; c < 16; ++c) {
          const uint16_t got = out[256 + m * 16 + c];
          // Memory row m is row r of matrix j when perm(8 j + r) == m.
          uint32_t lane = 0;
          while (perm(lane) != m) ++lane;
          const uint32_t j = lane / 8, r = lane % 8;
          if (j >= n || c >= 8) {
            ASSERT_EQ(got, cell(m, c)) << "untouched row " << m << " col " << c;
            continue;
          }
          // Element (r, c) of the stored matrix; .trans stores the fragment's
          // element (c, r).
          const uint32_t fr = trans ? c : r, fc = trans ? r : c;
          ASSERT_EQ(got, half(4 * fr + fc / 2, j, fc % 2)) << "row " << m << " col " << c;
        }
    }
}

TEST(TensorMovmatrix, TransposesTheFragment) {
  // Lane l holds elements (l / 4, 2 (l % 4) + h) = l << 8 | h.
  const auto out = run_matrix(
      "  shl.b32 %r30, %r1, 8;\n  or.b32 %r31, %r30, 65536;\n  or.b32 %r21, %r30, %r31;\n"
      "  shl.b32 %r32, %r1, 24;\n  or.b32 %r21, %r21, %r32;\n"
      "  movmatrix.sync.aligned.m8n8.trans.b16 %r20, %r21;\n" + store_regs(1),
      matrix_input());
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t h = 0; h < 2; ++h) {
      // d element (l / 4, 2 (l % 4) + h) = a element (2 (l % 4) + h, l / 4).
      const uint32_t r = 2 * (l % 4) + h, c = l / 4;
      ASSERT_EQ(out[l * 8 + h], static_cast<uint16_t>((4 * r + c / 2) << 8 | (c % 2))) << l;
    }
}

// The CUTLASS pattern: A (16x16 f16, row-major) and B (16x8, row-major, k x
// n) staged in shared memory, A's fragment from ldmatrix.x4, B's from
// ldmatrix.x2.trans, then mma.m16n8k16 with f16 accumulators (C = 0).
TEST(TensorMma, LdmatrixFedMmaF16Accumulators) {
  const Mat a = random_mat(16, 16, "f16", 40), b = random_mat(16, 8, "f16", 41);
  const Mat c{16, 8, std::vector<double>(128, 0)};
  std::vector<uint16_t> in(512, 0);
  const auto ab = store(a, "f16", true, 16), bb = store(b, "f16", true, 8);
  std::memcpy(in.data(), ab.data(), ab.size());
  std::memcpy(in.data() + 256, bb.data(), bb.size());
  // Lane l: A row l % 16, column block l / 16 (32-byte rows); B row k = l % 16
  // at byte 512 + 16 k.
  const auto out = run_matrix(R"(
  and.b32 %r15, %r1, 15;
  shl.b32 %r16, %r15, 5;
  shr.u32 %r17, %r1, 4;
  shl.b32 %r17, %r17, 4;
  add.u32 %r16, %r16, %r17;
  add.u32 %r16, %r16, %r3;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r20, %r21, %r22, %r23}, [%r16];
  shl.b32 %r18, %r15, 4;
  add.u32 %r18, %r18, %r3;
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r24, %r25}, [%r18+512];
  mov.b32 %r26, 0;
  mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r27, %r28}, {%r20, %r21, %r22, %r23}, {%r24, %r25}, {%r26, %r26};
  st.global.v2.u32 [%rd6], {%r27, %r28};
)",
                              in);
  // d0 = D[g][2t..2t+1], d1 = D[g+8][2t..].
  Mat d{16, 8, std::vector<double>(128)};
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t i = 0; i < 4; ++i)
      d.at(l / 4 + 8 * (i / 2), 2 * (l % 4) + i % 2) = decode("f16", out[l * 8 + i]);
  expect_equal(d, reference(a, b, c, "f16", "f16"), "ldmatrix + mma");
}

TEST(TensorLdmatrix, MisalignedRowAddressFaults) {
  auto l = load(matrix_kernel("  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r20}, [%r14+8];\n"));
  const uint64_t din = upload(l->device, matrix_input());
  const uint64_t dout = upload(l->device, std::vector<uint16_t>(768));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(din), param_bytes(dout)});
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->fault.kind, FaultKind::Misaligned) << r.fault->message;
  EXPECT_EQ(r.fault->thread.x, 0u);  // the lane that supplied row 0's address
}

}  // namespace
}  // namespace warpsim::functional
