// CTAs per SM on the H100-like defaults of SmResources, against values worked
// out by hand from the occupancy rules in functional/occupancy.h.
#include "functional/occupancy.h"

#include <gtest/gtest.h>

namespace warpsim::functional {
namespace {

Occupancy occ(uint32_t threads, uint32_t regs, uint64_t shared) {
  return compute_occupancy(SmResources{}, CtaFootprint{threads, regs, shared});
}

TEST(Occupancy, ThreadsBindWithFewRegisters) {
  // 8 warps of 32-register threads: 2048 threads / 256 = 8, registers allow 8 too.
  const Occupancy o = occ(256, 32, 0);
  EXPECT_EQ(o.ctas_per_sm, 8u);
  EXPECT_EQ(o.limit, OccupancyLimit::Threads);
  EXPECT_EQ(o.by_registers, 8u);
  EXPECT_EQ(o.warps_per_cta, 8u);
  EXPECT_EQ(o.active_warps(), 64u);
}

TEST(Occupancy, RegistersPerSubPartition) {
  // 64 registers: 2048 per warp, 8 warps per 16K-register sub-partition, 32 warps.
  EXPECT_EQ(occ(256, 64, 0).ctas_per_sm, 4u);
  EXPECT_EQ(occ(256, 64, 0).limit, OccupancyLimit::Registers);
  // 40 registers: 1280 per warp, floor(16384 / 1280) = 12 warps per partition,
  // 48 per SM (not floor(65536 / 1280) = 51): 6 CTAs of 8 warps.
  EXPECT_EQ(occ(256, 40, 0).ctas_per_sm, 6u);
  // 33 registers round up to 1280 per warp as well.
  EXPECT_EQ(occ(256, 33, 0).regs_per_warp, 1280u);
}

TEST(Occupancy, PerCtaRegisterLimit) {
  EXPECT_EQ(occ(1024, 64, 0).ctas_per_sm, 1u);  // exactly 64K registers
  const Occupancy o = occ(1024, 72, 0);          // 2304 x 32 warps > 64K
  EXPECT_EQ(o.ctas_per_sm, 0u);
  EXPECT_EQ(o.limit, OccupancyLimit::Registers);
  // 25 warps of 80-register threads need 64000 registers, but the check
  // counts 28 warps (a multiple of the 4 sub-partitions): 71680 > 64K.
  EXPECT_EQ(occ(800, 80, 0).ctas_per_sm, 0u);
  EXPECT_EQ(occ(768, 80, 0).ctas_per_sm, 1u);
}

TEST(Occupancy, SharedMemoryWithReservation) {
  // 48 KiB + the 1 KiB reservation per CTA in 228 KiB: 4 CTAs.
  const Occupancy o = occ(128, 16, 48 << 10);
  EXPECT_EQ(o.shared_per_cta, (48u << 10) + 1024u);
  EXPECT_EQ(o.ctas_per_sm, 4u);
  EXPECT_EQ(o.limit, OccupancyLimit::SharedMemory);
  // Allocation in 128-byte units: 1 byte costs 1024 + 128.
  EXPECT_EQ(occ(32, 8, 1).shared_per_cta, 1152u);
  // More than a CTA may ever have.
  EXPECT_EQ(occ(32, 8, 228 << 10).ctas_per_sm, 0u);
}

TEST(Occupancy, CtaSlotsAndInvalidShapes) {
  const Occupancy small = occ(32, 16, 0);
  EXPECT_EQ(small.ctas_per_sm, 32u);
  EXPECT_EQ(small.by_threads, 64u);
  EXPECT_EQ(small.limit, OccupancyLimit::CtaSlots);
  EXPECT_EQ(occ(0, 16, 0).limit, OccupancyLimit::Invalid);
  EXPECT_EQ(occ(2048, 16, 0).limit, OccupancyLimit::Invalid);
  EXPECT_EQ(occ(2048, 16, 0).ctas_per_sm, 0u);
  // A partial warp occupies a whole one.
  EXPECT_EQ(occ(33, 0, 0).warps_per_cta, 2u);
}

TEST(Occupancy, CarveoutLimitsSharedMemory) {
  SmResources sm;
  sm.shared_per_sm = 100 << 10;  // a smaller carveout
  EXPECT_EQ(compute_occupancy(sm, {128, 16, 20 << 10}).ctas_per_sm, 4u);  // 100K / 21K
}

}  // namespace
}  // namespace warpsim::functional
