#pragma once
// Observers of a DRAM channel: they see every request that enters the
// channel's queue and every command the scheduler issues, with its bank, row
// and cycle (a per-bank energy account, a row-locality study, a trace).
// They cannot change what the channel does; schedulers do that
// (dram_scheduler.h).
#include <cstdint>

#include "timing/dram/dram_channel.h"
#include "timing/dram/dram_scheduler.h"

namespace warpsim::timing {

class DramObserver {
 public:
  virtual ~DramObserver() = default;
  // `request` entered the queue at command cycle `now`.
  virtual void on_arrival(const DramRequest& /*request*/, uint64_t /*now*/) {}
  // `command` issued at cycle `now` for `request` (RD/WR: the request leaves
  // the queue).
  virtual void on_command(DramCommand command, const DramRequest& request, uint64_t now) = 0;
};

}  // namespace warpsim::timing
