// MemoryPartition: the slices' DRAM traffic through one channel.
#include "timing/memory/memory_partition.h"

#include <algorithm>
#include <bit>

namespace warpsim::timing {

MemoryPartition::MemoryPartition(uint32_t id, const PartitionConfig& config, const CacheConfig& l2,
                                 const DramConfig& dram, const AddressMapping& mapping,
                                 const ClockDomains& clocks, RequestPool& pool)
    : id_(id),
      mapping_(mapping),
      clocks_(clocks),
      sector_bytes_(l2.sector_bytes),
      return_ps_(uint64_t{config.dram_return_latency} * clocks.period(Domain::L2)),
      dram_(dram) {
  for (uint32_t i = 0; i < config.sub_partitions; ++i)
    slices_.push_back(std::make_unique<L2Slice>(config, l2, clocks, pool));
}

void MemoryPartition::tick_l2(uint64_t now_ps) {
  for (auto& s : slices_) s->tick(now_ps);
}

void MemoryPartition::tick_dram(uint64_t now_ps) {
  const uint64_t now = now_ps / clocks_.period(Domain::Dram);
  // One operation from the slices into the scheduler queue per cycle.
  const uint32_t n = slices();
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t i = (next_slice_ + k) % n;
    L2Slice& s = *slices_[i];
    if (!s.dram_op_ready(now_ps)) continue;
    if (!dram_.can_accept()) {
      dram_.count_full();
      break;
    }
    const DramOp& op = s.dram_op_front();
    const DecodedAddress a = mapping_.decode(op.line);
    DramRequest r;
    r.bank = a.bank;
    r.row = a.row;
    r.column = a.column;
    r.bytes = static_cast<uint32_t>(std::popcount(op.sectors)) * sector_bytes_;
    r.write = op.write;
    if (!op.write) {
      uint32_t rid;
      if (free_reads_.empty()) {
        rid = static_cast<uint32_t>(reads_.size());
        reads_.emplace_back();
      } else {
        rid = free_reads_.back();
        free_reads_.pop_back();
      }
      reads_[rid] = {op.line, op.sectors, i};
      r.id = rid;
    }
    dram_.push(r, now);
    s.dram_op_pop();
    next_slice_ = (i + 1) % n;
    break;
  }
  dram_.tick(now);
  // Completed reads go back to their slice (in completion order; a full
  // fill queue holds the rest back).
  for (;;) {
    if (!holding_) {
      if (!dram_.pop_completed(now, held_)) break;
      holding_ = true;
    }
    const PendingRead& p = reads_[held_.id];
    L2Slice& s = *slices_[p.slice];
    if (!s.can_fill()) break;
    s.fill_arrives(p.line, p.sectors, now_ps + return_ps_);
    free_reads_.push_back(held_.id);
    holding_ = false;
  }
}

uint64_t MemoryPartition::next_l2_work(uint64_t now_ps) const {
  uint64_t t = UINT64_MAX;
  for (const auto& s : slices_)
    if ((t = std::min(t, s->next_work(now_ps))) <= now_ps) return now_ps;
  return t;
}

uint64_t MemoryPartition::next_dram_work(uint64_t now_ps) const {
  if (holding_) return now_ps;  // a completed read retries its slice's fill queue every cycle
  uint64_t t = UINT64_MAX;
  for (const auto& s : slices_) t = std::min(t, s->dram_op_time());
  // The channel's next command or completion, as a cycle at or after now.
  const uint64_t period = clocks_.period(Domain::Dram);
  const uint64_t first = (now_ps + period - 1) / period;
  const uint64_t c = dram_.next_event(first == 0 ? 0 : first - 1);
  if (c != UINT64_MAX) t = std::min(t, c * period);
  return t == UINT64_MAX ? t : std::max(t, now_ps);
}

bool MemoryPartition::idle() const {
  if (holding_ || !dram_.idle()) return false;
  for (const auto& s : slices_)
    if (!s->idle()) return false;
  return true;
}

}  // namespace warpsim::timing
