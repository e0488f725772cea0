// The caches' statistics table: one for every sectored cache (L1 data,
// instruction and constant caches, L2 slices); GPGPU-Sim's names for the
// headline figures.
#include "timing/cache/sectored_cache.h"

namespace warpsim::timing {

const stats::StatTable<CacheCounters>& cache_stats_table() {
  static const stats::StatTable<CacheCounters> table = [] {
    using C = CacheCounters;
    stats::StatTable<C> t("A sectored cache (tag store, MSHRs)");
    t.counter("read_accesses", &C::read_accesses, "accesses",
              "reads that reached the tag store (hits, pending hits and misses; not refused attempts)");
    t.counter("read_hits", &C::read_hits, "accesses", "reads with every sector valid");
    t.counter("read_hit_reserved", &C::read_hit_reserved, "accesses",
              "reads merged into a miss in flight (an MSHR already fetching their sectors)")
        .headline("{}_total_cache_pending_hits");
    t.counter("read_misses", &C::read_misses, "accesses", "reads that fetch sectors from the next level");
    t.counter("reservation_fails", &C::reservation_fails, "attempts",
              "access attempts refused for lack of an MSHR, merge slot, line or miss-queue place (each retry counts)")
        .headline("{}_total_cache_reservation_fails");
    t.counter("write_accesses", &C::write_accesses, "accesses", "writes");
    t.counter("write_hits", &C::write_hits, "accesses", "writes with every sector valid");
    t.counter("write_misses", &C::write_misses, "accesses", "writes without every sector valid");
    t.counter("writebacks", &C::writebacks, "lines", "dirty lines evicted and written to the next level");
    t.counter("evictions", &C::evictions, "lines", "allocated lines replaced to make room");
    t.counter("sector_misses", &C::sector_misses, "accesses",
              "misses whose line was present with other sectors valid");
    t.sum("accesses", {"read_accesses", "write_accesses"}, "accesses", "reads and writes")
        .headline("{}_total_cache_accesses")
        .per_instance();
    t.sum("misses", {"read_misses", "write_misses"}, "accesses", "read and write misses")
        .headline("{}_total_cache_misses")
        .per_instance();
    t.run_ratio("miss_rate", "{}_total_cache_misses", "{}_total_cache_accesses", "fraction",
                "misses / accesses over the run")
        .headline("{}_total_cache_miss_rate");
    return t;
  }();
  return table;
}

}  // namespace warpsim::timing
