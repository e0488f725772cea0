// One DRAM channel: banks with open-page row buffers, the command timing of
// [timing.dram], a bounded request queue and a scheduling policy
// (dram_scheduler.h), plus the scheduler registry.
//
// The model, in command cycles (one command of any kind per cycle):
//   State. Per bank: the open row (or none) and the earliest cycle for its
//   next ACT, PRE and column command (RD/WR). Per bank group: the earliest
//   column command the group's last column command allows, and the write
//   data end + tWTR bound for reads. Channel: the earliest next ACT (tRRD),
//   the data bus free cycle, last write data end + tCDLR for reads, and the
//   earliest write after a read (tRTW).
//   A request's next command: RD/WR if its bank's open row is its row, PRE if
//   another row is open, ACT if none (open-page: rows stay open until a
//   conflicting request needs a PRE).
//   ACT at t: the row opens; RD/WR to the bank >= t + tRCD; PRE >= t + tRAS;
//     next ACT to the bank >= t + tRC; next ACT to any bank >= t + tRRD.
//   PRE at t: the bank closes; its next ACT >= t + tRP (and the tRC bound).
//   RD at t, k = ceil(bytes / burst_bytes) bursts, B = k * burst_cycles:
//     t >= the bank's column bound; t >= (last column command c, with its own
//     k_c) c + max(tCCDL, B_c) in the same bank group, c + max(tCCD, B_c) in
//     another; t >= last write data end + tCDLR (any group) and + tWTR (same
//     group); data occupies the bus over [t + tCL, t + tCL + B), which must
//     start at or after every earlier transfer has ended. The read completes
//     at t + tCL + B. Then PRE to the bank >= t + tRTP; any WR >= t + tRTW.
//   WR at t: the same column and bank-group bounds; t >= the tRTW bound; data
//     over [t + tWL, d = t + tWL + B), after earlier transfers; PRE to the
//     bank >= d + tWR; reads after it see d through tCDLR / tWTR.
//   A request leaves the queue when its RD/WR issues.
//
// Statistics. Row hits/misses/conflicts are counted per request at its column
// command: a hit when no ACT was issued on its behalf, else a miss, and a
// conflict when a PRE was issued for it too. A bank is busy in a cycle when it
// has a queued request or a RD/WR of it is in service (issued, data not yet
// fully transferred); busy_bank_cycles sums busy banks over cycles, and
// busy_cycles counts cycles with at least one (BLP = their ratio). Cycles are
// counted from the first push to the last tick; a cycle is accounted with the
// state at its start (before that cycle's command), so cycles that tick()
// skipped are accounted exactly as if ticked: nothing changes in between.
// data_bus_busy adds each RD/WR's B at issue (the bus carries every issued
// transfer; one still in flight after the last tick is included). Reads are
// counted when popped, with latency completion - arrival; writes at issue,
// with latency issue - arrival.
//
// Speed: per tick the work is one pass over the queue (<= config.queue) plus
// one over the banks for the statistics; nothing allocates after
// construction except the completed-read buffer, which doubles when a caller
// leaves more reads unpopped than it ever did before.
#include "timing/dram/dram_channel.h"

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>

#include "common/invariant.h"
#include "timing/dram/dram_observer.h"
#include "timing/dram/dram_scheduler.h"

namespace warpsim::timing {

// ---------------------------------------------------------------------------
// The channel. DramChannel forwards to State, which holds everything that
// changes; the configuration (config_) stays immutable beside it, so the
// mutable state is one plain struct that can be inspected and compared.

namespace {

uint64_t minus_floor(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

struct DramChannel::State {
  struct Bank {
    bool open = false;
    uint32_t row = 0;
    uint32_t group = 0;
    uint64_t act_ready = 0;    // tRC, tRP
    uint64_t pre_ready = 0;    // tRAS, tRTP, tWR
    uint64_t col_ready = 0;    // tRCD
    uint64_t service_end = 0;  // data end of its last RD/WR
    uint32_t queued = 0;       // requests in the queue for this bank
    uint32_t open_hits = 0;    // of those, requests to the open row
    uint64_t rank_stamp = 0;   // build_candidates scratch: which build `rank` belongs to
    uint32_t rank = 0;         // older requests to this bank seen so far in that build
  };
  struct Group {
    uint64_t col_ready = 0;   // tCCD / tCCDL and burst spacing after earlier column commands
    uint64_t read_ready = 0;  // last write data end in this group + tWTR
  };
  struct Entry {
    DramRequest request;
    bool activated = false;   // an ACT was issued on its behalf
    bool precharged = false;  // a PRE was issued on its behalf
  };
  struct Completion {
    DramRequest request;
    uint64_t done = 0;
  };

  State(const DramConfig& c, DramStats& s);
  void account_until(uint64_t end);
  size_t build_candidates();
  void issue(size_t index, uint64_t now);
  void issue_column(size_t index, uint64_t now);
  void push_completed(const DramRequest& request, uint64_t done);

  const DramConfig& config;
  DramStats& stats;
  std::unique_ptr<DramScheduler> scheduler;
  std::vector<std::unique_ptr<DramObserver>> observers;
  std::vector<Bank> banks;
  std::vector<Group> groups;
  std::vector<Entry> queue;               // arrival order; capacity config.queue
  std::vector<DramCandidate> candidates;  // scratch, one per queued request
  uint64_t build_stamp = 0;

  // Reads issued and not yet popped, in completion order (a ring buffer).
  std::vector<Completion> completed;
  size_t completed_head = 0;
  size_t completed_size = 0;

  uint64_t act_ready_any = 0;   // last ACT + tRRD
  uint64_t bus_free = 0;        // end of the last data transfer
  uint64_t read_ready_any = 0;  // last write data end + tCDLR
  uint64_t write_ready = 0;     // last RD + tRTW

  bool started = false;         // a request has been pushed
  uint64_t next_account = 0;    // first cycle not yet in the statistics
  bool ticked = false;
  uint64_t last_tick = 0;
};

DramChannel::State::State(const DramConfig& c, DramStats& s) : config(c), stats(s) {
  scheduler = dram_schedulers().make(c.scheduler, c);
  banks.resize(c.banks);
  const uint32_t per_group = c.banks / c.bank_groups;
  for (uint32_t b = 0; b < c.banks; ++b) banks[b].group = b / per_group;
  groups.resize(c.bank_groups);
  queue.reserve(c.queue);
  candidates.resize(c.queue);
  completed.resize(std::max<size_t>(size_t{c.queue} * 2, 8));
}

// Adds cycles [next_account, end) to the statistics with the current state.
void DramChannel::State::account_until(uint64_t end) {
  if (!started || end <= next_account) return;
  const uint64_t first = next_account;
  const uint64_t n = end - first;
  next_account = end;
  stats.cycles += n;
  // Cycles of [first, end) before `until`.
  auto before = [&](uint64_t until) { return until > first ? std::min(until, end) - first : 0; };
  uint64_t last_service = 0;
  bool open = false;
  for (const Bank& bank : banks) {
    stats.busy_bank_cycles += bank.queued > 0 ? n : before(bank.service_end);
    last_service = std::max(last_service, bank.service_end);
    open |= bank.open;
  }
  if (open) stats.open_row_cycles += n;
  stats.busy_cycles += queue.empty() ? before(last_service) : n;
}

// Fills `candidates` for the queued requests; returns how many.
size_t DramChannel::State::build_candidates() {
  ++build_stamp;
  const size_t n = queue.size();
  for (size_t i = 0; i < n; ++i) {
    const DramRequest& r = queue[i].request;
    Bank& bank = banks[r.bank];
    if (bank.rank_stamp != build_stamp) {
      bank.rank_stamp = build_stamp;
      bank.rank = 0;
    }
    DramCandidate& cand = candidates[i];
    cand.bank = r.bank;
    cand.bank_rank = bank.rank++;
    cand.open_row_wanted = bank.open_hits > 0;
    if (!bank.open) {
      cand.command = DramCommand::Activate;
      cand.ready = std::max(bank.act_ready, act_ready_any);
    } else if (bank.row != r.row) {
      cand.command = DramCommand::Precharge;
      cand.ready = bank.pre_ready;
    } else {
      const Group& g = groups[bank.group];
      const uint64_t column = std::max(bank.col_ready, g.col_ready);
      if (r.write) {
        cand.command = DramCommand::Write;
        cand.ready = std::max({column, write_ready, minus_floor(bus_free, config.tWL)});
      } else {
        cand.command = DramCommand::Read;
        cand.ready =
            std::max({column, read_ready_any, g.read_ready, minus_floor(bus_free, config.tCL)});
      }
    }
  }
  return n;
}

void DramChannel::State::issue(size_t index, uint64_t now) {
  Entry& e = queue[index];
  Bank& bank = banks[e.request.bank];
  for (auto& o : observers) o->on_command(candidates[index].command, e.request, now);
  switch (candidates[index].command) {
    case DramCommand::Activate:
      bank.open = true;
      bank.row = e.request.row;
      bank.col_ready = now + config.tRCD;
      bank.pre_ready = std::max(bank.pre_ready, now + config.tRAS);
      bank.act_ready = std::max(bank.act_ready, now + config.tRC);
      act_ready_any = now + config.tRRD;
      bank.open_hits = 0;
      for (const Entry& q : queue)
        if (q.request.bank == e.request.bank && q.request.row == bank.row) ++bank.open_hits;
      e.activated = true;
      ++stats.activates;
      return;
    case DramCommand::Precharge:
      bank.open = false;
      bank.open_hits = 0;
      bank.act_ready = std::max(bank.act_ready, now + config.tRP);
      e.precharged = true;
      ++stats.precharges;
      return;
    case DramCommand::Read:
    case DramCommand::Write:
      issue_column(index, now);
      return;
  }
}

void DramChannel::State::issue_column(size_t index, uint64_t now) {
  const Entry e = queue[index];
  const DramRequest& r = e.request;
  Bank& bank = banks[r.bank];
  const uint64_t bursts = (r.bytes + config.burst_bytes() - 1) / config.burst_bytes();
  const uint64_t bus_time = bursts * config.burst_cycles();
  const uint64_t start = now + (r.write ? config.tWL : config.tCL);
  const uint64_t end = start + bus_time;
  WARPSIM_INVARIANT(start >= bus_free, "DRAM data transfers overlap on the bus");
  bus_free = end;
  bank.service_end = std::max(bank.service_end, end);
  stats.data_bus_busy += bus_time;

  // Spacing for later column commands: tCCDL in this bank group, tCCD in the
  // others, and never closer than this command's own bus time.
  for (uint32_t g = 0; g < config.bank_groups; ++g) {
    const uint64_t gap = std::max<uint64_t>(g == bank.group ? config.tCCDL : config.tCCD, bus_time);
    groups[g].col_ready = std::max(groups[g].col_ready, now + gap);
  }
  if (r.write) {
    bank.pre_ready = std::max(bank.pre_ready, end + config.tWR);
    read_ready_any = std::max(read_ready_any, end + config.tCDLR);
    Group& group = groups[bank.group];
    group.read_ready = std::max(group.read_ready, end + config.tWTR);
    ++stats.writes;
    stats.write_bytes += r.bytes;
    stats.write_latency += now - r.arrival;
  } else {
    bank.pre_ready = std::max(bank.pre_ready, now + config.tRTP);
    write_ready = std::max(write_ready, now + config.tRTW);
    push_completed(r, end);
  }

  if (!e.activated) {
    ++stats.row_hits;
  } else {
    ++stats.row_misses;
    if (e.precharged) ++stats.row_conflicts;
  }
  WARPSIM_INVARIANT(bank.queued > 0 && bank.open_hits > 0,
                    "a column command's request is queued and hits the open row");
  --bank.queued;
  --bank.open_hits;
  queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(index));
}

void DramChannel::State::push_completed(const DramRequest& request, uint64_t done) {
  if (completed_size == completed.size()) {
    // Unroll the ring into one twice as large (only when the caller leaves
    // more reads unpopped than ever before).
    std::vector<Completion> grown(completed.size() * 2);
    for (size_t i = 0; i < completed_size; ++i)
      grown[i] = completed[(completed_head + i) % completed.size()];
    completed = std::move(grown);
    completed_head = 0;
  }
  completed[(completed_head + completed_size) % completed.size()] = {request, done};
  ++completed_size;
}

DramChannel::DramChannel(const DramConfig& config) : config_(config) {
  WARPSIM_INVARIANT(config.banks > 0 && config.bank_groups > 0 &&
                        config.banks % config.bank_groups == 0,
                    "DRAM banks must split evenly into bank groups (resolve_dram_config)");
  WARPSIM_INVARIANT(config.bus_width > 0 && config.burst_length > 0 && config.data_rate > 0,
                    "DRAM burst geometry must be resolved (resolve_dram_config)");
  WARPSIM_INVARIANT(config.queue > 0, "the DRAM queue must hold at least one request");
  // State refers to config_ and stats_, which live as long as this channel
  // (it is neither copyable nor movable).
  state_ = std::make_unique<State>(config_, stats_);
}

DramChannel::~DramChannel() = default;

void DramChannel::add_observer(std::unique_ptr<DramObserver> observer) {
  state_->observers.push_back(std::move(observer));
}

bool DramChannel::can_accept() const { return state_->queue.size() < config_.queue; }

bool DramChannel::idle() const { return state_->queue.empty() && state_->completed_size == 0; }

void DramChannel::push(const DramRequest& request, uint64_t now) {
  State& s = *state_;
  WARPSIM_INVARIANT(can_accept(), "push into a full DRAM queue (check can_accept)");
  WARPSIM_INVARIANT(request.bank < config_.banks, "DRAM request bank out of range");
  WARPSIM_INVARIANT(request.bytes > 0, "a DRAM request moves data");
  WARPSIM_INVARIANT(!s.ticked || now >= s.last_tick, "DRAM push before the last tick");
  if (!s.started) {
    s.started = true;
    s.next_account = now;
  }
  // Cycles before `now` were spent without this request.
  s.account_until(now);
  State::Entry e;
  e.request = request;
  e.request.arrival = now;
  s.queue.push_back(e);
  for (auto& o : s.observers) o->on_arrival(e.request, now);
  State::Bank& bank = s.banks[request.bank];
  ++bank.queued;
  if (bank.open && bank.row == request.row) ++bank.open_hits;
}

void DramChannel::tick(uint64_t now) {
  State& s = *state_;
  WARPSIM_INVARIANT(!s.ticked || now > s.last_tick, "DRAM tick times must increase");
  s.ticked = true;
  s.last_tick = now;
  s.account_until(now + 1);
  if (s.queue.empty()) return;
  const size_t n = s.build_candidates();
  const int pick = s.scheduler->pick(std::span<const DramCandidate>(s.candidates.data(), n), now);
  if (pick < 0) return;
  WARPSIM_INVARIANT(static_cast<size_t>(pick) < n && s.candidates[size_t(pick)].ready <= now,
                    "the DRAM scheduler picked a command that cannot issue now");
  s.issue(static_cast<size_t>(pick), now);
}

bool DramChannel::pop_completed(uint64_t now, DramRequest& out) {
  State& s = *state_;
  if (s.completed_size == 0) return false;
  const State::Completion& c = s.completed[s.completed_head];
  if (c.done > now) return false;
  out = c.request;
  const uint64_t latency = c.done - c.request.arrival;
  ++stats_.reads;
  stats_.read_bytes += c.request.bytes;
  stats_.read_latency += latency;
  stats_.max_read_latency = std::max(stats_.max_read_latency, latency);
  s.completed_head = (s.completed_head + 1) % s.completed.size();
  --s.completed_size;
  return true;
}

uint64_t DramChannel::next_event(uint64_t now) const {
  State& s = *state_;  // build_candidates writes only scratch
  uint64_t next = UINT64_MAX;
  if (s.completed_size > 0) {
    // Completion order: the first is the earliest. A read already complete
    // but not popped keeps the caller ticking until it takes it.
    next = std::max(s.completed[s.completed_head].done, now + 1);
  }
  if (!s.queue.empty()) {
    const size_t n = s.build_candidates();
    next = std::min(
        next, s.scheduler->next_issue(std::span<const DramCandidate>(s.candidates.data(), n), now));
  }
  return next;
}

}  // namespace warpsim::timing
