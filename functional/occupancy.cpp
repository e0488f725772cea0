#include "functional/occupancy.h"

#include <algorithm>

namespace warpsim::functional {

std::string_view to_string(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::None: return "none";
    case OccupancyLimit::Threads: return "threads";
    case OccupancyLimit::CtaSlots: return "CTA slots";
    case OccupancyLimit::Registers: return "registers";
    case OccupancyLimit::SharedMemory: return "shared memory";
    case OccupancyLimit::Invalid: return "invalid CTA";
  }
  return "?";
}

namespace {

uint64_t round_up(uint64_t v, uint64_t unit) { return unit ? (v + unit - 1) / unit * unit : v; }

}  // namespace

Occupancy compute_occupancy(const SmResources& sm, const CtaFootprint& cta) {
  Occupancy o;
  if (cta.threads == 0 || cta.threads > sm.max_threads_per_block || sm.warp_size == 0) {
    o.limit = OccupancyLimit::Invalid;
    return o;
  }
  o.warps_per_cta = (cta.threads + sm.warp_size - 1) / sm.warp_size;

  o.by_threads = sm.max_threads_per_sm / (o.warps_per_cta * sm.warp_size);
  o.by_ctas = sm.max_ctas_per_sm;

  // Registers: per warp, rounded to the allocation unit; warps are placed in
  // the sub-partitions' register banks. The per-CTA limit is checked as if
  // the CTA's warps filled every sub-partition evenly (its warp count
  // rounded up to a multiple of the partitions).
  o.regs_per_warp = static_cast<uint32_t>(
      round_up(uint64_t{cta.regs_per_thread} * sm.warp_size, sm.reg_alloc_unit));
  const uint32_t parts = std::max<uint32_t>(sm.sub_partitions, 1);
  if (o.regs_per_warp == 0) {
    o.by_registers = o.by_ctas;  // no registers: no register limit
  } else if (uint64_t{o.regs_per_warp} * round_up(o.warps_per_cta, parts) > sm.regs_per_block) {
    o.by_registers = 0;
  } else {
    const uint32_t warps = (sm.regs_per_sm / parts / o.regs_per_warp) * parts;
    o.by_registers = warps / o.warps_per_cta;
  }

  // Shared memory, with the runtime's reservation per CTA.
  o.shared_per_cta =
      round_up(cta.shared_bytes + sm.reserved_shared_per_block, sm.shared_alloc_unit);
  if (cta.shared_bytes > sm.shared_per_block_max)
    o.by_shared = 0;
  else if (o.shared_per_cta == 0)
    o.by_shared = o.by_ctas;
  else
    o.by_shared = static_cast<uint32_t>(std::min<uint64_t>(sm.shared_per_sm / o.shared_per_cta,
                                                           UINT32_MAX));

  // The binding limit: the smallest; ties go to the first in this order.
  struct Candidate {
    uint32_t value;
    OccupancyLimit limit;
  };
  const Candidate all[] = {{o.by_threads, OccupancyLimit::Threads},
                           {o.by_ctas, OccupancyLimit::CtaSlots},
                           {o.by_registers, OccupancyLimit::Registers},
                           {o.by_shared, OccupancyLimit::SharedMemory}};
  Candidate best = all[0];
  for (const Candidate& c : all)
    if (c.value < best.value) best = c;
  o.ctas_per_sm = best.value;
  o.limit = best.limit;
  return o;
}

}  // namespace warpsim::functional
