// Microbenchmarks of the memory system below L1: latencies that add up from
// the configuration, a streaming kernel's share of peak DRAM bandwidth, and
// which kernels DRAM bandwidth matters to.
//
// Latency rules (all clocks 1 GHz, so one cycle is one cycle everywhere; an
// ideal network of latency N; the SM side as in microbenchmark_test.cpp):
// a load issued at t misses in L1 and leaves the SM in cycle t + 1; the
// cluster port's bus moves it at the network edge of t + 1 and injects it at
// t + 2; it is ejected at the slice at t + 2 + N and reaches the L2 after
// rop_latency. A hit's reply leaves hit_latency later, is ejected at the
// cluster N cycles after that, and the SM takes it (and the dependent
// instruction issues) in the following core cycle:
//     L2 hit:  load-to-use = 3 + 2N + rop_latency + l2.hit_latency
// A miss goes to DRAM in the same cycle; with another row open in its bank
// the channel precharges, activates and reads (tRP + tRCD + tCL + one burst
// of burst_cycles); the data reaches the L2 dram_return_latency later and
// the reply leaves one L2 cycle after the fill:
//     DRAM:    load-to-use = 3 + 2N + rop_latency + tRP + tRCD + tCL
//                            + burst_cycles + dram_return_latency + 1
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "interconnect/ideal_network.h"
#include "tests/timing/micro_rig.h"

namespace warpsim::timing {
namespace {

using namespace testing;

constexpr uint32_t kInt = 5, kL1Hit = 29;
constexpr uint32_t kNet = 7, kRop = 11, kL2Hit = 17, kReturn = 13;
constexpr uint32_t kRP = 12, kRCD = 14, kCL = 16, kBurst = 2;  // gddr5: 8 B x BL8 at QDR = 2 cycles

SimConfig memory_config() {
  SimConfig c;
  c.gpu.num_sms = 1;
  c.gpu.core_clock = 1000;
  c.timing.gpu.sms_per_cluster = 1;
  c.timing.sm.ibuffer_entries = 8;
  c.timing.sm.decode_latency = 0;
  c.timing.l1i.hit_latency = 0;
  c.timing.units.int_latency = kInt;
  c.timing.l1d.hit_latency = kL1Hit;
  c.timing.network.topology = "ideal";
  c.timing.network.topologies.get<interconnect::IdealConfig>("ideal").latency = kNet;
  c.timing.network.clock_mhz = 1000;
  c.timing.partition.partitions = 1;
  c.timing.partition.sub_partitions = 1;
  c.timing.partition.hash = PartitionHash::None;
  // 128-B rows and 16 banks, bank = line % 16: 16 consecutive lines use 16
  // banks, and lines 2 KB apart share a bank in different rows.
  c.timing.partition.mapping = "RRRRRRRRRRRRRRRR.BBBB.SSSSSSS";
  c.timing.partition.l2_clock_mhz = 1000;
  c.timing.partition.rop_latency = kRop;
  c.timing.partition.dram_return_latency = kReturn;
  c.timing.l2.hit_latency = kL2Hit;
  c.timing.dram = DramConfig{};
  c.timing.dram.type = "gddr5";
  c.timing.dram.clock_mhz = 1000;
  c.timing.dram.tRP = kRP;
  c.timing.dram.tRCD = kRCD;
  c.timing.dram.tCL = kCL;
  return c;
}

// The pointer chase of microbenchmark_test.cpp: one node per 128-B line,
// visited 0, 7, 14, ... (mod n); the kernel chases the list twice (the
// second pass hits in L1). t1 - t0 = n * (int_latency + load-to-use) + 2.
std::string chase_kernel(uint32_t n) {
  KernelText k("chase", "");
  k.add("  mov.u64 %rd4, 0;");
  const std::string pre = "  add.s64 %rd6, %rd4, %rd14;";
  const std::string link = "  add.s64 %rd5, %rd14, %rd4;\n  ld.global.u64 %rd4, [%rd5];";
  const std::string post = "  add.s64 %rd6, %rd4, 0;";
  k.section(pre, link, n, post);
  k.section(pre, link, n, post);
  return k.text();
}

std::vector<uint64_t> chase_list(uint32_t n) {
  std::vector<uint64_t> words(n * 16, 0);
  for (uint32_t i = 0; i < n; ++i) words[(i * 7 % n) * 16] = uint64_t{(i + 1) * 7 % n} * 128;
  return words;
}

std::vector<uint64_t> run_chase(Rig& rig, uint64_t list, uint32_t sections) {
  const uint64_t out = ft::upload(rig.device(), std::vector<uint64_t>(sections, 0));
  rig.launch("chase", {1}, {1}, {param_bytes(out), param_bytes(list), param_bytes(uint32_t{0})});
  return ft::download<uint64_t>(rig.device(), out, sections);
}

TEST(MemoryMicrobenchmark, PointerChaseLatenciesAddUpFromTheConfig) {
  constexpr uint32_t n = 16;
  Rig rig(memory_config(), chase_kernel(n));
  const uint64_t warm = ft::upload(rig.device(), chase_list(n));
  const uint64_t cold = ft::upload(rig.device(), chase_list(n));
  ASSERT_EQ(warm % 128, 0u);
  ASSERT_EQ(cold % 128, 0u);
  ASSERT_GE(cold - warm, 2048u) << "the lists must not share a row";
  // Launch 1 warms the L1I (instruction lines stay cached across kernels)
  // and leaves a row of `warm` open in every bank.
  run_chase(rig, warm, 2);
  constexpr uint64_t kL2 = 3 + 2 * kNet + kRop + kL2Hit;
  constexpr uint64_t kDram = 3 + 2 * kNet + kRop + kRP + kRCD + kCL + kBurst + kReturn + 1;
  // Launch 2: `cold` misses in L1 and L2; each bank has another row open.
  auto t = run_chase(rig, cold, 2);
  EXPECT_EQ(rig.gpu->last().l1i.read_misses, 0u);
  EXPECT_EQ(t[0], n * (kInt + kDram) + 2) << "DRAM pass";
  EXPECT_EQ(t[1], n * (kInt + kL1Hit + 1) + 2) << "L1 pass";
  const MemoryActivity& m = rig.gpu->last().memory;
  EXPECT_EQ(m.dram.reads, n);
  EXPECT_EQ(m.dram.row_conflicts, n);
  EXPECT_EQ(m.l2.read_misses, n);
  // Launch 3: L1 starts empty (invalidated at the kernel boundary); L2 hits.
  t = run_chase(rig, cold, 2);
  EXPECT_EQ(t[0], n * (kInt + kL2) + 2) << "L2 pass";
  EXPECT_EQ(rig.gpu->last().memory.dram.reads, 0u);
  EXPECT_EQ(rig.gpu->last().memory.l2.read_hits, n);
}


// ---- bandwidth -------------------------------------------------------------------

// out[i] = in[i], one 4-byte element per thread.
constexpr const char* kCopy = R"(
.visible .entry copy(.param .u64 out, .param .u64 in, .param .u32 n)
{
  .reg .pred %p; .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p, %r5, %r1;
  @%p bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  add.s64 %rd5, %rd1, %rd3;
  ld.global.u32 %r6, [%rd4];
  st.global.u32 [%rd5], %r6;
DONE:
  ret;
}
)";

// 512 dependent fp32 FMAs per thread, then one store: ALU-bound.
constexpr const char* kAlu = R"(
.visible .entry alu(.param .u64 out, .param .u64 in, .param .u32 n)
{
  .reg .pred %p; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  cvt.rn.f32.u32 %f1, %r5;
  mov.u32 %r6, 0;
LOOP:
  fma.rn.f32 %f1, %f1, 0f3F7FFFFE, 0f3F000000;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p, %r6, 512;
  @%p bra LOOP;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.f32 [%rd4], %f1;
  ret;
}
)";

// 8 SMs, 4 partitions of GDDR5 (8-B channels at QDR, 1 GHz): peak DRAM
// bandwidth 4 x 8 x 4 = 128 B per core cycle; 64-B flits so the network is
// not the bottleneck, and enough L2 MSHRs for the latency (Little's law:
// 4 x 128 lines x 128 B over a ~250-cycle miss is ~260 B per cycle).
SimConfig bandwidth_config(uint32_t bus_width = 8) {
  SimConfig c;
  c.gpu.num_sms = 8;
  c.gpu.core_clock = 1000;
  c.timing.network.clock_mhz = 1000;
  c.timing.network.flit_bytes = 64;
  c.timing.partition.partitions = 4;
  c.timing.partition.sub_partitions = 1;
  c.timing.partition.l2_clock_mhz = 1000;
  c.timing.partition.rop_latency = 40;
  c.timing.partition.dram_return_latency = 40;
  c.timing.l2.mshr_entries = 128;
  c.timing.dram = DramConfig{};
  c.timing.dram.type = "gddr5";
  c.timing.dram.clock_mhz = 1000;
  c.timing.dram.bus_width = bus_width;
  return c;
}

struct Launched {
  uint64_t cycles = 0;
  MemoryActivity memory;
};

Launched run_kernel(const SimConfig& config, const char* ptx, const std::string& kernel, uint32_t n) {
  Rig rig(config, ptx);
  std::vector<uint32_t> data(n);
  for (uint32_t i = 0; i < n; ++i) data[i] = i * 2654435761u;
  const uint64_t in = ft::upload(rig.device(), data);
  const uint64_t out = ft::upload(rig.device(), std::vector<uint32_t>(n, 0));
  rig.launch(kernel, {n / 256}, {256}, {param_bytes(out), param_bytes(in), param_bytes(n)});
  if (kernel == "copy") {
    EXPECT_EQ(ft::download<uint32_t>(rig.device(), out, n), data);
  }
  return {rig.gpu->last().cycles, rig.gpu->last().memory};
}

constexpr uint32_t kStreamElements = 256 * 1024;  // 1 MB read, 1 MB written

TEST(MemoryMicrobenchmark, StreamingCopyReachesMostOfPeakDramBandwidth) {
  const Launched r = run_kernel(bandwidth_config(), kCopy, "copy", kStreamElements);
  // Every input line is read from DRAM once; the output stays in the
  // write-back L2 (2.5 MB), so DRAM traffic is the 1 MB read.
  EXPECT_GE(r.memory.dram.read_bytes, uint64_t{kStreamElements} * 4);
  EXPECT_LT(r.memory.dram.read_bytes, uint64_t{kStreamElements} * 4 + 4096) << "and the kernel's code";
  const double bytes_per_cycle = double(r.memory.dram.read_bytes + r.memory.dram.write_bytes) / r.cycles;
  const double peak = 4 * 8 * 4;
  std::printf("copy: %llu cycles, %.1f B/cycle of %.0f peak (%.0f %%), row-buffer hits %llu of %llu\n",
              (unsigned long long)r.cycles, bytes_per_cycle, peak, 100 * bytes_per_cycle / peak,
              (unsigned long long)r.memory.dram.row_hits,
              (unsigned long long)(r.memory.dram.row_hits + r.memory.dram.row_misses));
  EXPECT_GT(bytes_per_cycle, 0.6 * peak);
  EXPECT_LE(bytes_per_cycle, peak);
  EXPECT_GT(r.memory.dram.row_hits, r.memory.dram.row_misses) << "a stream opens each row once";
}

TEST(MemoryMicrobenchmark, HalvingDramBandwidthSlowsTheStreamNotTheAluKernel) {
  const Launched copy_full = run_kernel(bandwidth_config(8), kCopy, "copy", kStreamElements);
  const Launched copy_half = run_kernel(bandwidth_config(4), kCopy, "copy", kStreamElements);
  const Launched alu_full = run_kernel(bandwidth_config(8), kAlu, "alu", 16 * 1024);
  const Launched alu_half = run_kernel(bandwidth_config(4), kAlu, "alu", 16 * 1024);
  const double copy_ratio = double(copy_half.cycles) / copy_full.cycles;
  const double alu_ratio = double(alu_half.cycles) / alu_full.cycles;
  std::printf("half DRAM bandwidth: copy x%.2f, alu x%.3f\n", copy_ratio, alu_ratio);
  EXPECT_GT(copy_ratio, 1.6);
  EXPECT_LT(alu_ratio, 1.02);
}

}  // namespace
}  // namespace warpsim::timing
