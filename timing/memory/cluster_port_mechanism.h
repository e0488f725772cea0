#pragma once
// Mechanisms at a cluster's network port: what sits between the SMs of a
// cluster and the network (Wang et al., IEEE TC 2019: a merge table that
// coalesces the cluster's read misses to one line, a coalesced cache for
// lines several SMs want).
//
// A mechanism sees every request an SM of the cluster sends, when the
// intra-cluster bus moves it toward the injection buffer, and decides:
//   forward  it goes into the network as usual (from `ready_ps`, when the
//            mechanism's lookup takes time: the latest of the mechanisms'
//            times counts, as their lookups run in parallel);
//   merge    it waits for the reply of a request already in flight from this
//            port (`into`): the reply is delivered to every waiting SM in the
//            same core cycle (a broadcast on the cluster's response path);
//   serve    the mechanism answers it here: its reply enters the response
//            FIFO at `ready_ps` without crossing the network.
// Mechanisms are asked in order; the first that does not forward decides,
// and the later ones do not see that request. Every mechanism sees every
// reply that leaves the network for this port (on_reply), before it is
// delivered.
//
// Contract: `into` is a request this port forwarded whose reply on_reply has
// not yet reported, and that asks for at least the merged request's sectors
// of the same line (the mechanism checks what it merges: the port delivers
// the reply as it is). A served request's reply carries what the mechanism
// holds for it; data are functional, so only the timing is the mechanism's.
// Decisions must depend only on what the mechanism saw (deterministic).
//
// Registered mechanisms (port_mechanisms.def) are chosen by name in
// [timing.cluster] mechanisms, read their own section
// [timing.cluster.<name>] and publish their counters (counters()) at
// timing.cluster.<name>, summed over the clusters.
#include <cstdint>
#include <optional>

#include "timing/memory/mechanism_counters.h"
#include "timing/memory/request_pool.h"

namespace warpsim::timing {

struct PortDecision {
  enum class Kind : uint8_t { Forward, Merge, Serve };
  Kind kind = Kind::Forward;
  uint32_t into = kNoRequest;  // Merge: the request whose reply this one waits for
  uint64_t ready_ps = 0;       // Serve: when its reply enters the response FIFO; Forward: when it may
                               // enter the injection buffer (0: at once)

  static PortDecision forward(uint64_t ready_ps = 0) { return {Kind::Forward, kNoRequest, ready_ps}; }
  static PortDecision merge(uint32_t into) { return {Kind::Merge, into, 0}; }
  static PortDecision serve(uint64_t ready_ps) { return {Kind::Serve, kNoRequest, ready_ps}; }
};

class ClusterPortMechanism {
 public:
  virtual ~ClusterPortMechanism() = default;
  // Request `id` (pool record `r`) leaves the intra-cluster bus at now_ps.
  virtual PortDecision on_request(uint32_t id, const InFlight& r, uint64_t now_ps) = 0;
  // The reply of request `id` left the network into the response FIFO (its
  // merged waiters follow it).
  virtual void on_reply(uint32_t /*id*/, const InFlight& /*r*/, uint64_t /*now_ps*/) {}
  // A kernel launch begins (state kept across launches may be dropped here).
  virtual void on_launch(uint64_t /*now_ps*/) {}
  // Its counters so far (none: nullopt), published summed over the clusters.
  virtual std::optional<MechanismCounters> counters() const { return std::nullopt; }
};

}  // namespace warpsim::timing
