#pragma once
// The requests in flight below L1, by id. A request travels through the
// cluster port, the network and the L2 slice as its id (the network's
// opaque packet payload, the L2 MSHR token); the record here holds what the
// components need. Ids are reused through a free list: the pool grows to the
// largest number in flight once, then never allocates again.
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/invariant.h"

#include "timing/memory/address_mapping.h"
#include "timing/memory/lower_memory.h"

namespace warpsim::timing {

inline constexpr uint32_t kNoRequest = UINT32_MAX;

struct InFlight {
  MemRequest request;      // as the SM sent it (returned with the reply)
  uint64_t l2_line = 0;    // the L2 line holding the request
  uint32_t l2_sectors = 0; // the L2 sectors it touches
  DecodedAddress where;    // partition, slice, bank, row
  uint64_t sent_ps = 0;    // when the SM sent it (latency statistics)
  uint32_t cluster = 0;    // the requesting SM's cluster (its network node)
  uint32_t slice_node = 0; // the L2 slice's network node
  uint32_t request_bytes = 0, reply_bytes = 0;  // packet sizes on the wire
  // Requests that wait for this one's reply (a cluster-port mechanism merged
  // them into it): a chain through the pool, delivered with it.
  uint32_t next_waiter = kNoRequest;
};

// One part per cluster: a cluster's SMs acquire and release ids only from
// their own part, so the SMs of different clusters may send and take replies
// on different host threads (parallel timing simulation, docs/timing.md).
// An id names its part in its low bits. A record never moves once made (a
// part grows by whole blocks, each twice the last): the L2 slices read the
// records of their requests while the SMs of the same cycle acquire new ones
// (LowerMemory::advance_ahead).
class RequestPool {
 public:
  explicit RequestPool(uint32_t parts = 1) : parts_(parts) {
    while ((1u << shift_) < parts) ++shift_;
    mask_ = (1u << shift_) - 1;
  }
  // A fresh record (every field at its default), from `part`.
  uint32_t acquire(uint32_t part = 0) {
    Part& p = parts_[part];
    if (p.free.empty()) {
      WARPSIM_INVARIANT(p.made < (size_t{kNoRequest} >> shift_), "request ids fit in 32 bits");
      const uint32_t index = p.made++;
      const uint32_t b = block_of(index);
      if (!p.blocks[b]) p.blocks[b] = std::make_unique<InFlight[]>(size_t{kFirstBlock} << b);
      return index << shift_ | part;
    }
    const uint32_t id = p.free.back();
    p.free.pop_back();
    (*this)[id] = InFlight{};
    return id;
  }
  void release(uint32_t id) { parts_[id & mask_].free.push_back(id); }
  InFlight& operator[](uint32_t id) { return parts_[id & mask_].at(id >> shift_); }
  const InFlight& operator[](uint32_t id) const { return parts_[id & mask_].at(id >> shift_); }
  uint32_t in_use() const {
    size_t n = 0;
    for (const Part& p : parts_) n += p.made - p.free.size();
    return static_cast<uint32_t>(n);
  }

 private:
  static constexpr uint32_t kFirstBlock = 64;  // records in block 0; block b holds 64 << b
  static constexpr uint32_t kBlocks = 27;      // 64 * (2^27 - 1) >= 2^32 records
  // The block holding record `index`: blocks 0..b-1 hold 64 * (2^b - 1).
  static uint32_t block_of(uint32_t index) {
    return static_cast<uint32_t>(std::bit_width(uint64_t{index} / kFirstBlock + 1)) - 1;
  }
  struct alignas(64) Part {  // a cache line of its own: parts are used by different threads
    std::unique_ptr<InFlight[]> blocks[kBlocks];
    uint32_t made = 0;  // records handed out at least once
    std::vector<uint32_t> free;
    InFlight& at(uint32_t index) const {
      const uint32_t b = block_of(index);
      return blocks[b][index - kFirstBlock * ((uint32_t{1} << b) - 1)];
    }
  };
  std::vector<Part> parts_;
  uint32_t shift_ = 0, mask_ = 0;
};

}  // namespace warpsim::timing
