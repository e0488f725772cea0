#pragma once
// The requests in flight below L1, by id. A request travels through the
// cluster port, the network and the L2 slice as its id (the network's
// opaque packet payload, the L2 MSHR token); the record here holds what the
// components need. Ids are reused through a free list: the pool grows to the
// largest number in flight once, then never allocates again.
#include <cstdint>
#include <vector>

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

class RequestPool {
 public:
  // A fresh record (every field at its default).
  uint32_t acquire() {
    if (free_.empty()) {
      items_.emplace_back();
      return static_cast<uint32_t>(items_.size() - 1);
    }
    const uint32_t id = free_.back();
    free_.pop_back();
    items_[id] = InFlight{};
    return id;
  }
  void release(uint32_t id) { free_.push_back(id); }
  InFlight& operator[](uint32_t id) { return items_[id]; }
  const InFlight& operator[](uint32_t id) const { return items_[id]; }
  uint32_t in_use() const { return static_cast<uint32_t>(items_.size() - free_.size()); }

 private:
  std::vector<InFlight> items_;
  std::vector<uint32_t> free_;
};

}  // namespace warpsim::timing
