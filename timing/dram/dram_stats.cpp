// The DRAM channel's statistics table (GPGPU-Sim's names for its headline
// figures: total_dram_reads, Row_Buffer_Locality, bw_util, ...).
#include "timing/dram/dram_channel.h"

namespace warpsim::timing {
namespace {

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / b : 0.0; }

}  // namespace

const stats::StatTable<DramStats, DramScope>& dram_stats_table() {
  static const stats::StatTable<DramStats, DramScope> table = [] {
    using D = DramStats;
    using V = stats::FormulaValue;
    stats::StatTable<D, DramScope> t("The DRAM channels (summed over the channels)");
    t.counter("reads", &D::reads, "requests",
              "reads completed (one per L2 miss or atomic fetch, of any number of sectors)")
        .headline("total_dram_reads")
        .per_instance();
    t.counter("writes", &D::writes, "requests", "writes issued (write-backs, write-through forwards)")
        .headline("total_dram_writes")
        .per_instance();
    t.counter("read_bytes", &D::read_bytes, "B", "data moved by the reads");
    t.counter("write_bytes", &D::write_bytes, "B", "data moved by the writes");
    t.counter("activates", &D::activates, "commands", "ACT commands issued");
    t.counter("precharges", &D::precharges, "commands", "PRE commands issued");
    t.counter("row_buffer_hits", &D::row_hits, "requests", "requests whose RD/WR needed no ACT").per_instance();
    t.counter("row_buffer_misses", &D::row_misses, "requests",
              "requests that needed an ACT (bank closed or another row open)")
        .per_instance();
    t.counter("row_buffer_conflicts", &D::row_conflicts, "requests",
              "of the misses, those that also needed a PRE");
    t.counter("read_latency", &D::read_latency, "DRAM cycles",
              "summed over reads: from arrival in the channel queue to the last data beat");
    t.counter("write_latency", &D::write_latency, "DRAM cycles",
              "summed over writes: from arrival in the channel queue to the WR command");
    t.maximum("max_read_latency", &D::max_read_latency, "DRAM cycles", "the largest read latency, over all channels");
    t.counter("data_bus_busy_cycles", &D::data_bus_busy, "DRAM cycles", "cycles a channel's data bus carried data");
    t.counter("cycles", &D::cycles, "DRAM cycles", "cycles from a channel's first request to its last tick");
    t.counter("busy_bank_cycles", &D::busy_bank_cycles, "bank-cycles",
              "busy banks summed over cycles (a bank is busy with a request queued or a RD/WR in service)");
    t.counter("busy_cycles", &D::busy_cycles, "DRAM cycles", "cycles with at least one busy bank");
    t.counter("queue_full_cycles", &D::queue_full_cycles, "DRAM cycles",
              "cycles a partition had an operation ready but its channel's queue was full");
    t.counter("open_row_cycles", &D::open_row_cycles, "DRAM cycles",
              "cycles with at least one bank's row open (active standby, for the energy model's background "
              "power), from a channel's first request to its last tick");
    t.formula("row_buffer_locality", "fraction", "row-buffer hits / (hits + misses)",
              [](const D& d, const DramScope&) -> V { return ratio(d.row_hits, d.row_hits + d.row_misses); })
        .headline("Row_Buffer_Locality");
    t.formula("bank_level_parallelism", "banks",
              "busy banks per channel over its cycles with at least one busy bank (channels weighted by those "
              "cycles)",
              [](const D& d, const DramScope&) -> V { return ratio(d.busy_bank_cycles, d.busy_cycles); })
        .headline("Bank_Level_Parallism");  // GPGPU-Sim's spelling
    t.formula("bw_util", "fraction", "data-bus cycles carrying data / (launch DRAM cycles x channels)",
              [](const D& d, const DramScope& s) -> V {
                return ratio(d.data_bus_busy, s.launch_ps / s.period_ps * s.channels);
              })
        .headline("bw_util");
    t.formula("bandwidth_GBps", "GB/s", "bytes read and written / launch time",
              [](const D& d, const DramScope& s) -> V {
                return s.launch_ps ? static_cast<double>(d.read_bytes + d.write_bytes) * 1000.0 / s.launch_ps : 0.0;
              });
    t.formula("avg_read_latency", "DRAM cycles", "read_latency / reads",
              [](const D& d, const DramScope&) -> V { return ratio(d.read_latency, d.reads); });
    return t;
  }();
  return table;
}

}  // namespace warpsim::timing
