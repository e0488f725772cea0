#pragma once
// How many CTAs of a kernel fit on one SM at once, and what limits them: the
// rules of NVIDIA's occupancy calculator for compute capability 7.0 and
// later, written from the documented resource model (CUDA C++ Programming
// Guide, "Occupancy Calculator" and the compute-capability tables):
//  - threads: CTAs x warps-per-CTA x warp size <= max threads per SM;
//  - CTA slots: <= max CTAs per SM;
//  - registers: allocated per warp, regs-per-thread x warp size rounded up
//    to the allocation unit (256); the register file is split evenly among
//    the SM's 4 sub-partitions (one per warp scheduler) and a warp's
//    registers live in one of them, so each sub-partition holds
//    floor(regs_per_sm / 4 / regs-per-warp) warps; a CTA also needs its
//    registers within the per-CTA limit;
//  - shared memory: static + dynamic + the per-CTA reservation of the
//    runtime (1 KiB from CC 8.0), rounded up to the allocation unit, against
//    the shared memory the SM is configured with.
// The runtime uses this for cudaOccupancy*, cooperative-launch limits and
// launch validation; the timing model's CTA scheduler uses it for residency.
#include <cstdint>
#include <string_view>

namespace warpsim::functional {

// Per-SM resources (from the GPU configuration).
struct SmResources {
  uint32_t warp_size = 32;
  uint32_t max_threads_per_sm = 2048;
  uint32_t max_ctas_per_sm = 32;
  uint32_t max_threads_per_block = 1024;
  uint32_t regs_per_sm = 65536;
  uint32_t regs_per_block = 65536;
  uint32_t reg_alloc_unit = 256;  // registers, per warp
  uint32_t sub_partitions = 4;    // register file banks (warp schedulers) per SM
  uint64_t shared_per_sm = 228 << 10;           // usable by CTAs (the configured carveout)
  uint64_t shared_per_block_max = 227 << 10;    // per CTA, with opt-in
  uint64_t reserved_shared_per_block = 1 << 10;  // the runtime's own per-CTA reservation
  uint32_t shared_alloc_unit = 128;
};

// What one CTA of the kernel needs.
struct CtaFootprint {
  uint32_t threads = 0;         // threads per CTA
  uint32_t regs_per_thread = 0;
  uint64_t shared_bytes = 0;    // static + dynamic shared memory
};

// The resources a launch's occupancy is computed from, besides the CTA's
// shape: the SM's (with the kernel's carveout) and the kernel's registers.
struct LaunchResources {
  SmResources sm;
  uint32_t regs_per_thread = 0;
};

enum class OccupancyLimit : uint8_t { None, Threads, CtaSlots, Registers, SharedMemory, Invalid };
std::string_view to_string(OccupancyLimit l);

struct Occupancy {
  uint32_t ctas_per_sm = 0;  // 0: the CTA cannot run at all (see `limit`)
  OccupancyLimit limit = OccupancyLimit::None;  // the binding limit
  uint32_t by_threads = 0, by_ctas = 0, by_registers = 0, by_shared = 0;
  uint32_t warps_per_cta = 0;
  uint32_t regs_per_warp = 0;     // allocated, after rounding
  uint64_t shared_per_cta = 0;    // allocated, after rounding and reservation
  uint32_t active_warps() const { return ctas_per_sm * warps_per_cta; }
};

// ctas_per_sm is 0 with limit Registers when one CTA needs more registers
// than a CTA may have, SharedMemory when it needs more shared memory than
// the per-CTA maximum, and Invalid for an empty or oversized CTA.
Occupancy compute_occupancy(const SmResources& sm, const CtaFootprint& cta);

}  // namespace warpsim::functional
