// MemorySystem: builds the ports, network and partitions, and runs their
// clock domains.
#include "timing/memory/memory_system.h"

#include <algorithm>
#include <bit>

#include "common/invariant.h"
#include "timing/cluster/port_mechanism_registry.h"

namespace warpsim::timing {

using interconnect::Packet;
using interconnect::Subnet;

MemorySystem::MemorySystem(const SimConfig& config, const Mechanisms& mechanisms)
    : config_(config),
      mapping_(config.timing.partition.address_mapping()),
      sms_per_cluster_(config.timing.gpu.sms_per_cluster) {
  const TimingConfig& t = config_.timing;
  clocks_.period_ps[int(Domain::Core)] = ClockDomains::period_of(config_.gpu.core_clock);
  clocks_.period_ps[int(Domain::Interconnect)] = ClockDomains::period_of(t.network.clock_mhz);
  clocks_.period_ps[int(Domain::L2)] = ClockDomains::period_of(t.partition.l2_clock_mhz);
  // Loaded configs arrive resolved; one built in code may leave DRAM values
  // to the preset.
  dram_ = t.dram;
  const std::string dram_error = resolve_dram_config(dram_);
  WARPSIM_INVARIANT(dram_error.empty(), "the DRAM configuration was validated");
  clocks_.period_ps[int(Domain::Dram)] = ClockDomains::period_of(dram_.clock_mhz);
  const uint32_t clusters = config_.gpu.num_sms / sms_per_cluster_;
  const uint32_t slices = t.partition.partitions * t.partition.sub_partitions;
  // Nodes: the clusters' ports, then the L2 slices.
  const std::vector<interconnect::NodeRole> roles = network_roles(config_);
  WARPSIM_INVARIANT(roles.size() == clusters + slices, "network_roles numbers the clusters and the slices");
  network_ = interconnect::make_network(t.network, roles);
  WARPSIM_INVARIANT(network_ != nullptr, "the network topology was validated");
  net_ports_ = ActiveSet(clusters);
  net_slices_ = ActiveSet(slices);
  l2_wakeups_ = WakeupQueue(t.partition.partitions);
  dram_wakeups_ = WakeupQueue(t.partition.partitions);
  due_.reserve(t.partition.partitions);
  replies_to_cluster_.assign(clusters, 0);
  cluster_touch_.assign(clusters, ClusterTouch{});
  pool_ = RequestPool(clusters);
  requests_to_slice_.assign(slices, 0);
  ports_.reserve(clusters);
  for (uint32_t c = 0; c < clusters; ++c)
    ports_.emplace_back(c, c * sms_per_cluster_, sms_per_cluster_, t.cluster, pool_,
                        clocks_.period(Domain::Interconnect));
  for (uint32_t p = 0; p < t.partition.partitions; ++p) {
    partitions_.push_back(
        std::make_unique<MemoryPartition>(p, t.partition, t.l2, dram_, mapping_, clocks_, pool_));
    for (uint32_t s = 0; s < t.partition.sub_partitions; ++s) slices_.push_back(&partitions_.back()->slice(s));
  }
  // The configured mechanisms, then the ones handed in, in order.
  const std::vector<std::string> named = mechanism_list(t.cluster.mechanisms);
  for (uint32_t c = 0; c < clusters; ++c) {
    const PortContext context{c,
                              c * sms_per_cluster_,
                              sms_per_cluster_,
                              clocks_.period(Domain::Core),
                              clocks_.period(Domain::Interconnect),
                              &config_.timing.cluster.sections};
    for (const std::string& name : named) ports_[c].add_mechanism(port_mechanisms().make(name, context));
    for (const auto& make : mechanisms.cluster_port) ports_[c].add_mechanism(make(c));
  }
  for (uint32_t i = 0; i < slices; ++i)
    for (const auto& make : mechanisms.l2_slice) slices_[i]->add_mechanism(make(i));
  for (uint32_t p = 0; p < partitions_.size(); ++p)
    for (const auto& make : mechanisms.dram) partitions_[p]->dram().add_observer(make(p));
}

MemorySystem::~MemorySystem() = default;

uint32_t MemorySystem::l1_sector_bytes(MemKind kind) const {
  switch (kind) {
    case MemKind::Instruction: return config_.timing.l1i.sector_bytes;
    case MemKind::Constant: return config_.timing.constant.sector_bytes;
    default: return config_.timing.l1d.sector_bytes;
  }
}

bool MemorySystem::can_accept(uint32_t sm) const { return ports_[sm / sms_per_cluster_].can_accept(sm); }

void MemorySystem::send(const MemRequest& request, uint64_t now) {
  const uint64_t now_ps = clocks_.time(Domain::Core, now);
  const uint32_t cluster = request.sm / sms_per_cluster_;
  const uint32_t id = pool_.acquire(cluster);
  InFlight& r = pool_[id];
  r.request = request;
  r.sent_ps = now_ps;
  // The L2 line and sectors the request touches (the L1 level may use other
  // line and sector sizes; the configuration keeps L2 lines >= L1 lines).
  const uint32_t l2_line_bytes = config_.timing.l2.line_bytes;
  const uint32_t l2_sector = config_.timing.l2.sector_bytes;
  const uint32_t s1 = l1_sector_bytes(request.kind);
  r.l2_line = request.address & ~uint64_t{l2_line_bytes - 1};
  const uint64_t base = request.address - r.l2_line;
  uint32_t sectors = 0;
  for (uint32_t m = request.sector_mask; m != 0; m &= m - 1) {
    const uint64_t lo = base + uint64_t{static_cast<uint32_t>(std::countr_zero(m))} * s1;
    const uint64_t hi = std::min<uint64_t>(lo + s1, l2_line_bytes) - 1;
    for (uint64_t s = lo / l2_sector; s <= hi / l2_sector; ++s) sectors |= 1u << s;
  }
  r.l2_sectors = sectors != 0 ? sectors : 1u;
  r.where = mapping_.decode(r.l2_line);
  r.cluster = cluster;
  r.slice_node = clusters() + r.where.sub_partition;
  const uint32_t header = config_.timing.network.header_bytes;
  const bool data_out = request.kind == MemKind::Store || request.kind == MemKind::Atomic;
  const bool data_back = request.kind != MemKind::Store;
  r.request_bytes = header + (data_out ? request.bytes : 0);
  r.reply_bytes = header + (data_back ? request.bytes : 0);
  ports_[cluster].send(request.sm, id, now_ps);
  ClusterTouch& t = cluster_touch_[cluster];
  mark_touched();
  t.touched = t.sent = true;
  t.at_ps = now_ps;
}

bool MemorySystem::receive(uint32_t sm, uint64_t now, MemRequest& reply) {
  uint32_t id;
  const uint64_t now_ps = clocks_.time(Domain::Core, now);
  if (!ports_[sm / sms_per_cluster_].receive(sm, now, now_ps, id)) return false;
  const InFlight& r = pool_[id];
  ClusterTouch& t = cluster_touch_[r.cluster];
  mark_touched();
  t.touched = true;
  t.at_ps = now_ps;
  // Room in the response FIFO: a reply waiting in the network, or one a
  // port mechanism served, may move.
  if (replies_to_cluster_[r.cluster] != 0 || ports_[r.cluster].serving()) t.woke = true;
  reply = r.request;
  ++t.replies;
  t.round_trip_ps += now_ps - r.sent_ps;
  pool_.release(id);
  return true;
}

void MemorySystem::end_sm_phase(uint64_t /*now*/) { fold_sm_calls(); }

void MemorySystem::fold_sm_calls() {
  if (!any_touch()) return;
  any_touch_.store(false, std::memory_order_relaxed);
  for (uint32_t c = 0; c < cluster_touch_.size(); ++c) {
    ClusterTouch& t = cluster_touch_[c];
    if (!t.touched) continue;
    if (t.sent) net_ports_.add(c);
    if (t.sent || t.woke) wake(Domain::Interconnect, t.at_ps);
    replies_waiting_ -= t.replies;
    stats_.replies += t.replies;
    stats_.round_trip_ps += t.round_trip_ps;
    t = ClusterTouch{};
  }
}

void MemorySystem::tick_network(uint64_t now_ps) {
  interconnect::Network& net = *network_;
  const uint64_t cycle = now_ps / clocks_.period(Domain::Interconnect);
  if (net.cycle() < cycle) net.skip_to(cycle);
  for (uint32_t c : net_ports_.members()) {
    const ClusterPort::TickResult r = ports_[c].tick(now_ps, net);
    if (r.ejected) --replies_to_cluster_[c];
    replies_waiting_ += r.replies_ready;
    if (r.injected != kNoRequest) {
      const uint32_t s = pool_[r.injected].where.sub_partition;
      ++requests_to_slice_[s];
      net_slices_.add(s);
    }
  }
  const uint32_t first = clusters();
  const uint32_t per_partition = config_.timing.partition.sub_partitions;
  for (uint32_t i : net_slices_.members()) {
    L2Slice& s = *slices_[i];
    const uint32_t node = first + i;
    // One request from the network into the slice, one reply out of it.
    if (requests_to_slice_[i] != 0 && s.can_accept() && net.has_delivery(Subnet::Request, node)) {
      Packet p;
      net.eject(Subnet::Request, node, p);
      --requests_to_slice_[i];
      s.accept(static_cast<uint32_t>(p.payload), now_ps);
      l2_wakeups_.schedule(i / per_partition, s.next_work(now_ps));
    }
    if (s.reply_ready(now_ps)) {
      const uint32_t id = s.reply_front();
      const InFlight& r = pool_[id];
      if (net.can_inject(Subnet::Reply, node, r.reply_bytes)) {
        Packet p;
        p.src = node;
        p.dst = r.cluster;
        p.bytes = r.reply_bytes;
        p.payload = id;
        p.created = std::min(cycle, s.reply_time() / clocks_.period(Domain::Interconnect));
        net.inject(Subnet::Reply, node, p);
        s.reply_pop();
        ++replies_to_cluster_[r.cluster];
        net_ports_.add(r.cluster);
      } else {
        ++stats_.icnt2sh_stall_cycles;
        net.count_blocked(Subnet::Reply, node);
      }
    }
  }
  net.tick();
  net_ports_.prune(
      [&](uint32_t c) { return ports_[c].sending() || ports_[c].serving() || replies_to_cluster_[c] != 0; });
  net_slices_.prune(
      [&](uint32_t i) { return requests_to_slice_[i] != 0 || slices_[i]->reply_time() != UINT64_MAX; });
  next_[int(Domain::Interconnect)] = next_network_work(now_ps + clocks_.period(Domain::Interconnect));
}

void MemorySystem::tick_l2(uint64_t now_ps) {
  const uint32_t per_partition = config_.timing.partition.sub_partitions;
  const uint64_t later = now_ps + clocks_.period(Domain::L2);
  l2_wakeups_.pop_due(now_ps, due_);
  for (uint32_t p : due_) {
    MemoryPartition& part = *partitions_[p];
    part.tick_l2(now_ps);
    for (uint32_t k = 0; k < per_partition; ++k) {
      const L2Slice& s = part.slice(k);
      if (s.reply_time() != UINT64_MAX) {
        net_slices_.add(p * per_partition + k);
        wake(Domain::Interconnect, s.reply_time());
      }
      if (s.dram_op_time() != UINT64_MAX) dram_wakeups_.schedule(p, s.dram_op_time());
    }
    const uint64_t t = part.next_l2_work(later);
    if (t != UINT64_MAX) l2_wakeups_.schedule(p, t);
  }
}

void MemorySystem::tick_dram(uint64_t now_ps) {
  const uint64_t later = now_ps + clocks_.period(Domain::Dram);
  dram_wakeups_.pop_due(now_ps, due_);
  for (uint32_t p : due_) {
    MemoryPartition& part = *partitions_[p];
    part.tick_dram(now_ps);
    const uint64_t fill = part.next_l2_work(now_ps);
    if (fill != UINT64_MAX) l2_wakeups_.schedule(p, fill);
    const uint64_t t = part.next_dram_work(later);
    if (t != UINT64_MAX) dram_wakeups_.schedule(p, t);
  }
}

uint64_t MemorySystem::next_network_work(uint64_t now_ps) const {
  const interconnect::Network& net = *network_;
  uint64_t t = UINT64_MAX;
  const uint64_t e = net.next_event();
  if (e != UINT64_MAX) t = std::max(now_ps, clocks_.time(Domain::Interconnect, e));
  for (uint32_t c : net_ports_.members())
    if ((t = std::min(t, ports_[c].next_work(now_ps, net))) <= now_ps) return now_ps;
  const uint32_t first = clusters();
  for (uint32_t i : net_slices_.members()) {
    const L2Slice& s = *slices_[i];
    if (s.reply_time() != UINT64_MAX) t = std::min(t, std::max(now_ps, s.reply_time()));
    if (t <= now_ps) return now_ps;
    if (requests_to_slice_[i] != 0 && s.can_accept() && net.has_delivery(Subnet::Request, first + i))
      return now_ps;
  }
  return t;
}

uint64_t MemorySystem::next_work(Domain d) const {
  uint64_t t = UINT64_MAX;
  switch (d) {
    case Domain::Interconnect: t = next_[int(d)]; break;
    case Domain::L2: t = l2_wakeups_.next(); break;
    case Domain::Dram: t = dram_wakeups_.next(); break;
    case Domain::Core: break;
  }
  if (t == UINT64_MAX) return t;
  const uint64_t from = next_edge_[int(d)];
  return clocks_.edge_at_or_after(d, std::max(t, from));
}

void MemorySystem::advance(uint64_t now) {
  const uint64_t target = clocks_.time(Domain::Core, now);
  fold_sm_calls();  // for a driver that calls no end_sm_phase
  constexpr Domain kOrder[] = {Domain::Dram, Domain::L2, Domain::Interconnect};
  run_edges(kOrder, target);
  // Domains with nothing to do up to here never look back before `target`.
  for (Domain d : kOrder) next_edge_[int(d)] = std::max(next_edge_[int(d)], clocks_.edge_at_or_after(d, target));
}

void MemorySystem::advance_ahead(uint64_t now) {
  // The SMs' calls reach the DRAM and L2 edges only through the network, and
  // the first network edge they can reach is the next one; the DRAM and L2
  // edges up to it (those at its time come first) are as they will be.
  const uint64_t network = clocks_.edge_at_or_after(Domain::Interconnect, next_edge_[int(Domain::Interconnect)]);
  const uint64_t target = std::min(clocks_.time(Domain::Core, now + 1), network + 1);
  constexpr Domain kOrder[] = {Domain::Dram, Domain::L2};
  run_edges(kOrder, target);
}

void MemorySystem::run_edges(std::span<const Domain> order, uint64_t before_ps) {
  for (;;) {
    uint64_t when[kDomains];
    uint64_t t = UINT64_MAX;
    for (Domain d : order) {
      when[int(d)] = next_work(d);
      t = std::min(t, when[int(d)]);
    }
    if (t == UINT64_MAX || t >= before_ps) break;
    for (Domain d : order) {
      if (when[int(d)] != t) continue;
      switch (d) {
        case Domain::Dram: tick_dram(t); break;
        case Domain::L2: tick_l2(t); break;
        case Domain::Interconnect: tick_network(t); break;
        case Domain::Core: break;
      }
      next_edge_[int(d)] = t + clocks_.period(d);
    }
  }
}

uint64_t MemorySystem::next_event(uint64_t now) const {
  if (replies_waiting_ != 0 || any_touch()) return now + 1;
  uint64_t t = UINT64_MAX;
  for (Domain d : {Domain::Dram, Domain::L2, Domain::Interconnect}) t = std::min(t, next_work(d));
  if (t == UINT64_MAX) return t;
  // advance(c) runs the edges before c's start: an edge at t runs in the
  // first core cycle that starts after it.
  return std::max(now + 1, t / clocks_.period(Domain::Core) + 1);
}

bool MemorySystem::idle() const {
  if (pool_.in_use() != 0 || !network_->idle() || any_touch()) return false;
  for (const auto& p : partitions_)
    if (!p->idle()) return false;
  return true;
}

void MemorySystem::begin_launch(uint64_t now) {
  for (ClusterPort& p : ports_) p.begin_launch(clocks_.time(Domain::Core, now));
}

MemorySystem::L2Lines MemorySystem::l2_lines() const {
  L2Lines l;
  for (const auto& p : partitions_)
    for (uint32_t i = 0; i < p->slices(); ++i) {
      l.in_use += p->slice(i).cache().lines_in_use();
      l.total += p->slice(i).cache().lines();
      l.allocated += p->slice(i).cache().allocations();
    }
  return l;
}

MemoryActivity MemorySystem::activity() const {
  MemoryActivity m;
  m.clocks = clocks_;
  m.clusters = clusters();
  m.system = stats_;
  for (const ClusterPort& p : ports_) {
    cluster_port_stats_table().add(m.ports, p.stats());
    p.add_mechanism_counters(m.port_mechanisms);
  }
  m.partitions.resize(partitions_.size());
  for (size_t i = 0; i < partitions_.size(); ++i) {
    const MemoryPartition& part = *partitions_[i];
    PartitionActivity& a = m.partitions[i];
    for (uint32_t k = 0; k < part.slices(); ++k) {
      cache_stats_table().add(a.l2, part.slice(k).cache().counters());
      l2_slice_stats_table().add(a.slices, part.slice(k).stats());
    }
    a.dram = part.dram().stats();
  }
  for (int s = 0; s < interconnect::kSubnets; ++s) {
    for (uint32_t n = 0; n < network_->nodes(); ++n) m.nodes[s].push_back(network_->stats(Subnet(s), n));
    m.network[s] = network_->activity(Subnet(s));
  }
  for (size_t r = 0; r < network_->routers(); ++r) m.routers.push_back(network_->router_activity(r));
  sum_totals(m);
  return m;
}

}  // namespace warpsim::timing
