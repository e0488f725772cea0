#pragma once
// What an SM's L1 level talks to: the memory below L1.
//
// timing::MemRequest is the one record that travels below L1: a line
// address with a sector mask, a kind, the requesting SM and a token the SM
// uses to match the reply. LowerMemory is the interface the memory below L1
// implements: the memory system (memory_system.h: cluster ports,
// interconnect, L2 slices, DRAM) or the fixed-latency model
// (placeholder_memory.h). Every request gets exactly one reply (stores and
// atomics too: the write acknowledgement that fences wait for).
//
// Threads: in a core cycle the SMs' calls (can_accept, send, receive) for
// SMs of different clusters (`timing.sms_per_cluster` consecutive SMs) may
// come from different host threads at once; the calls for one cluster come
// from one thread, in SM order. end_sm_phase() then follows on one thread,
// and only it makes the cycle's calls visible to the rest of the memory
// (next_event, advance), so the result does not depend on the threads. One
// more thread may run advance_ahead() meanwhile.
#include <cstdint>

namespace warpsim::timing {

enum class MemKind : uint8_t { Load, Store, Atomic, Instruction, Constant };

// Local memory sits in its own region of L1 addresses (each SM lays out its
// warps' local memory there), above every global address.
inline constexpr uint64_t kLocalL1Base = 0xff00'0000'0000'0000ull;

struct MemRequest {
  uint64_t address = 0;      // line-aligned
  uint32_t sector_mask = 0;  // sectors of the line
  uint32_t bytes = 0;        // data bytes the request (store) or its reply (load) carries
  MemKind kind = MemKind::Load;
  uint32_t sm = 0;
  uint32_t token = 0;        // the requester's id, returned with the reply
  uint64_t sent = 0;         // core cycle it left the SM
  uint32_t parts = 0;        // the warp access behind it: bit k = it read or wrote the line's k-th 1/32 (0: unknown)
};

// A load of global memory (not local, not an instruction or constant fetch).
inline bool is_global_load(const MemRequest& r) { return r.kind == MemKind::Load && r.address < kLocalL1Base; }

class LowerMemory {
 public:
  virtual ~LowerMemory() = default;
  // Whether SM `sm` may send a request this cycle (false: back-pressure).
  virtual bool can_accept(uint32_t sm) const = 0;
  virtual void send(const MemRequest& request, uint64_t now) = 0;
  // The next reply for SM `sm` that has arrived by `now`; false when none.
  virtual bool receive(uint32_t sm, uint64_t now, MemRequest& reply) = 0;
  // The earliest cycle after `now` at which a reply arrives (UINT64_MAX: none
  // in flight), so the GPU can skip idle cycles.
  virtual uint64_t next_event(uint64_t now) const = 0;
  virtual bool idle() const = 0;
  // Runs the memory's own clocks up to the start of core cycle `now`
  // (called once per simulated core cycle, before the SMs; a model that
  // computes its timing at send() needs nothing here).
  virtual void advance(uint64_t /*now*/) {}
  // The SMs' calls of core cycle `now` are over (see Threads above).
  virtual void end_sm_phase(uint64_t /*now*/) {}
  // Runs the part of advance(now + 1) that nothing the SMs do in cycle `now`
  // can change, on the calling thread, at the same time as the SMs' calls of
  // cycle `now` (it must touch none of the state those calls touch). It may
  // also run before them or after them: the results are the same.
  virtual void advance_ahead(uint64_t /*now*/) {}
};

}  // namespace warpsim::timing
