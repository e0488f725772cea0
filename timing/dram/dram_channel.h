#pragma once
// One DRAM channel (the DRAM behind one memory partition): banks in bank
// groups, an open-page row buffer per bank, the command timing of the
// [timing.dram] section, a request queue and a scheduler chosen by name.
//
// Time is the DRAM command clock: tick(now) is called with increasing `now`,
// once per command cycle or less often: the caller skips cycles when
// next_event() says nothing can happen before then, and tick() accounts the
// skipped cycles in the statistics itself. At most one command (ACT, PRE, RD, WR)
// issues per cycle. A read or write moves ceil(bytes / burst_bytes) bursts,
// each occupying the data bus for burst_length / data_rate command cycles.
// Reads complete when their last data beat has transferred (issue of the
// RD + tCL + bus time); writes need no completion (fire and forget once
// accepted) but hold the bus and the bank (tWR, tWTR) like on hardware.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/stat_table.h"
#include "timing/dram/dram_config.h"

namespace warpsim::timing {

struct DramRequest {
  uint32_t bank = 0;     // 0 .. banks-1
  uint32_t row = 0;
  uint32_t column = 0;   // in bytes within the row (for ordering; not timed)
  uint32_t bytes = 0;    // data moved, > 0
  bool write = false;
  uint32_t id = 0;       // the caller's id, returned when a read completes
  uint64_t arrival = 0;  // set by push(): the command cycle it entered the queue
};

struct DramStats {
  uint64_t reads = 0, writes = 0;           // requests completed (reads) / issued (writes)
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t activates = 0, precharges = 0;
  uint64_t row_hits = 0;                    // requests served from an already-open row
  uint64_t row_misses = 0;                  // requests that needed an ACT (row empty or conflict)
  uint64_t row_conflicts = 0;               // of row_misses: another row was open (needed a PRE)
  uint64_t read_latency = 0;                // sum over reads: completion - arrival (command cycles)
  uint64_t write_latency = 0;               // sum over writes: WR issue - arrival
  uint64_t max_read_latency = 0;
  uint64_t data_bus_busy = 0;               // command cycles the data bus carried data
  uint64_t cycles = 0;                      // command cycles from the first request to the last tick
  uint64_t busy_bank_cycles = 0;            // sum over cycles of banks with a request queued or in service
  uint64_t busy_cycles = 0;                 // cycles with at least one such bank (BLP = busy_bank_cycles / busy_cycles)
  uint64_t queue_full_cycles = 0;           // cycles can_accept() was false when asked (count_full)
  uint64_t open_row_cycles = 0;             // cycles with at least one bank's row open (active standby)
};

// What the DRAM formulas need besides the counters.
struct DramScope {
  uint64_t launch_ps = 0;  // the launch's duration
  uint64_t period_ps = 1;  // the DRAM command clock
  uint64_t channels = 0;   // the channels the counters are summed over
};

// Published summed over the channels at "timing.dram" (with GPGPU-Sim's
// names for the headline figures), and per memory partition at
// "timing.partition.N.dram" for the rows marked per instance. Table:
// dram_stats.cpp.
const stats::StatTable<DramStats, DramScope>& dram_stats_table();

class DramObserver;

class DramChannel {
 public:
  explicit DramChannel(const DramConfig& config);  // config already resolved
  ~DramChannel();
  // Told about every arrival and command (dram_observer.h), in the order added.
  void add_observer(std::unique_ptr<DramObserver> observer);
  DramChannel(const DramChannel&) = delete;
  DramChannel& operator=(const DramChannel&) = delete;

  bool can_accept() const;
  void push(const DramRequest& request, uint64_t now);
  // One command cycle: the scheduler picks at most one command to issue.
  void tick(uint64_t now);
  // Pops a read whose data has fully arrived by `now` (in completion order).
  bool pop_completed(uint64_t now, DramRequest& out);
  // Earliest command cycle > now at which tick() may issue a command or a
  // read completes; UINT64_MAX when the channel holds nothing.
  uint64_t next_event(uint64_t now) const;
  bool idle() const;
  // The caller found the queue full this cycle.
  void count_full() { ++stats_.queue_full_cycles; }
  const DramStats& stats() const { return stats_; }
  const DramConfig& config() const { return config_; }

 private:
  struct State;  // banks, queue, scheduler: dram_channel.cpp
  DramConfig config_;
  DramStats stats_;
  std::unique_ptr<State> state_;
};

}  // namespace warpsim::timing
