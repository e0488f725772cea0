#pragma once
// A memory partition: its L2 slices (sub-partitions) and one DRAM channel.
//
// On each DRAM clock edge the partition moves one operation from its slices'
// DRAM queues into the channel's scheduler queue (round-robin over the
// slices), ticks the channel, and hands completed reads back to their slice
// (after dram_return_latency L2 cycles). The slices tick on the L2 clock.
#include <cstdint>
#include <memory>
#include <vector>

#include "timing/memory/address_mapping.h"
#include "timing/clock_domains.h"
#include "timing/dram/dram_channel.h"
#include "timing/memory/l2_slice.h"

namespace warpsim::timing {

class MemoryPartition {
 public:
  MemoryPartition(uint32_t id, const PartitionConfig& config, const CacheConfig& l2, const DramConfig& dram,
                  const AddressMapping& mapping, const ClockDomains& clocks, RequestPool& pool);

  uint32_t id() const { return id_; }
  L2Slice& slice(uint32_t i) { return *slices_[i]; }
  const L2Slice& slice(uint32_t i) const { return *slices_[i]; }
  uint32_t slices() const { return static_cast<uint32_t>(slices_.size()); }
  const DramChannel& dram() const { return dram_; }
  DramChannel& dram() { return dram_; }

  // One L2 cycle / one DRAM command cycle, at time `now_ps`.
  void tick_l2(uint64_t now_ps);
  void tick_dram(uint64_t now_ps);
  // The earliest time >= now_ps at which the L2 (resp. DRAM) side has work;
  // UINT64_MAX when none.
  uint64_t next_l2_work(uint64_t now_ps) const;
  uint64_t next_dram_work(uint64_t now_ps) const;
  bool idle() const;

 private:
  struct PendingRead {
    uint64_t line = 0;
    uint32_t sectors = 0;
    uint32_t slice = 0;
  };
  uint32_t id_;
  const AddressMapping& mapping_;
  const ClockDomains& clocks_;
  uint32_t sector_bytes_;
  uint64_t return_ps_;
  std::vector<std::unique_ptr<L2Slice>> slices_;
  DramChannel dram_;
  std::vector<PendingRead> reads_;   // by DRAM request id
  std::vector<uint32_t> free_reads_;
  uint32_t next_slice_ = 0;          // round-robin into the DRAM queue
  bool holding_ = false;             // a completed read waits for its slice's fill queue
  DramRequest held_;
};

}  // namespace warpsim::timing
