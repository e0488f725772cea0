// The [timing.*] configuration tables.
#include "timing/timing_config.h"

#include "timing/sm/warp_policy.h"

#include <algorithm>
#include <bit>

namespace warpsim::timing {

TimingConfig::TimingConfig() {
  // The built-in GPU is H100-like: 256 KB of L1/shared per SM, of which a
  // 128 KB L1 here; the L1 instruction and constant cache shapes and the
  // L1 hit latency (~33 cycles, as Hopper microbenchmark studies report)
  // are warpsim's estimates. Configs for specific GPUs cite their sources.
  // Thread-block clusters go to GPCs of 17 SMs: the H100 SXM5's 132 SMs
  // spread over its 8 GPCs (NVIDIA's H100 whitepaper, 2022).
  gpu.sms_per_gpc = 17;
  l1d.size = 128 * 1024;
  l1d.ways = 4;
  l1d.write_policy = WritePolicy::WriteThrough;
  l1d.mshr_entries = 256;
  l1d.mshr_max_merge = 8;
  l1d.miss_queue = 16;
  l1d.hit_latency = 33;
  // Not sectored: an instruction miss fills its whole 128 B line (8
  // instructions), as in Accel-Sim's configurations of Volta to Hopper
  // (their L1I is "N", non-sectored). With 32 B sectors every second
  // instruction of straight-line code would wait for the L2.
  l1i.size = 128 * 1024;
  l1i.sector_bytes = 128;
  l1i.ways = 16;
  l1i.mshr_entries = 8;
  l1i.mshr_max_merge = 16;
  l1i.hit_latency = 1;
  constant.size = 64 * 1024;
  constant.ways = 8;
  constant.line_bytes = 64;
  constant.sector_bytes = 64;
  constant.mshr_entries = 4;
  constant.mshr_max_merge = 8;
  constant.hit_latency = 4;
  // H100: 50 MB of L2 in 80 slices of 640 KB (one per HBM3 pseudo-channel
  // here), 128 B lines of 32 B sectors, write-back. 16-way and the MSHR
  // sizes are warpsim's estimates.
  l2.size = 640 * 1024;
  l2.ways = 16;
  l2.write_policy = WritePolicy::WriteBack;
  l2.allocate_on = AllocateOn::Miss;
  l2.mshr_entries = 64;
  l2.mshr_max_merge = 8;
  l2.miss_queue = 0;
  l2.hit_latency = 30;
  // DRAM: the hbm3 preset (80 x 8 B x 2 x 2619 MHz = 3.35 TB/s, the H100
  // SXM5 figure); network and L2 at the core clock (memory_system_config.h).
}


const config::Table<GpuTimingConfig>& gpu_timing_config_table() {
  static const config::Table<GpuTimingConfig> table = [] {
    using G = GpuTimingConfig;
    config::Table<G> t("Timing model, GPU level: clusters of SMs and CTA scheduling");
    t.integer("sms_per_cluster", &G::sms_per_cluster, "SMs",
              "SMs per cluster (sharing one network port); gpu.num_sms must be a multiple")
        .range(1, 64);
    t.integer("sms_per_gpc", &G::sms_per_gpc, "SMs",
              "SMs per GPC: all CTAs of a thread-block cluster are placed at once on the SMs of one "
              "group of this many consecutive SMs (the last group may be smaller); 0: one group of all")
        .range(0, 1024);
    t.string("cta_policy", &G::cta_policy,
             "CTA scheduling policy (the five of Wang et al., IEEE TC 2019; timing/cta/cta_policies.def)")
        .one_of(cta_policies());
    t.integer("cta_block_size", &G::cta_block_size, "CTAs",
              "distributed-block: consecutive CTAs an SM receives at once")
        .range(1, 64);
    t.boolean("cta_block_partial_tail", &G::cta_block_partial_tail,
              "distributed-block: a pool's last CTAs (fewer than a block) launch as a smaller block");
    t.integer("cta_issue_per_cluster", &G::cta_issue_per_cluster, "CTAs/cycle",
              "CTAs one cluster may receive per core cycle (GPGPU-Sim: 1)")
        .range(1, 64);
    t.boolean("cta_trace", &G::cta_trace,
              "record every CTA -> SM placement (timing.launch.N.cta_trace in the statistics)");
    t.boolean("skip_idle_cycles", &G::skip_idle_cycles,
              "jump over cycles in which no SM can act (never changes results; off: tick every cycle)");
    t.integer("threads", &G::threads, "threads",
              "host threads that tick the SMs of each cycle, for kernels whose CTAs cannot act on one another "
              "(results are the same at every count); 0: this machine's cores, at most 16")
        .range(0, 256);
    t.integer("max_cycles", &G::max_cycles, "cycles",
              "stop a launch that runs longer (LaunchTimeout); 0: unlimited");
    t.boolean("sample", &G::sample,
              "sampled simulation: simulate each launch until its IPC is steady, finish it in the functional "
              "executor and extrapolate its cycles from the instructions left (warpsim run --sample)");
    t.integer("sample_window", &G::sample_window, "cycles", "sampled simulation: cycles per IPC window")
        .range(10, uint64_t{1} << 32);
    t.integer("sample_windows", &G::sample_windows, "windows",
              "sampled simulation: windows per block; the launch stops when the IPCs of the last two "
              "blocks agree")
        .range(2, 64);
    t.real("sample_tolerance", &G::sample_tolerance, "",
           "sampled simulation: the largest difference of the two blocks' IPCs (timing.sample), or of the "
           "last two simulated launches' (timing.sample_launches), as a fraction of their mean; also the "
           "share of a block's L2 allocations taking free lines above which the L2 counts as filling")
        .range(0.0001, 1.0);
    t.integer("sample_warmup", &G::sample_warmup, "cycles",
              "sampled simulation: cycles at a launch's start that never count as a window (cold caches)");
    t.integer("sample_last_wave", &G::sample_last_wave, "windows",
              "sampled simulation: a launch's last wave (all of a one-wave launch) may stop too, no earlier than "
              "this many windows into it, once the IPCs of its windows n/2..3n/4 and 3n/4..n agree (n a power "
              "of two); each SM's pace over n/2..n extrapolates the rest; 0: the last wave is simulated in full")
        .range(0, 1u << 20);
    t.integer("sample_ctas", &G::sample_ctas, "CTAs",
              "scale-model sampling: about 1 in N CTAs of a launch run in timing mode on a GPU of 1/N the SMs "
              "and memory partitions, the rest in the functional executor (warpsim run --sample-ctas N); "
              "gpu.num_sms must be a multiple of N; 1: off")
        .range(1, 64);
    t.integer("sample_launches", &G::sample_launches, "launches",
              "launch-level sampling: once the last two simulated launches of a shape (kernel, grid, block) "
              "ran at IPCs within sample_tolerance, run the next ones in the functional executor at that IPC, "
              "1, 2, 4, ... up to this many in a row between simulated ones (warpsim run --sample-launches K); "
              "0: off")
        .range(0, 1u << 20);
    return t;
  }();
  return table;
}

const config::Table<SmConfig>& sm_config_table() {
  static const config::Table<SmConfig> table = [] {
    using S = SmConfig;
    config::Table<S> t("Timing model: SM front end (fetch, decode, warp scheduling, scoreboard)");
    t.integer("schedulers", &S::schedulers, "", "warp schedulers per SM; warp w belongs to w % schedulers")
        .range(1, 8);
    t.string("warp_policy", &S::warp_policy,
             "warp scheduling policy (timing/sm/warp_policies.def): loose round-robin, greedy-then-oldest, "
             "two-level (active pool), oldest-first")
        .one_of(warp_policies());
    t.integer("two_level_active", &S::two_level_active, "warps",
              "two-level: warps in each scheduler's active pool")
        .range(1, 64);
    t.integer("ibuffer_entries", &S::ibuffer_entries, "instructions",
              "decoded instructions buffered per warp")
        .range(1, 8);
    t.integer("fetch_per_cycle", &S::fetch_per_cycle, "warps", "warps the fetch stage serves per cycle")
        .range(1, 8);
    t.integer("issue_interval", &S::issue_interval, "cycles",
              "cycles from one issue of a scheduler to its next: 2 where a scheduler's lanes are half a warp "
              "wide at the SM clock (Fermi's 16-lane groups at the 1401 MHz shader clock)")
        .range(1, 8);
    t.integer("decode_latency", &S::decode_latency, "cycles",
              "cycles from an L1I hit to the instruction buffer")
        .range(0, 64);
    t.integer("scoreboard_entries", &S::scoreboard_entries, "registers",
              "pending register writes per warp; a warp with all in use cannot issue")
        .range(1, 256);
    t.boolean("operand_collector", &S::operand_collector,
              "model register-bank conflicts: sources in one bank take one extra cycle each");
    t.integer("register_banks", &S::register_banks, "banks", "register file banks (operand collector)")
        .range(1, 32);
    t.integer("instruction_bytes", &S::instruction_bytes, "B",
              "bytes per instruction as the L1I sees them")
        .range(1, 64);
    return t;
  }();
  return table;
}

const config::Table<UnitConfig>& unit_config_table() {
  static const config::Table<UnitConfig> table = [] {
    using U = UnitConfig;
    config::Table<U> t("Timing model: execution units of one SM scheduler (latency, initiation interval, count)");
    auto unit = [&t](const char* name, const char* what, uint32_t U::*lat, uint32_t U::*ii,
                     uint32_t U::*n) {
      t.integer(std::string(name) + "_latency", lat, "cycles", std::string(what) + ": result latency")
          .range(1, 10000);
      t.integer(std::string(name) + "_interval", ii, "cycles",
                std::string(what) + ": cycles before the unit accepts the next instruction")
          .range(1, 1000);
      t.integer(std::string(name) + "_units", n, "", std::string(what) + ": units per scheduler")
          .range(1, 16);
    };
    unit("sp", "fp32/fp16 arithmetic", &U::sp_latency, &U::sp_interval, &U::sp_units);
    unit("int", "integer, logic, moves, conversions", &U::int_latency, &U::int_interval, &U::int_units);
    unit("dp", "fp64 arithmetic", &U::dp_latency, &U::dp_interval, &U::dp_units);
    unit("sfu", "transcendentals, division, remainder", &U::sfu_latency, &U::sfu_interval, &U::sfu_units);
    unit("tensor", "tensor-core mma/wmma", &U::tensor_latency, &U::tensor_interval, &U::tensor_units);
    unit("branch", "control flow, barriers, votes", &U::branch_latency, &U::branch_interval,
         &U::branch_units);
    return t;
  }();
  return table;
}

const config::Table<CacheConfig>& cache_config_table() {
  static const config::Table<CacheConfig> table = [] {
    using C = CacheConfig;
    config::Table<C> t(
        "A sectored cache: of one SM ([timing.l1d], [timing.l1i], [timing.constant]; core cycles) or one "
        "L2 slice ([timing.l2]; L2 cycles, a hit latency of at least 1); defaults shown are the generic "
        "ones, `warpsim config show` prints each cache's own");
    t.bytes("size", &C::size, "capacity").range(256, 1ull << 30);
    t.integer("line_bytes", &C::line_bytes, "B", "line size").range(16, 4096);
    t.integer("sector_bytes", &C::sector_bytes, "B", "sector size (line_bytes for an unsectored cache)")
        .range(4, 4096);
    t.integer("ways", &C::ways, "", "associativity").range(1, 128);
    t.enumeration("replacement", &C::replacement, {{"lru", Replacement::Lru}, {"fifo", Replacement::Fifo}},
                  "replacement policy");
    t.enumeration("write_policy", &C::write_policy,
                  {{"write-evict", WritePolicy::WriteEvict},
                   {"write-through", WritePolicy::WriteThrough},
                   {"write-back", WritePolicy::WriteBack}},
                  "what a store does to the cache");
    t.enumeration("allocate_on", &C::allocate_on,
                  {{"miss", AllocateOn::Miss}, {"fill", AllocateOn::Fill}},
                  "when a missing line gets its place: at the miss, or when the data returns");
    t.enumeration("set_index", &C::set_index,
                  {{"linear", SetIndex::Linear}, {"fermi-hash", SetIndex::FermiHash}},
                  "how a line's address picks its set: the line number modulo the set count, or the hash "
                  "of Fermi's L1 (Nugteren et al., HPCA 2014; 128-byte lines, 32 or 64 sets)");
    t.integer("mshr_entries", &C::mshr_entries, "entries", "miss status holding registers").range(1, 4096);
    t.integer("mshr_max_merge", &C::mshr_max_merge, "requests",
              "requests one MSHR entry holds (the first included)")
        .range(1, 256);
    t.integer("miss_queue", &C::miss_queue, "requests",
              "new misses waiting to be sent below; 0: unlimited")
        .range(0, 4096);
    t.integer("hit_latency", &C::hit_latency, "cycles", "cycles from access to data on a hit")
        .range(0, 10000);
    t.check("line_bytes and sector_bytes are powers of two, sector_bytes divides line_bytes into at most 32 sectors",
            [](const C& c, config::Checker& r) {
              if (!std::has_single_bit(c.line_bytes) || !std::has_single_bit(c.sector_bytes) ||
                  c.sector_bytes > c.line_bytes || c.line_bytes / c.sector_bytes > 32)
                r.error({"sector_bytes", "line_bytes"},
                        "must be powers of two with sector_bytes dividing line_bytes into 1 to 32 sectors");
            });
    t.check("fermi-hash indexes 32 or 64 sets of 128-byte lines", [](const C& c, config::Checker& r) {
      const uint64_t sets = c.size / (uint64_t{c.line_bytes} * c.ways);
      if (c.set_index == SetIndex::FermiHash && (c.line_bytes != 128 || (sets != 32 && sets != 64)))
        r.error({"set_index", "size", "ways", "line_bytes"},
                "fermi-hash needs 128-byte lines and 32 or 64 sets (size / (line_bytes * ways))");
    });
    t.check("size is a whole number of sets (line_bytes * ways)", [](const C& c, config::Checker& r) {
      const uint64_t per_set = uint64_t{c.line_bytes} * c.ways;
      if (c.size % per_set != 0 || c.size < per_set)
        r.error({"size", "ways", "line_bytes"},
                "size must be a whole number of sets of line_bytes * ways bytes");
    });
    return t;
  }();
  return table;
}

const config::Table<SharedMemoryConfig>& shared_memory_config_table() {
  static const config::Table<SharedMemoryConfig> table = [] {
    using S = SharedMemoryConfig;
    config::Table<S> t("Timing model: shared memory banks of one SM");
    t.integer("banks", &S::banks, "banks", "shared-memory banks").range(1, 64);
    t.integer("bank_width", &S::bank_width, "B", "bytes per bank per cycle")
        .range(1, 64)
        .check("a power of two", [](const config::Value& v) {
          return std::has_single_bit(static_cast<uint64_t>(std::get<int64_t>(v))) ? ""
                                                                                  : "must be a power of two";
        });
    t.integer("latency", &S::latency, "cycles", "latency of a conflict-free access").range(1, 10000);
    t.integer("cluster_latency", &S::cluster_latency, "cycles",
              "latency of an access to the shared memory of another CTA of the thread-block cluster "
              "(distributed shared memory, over the SM-to-SM network)")
        .range(1, 100000);
    return t;
  }();
  return table;
}

const config::Table<LdstConfig>& ldst_config_table() {
  static const config::Table<LdstConfig> table = [] {
    using L = LdstConfig;
    config::Table<L> t("Timing model: LD/ST unit paths");
    t.boolean("cache_global_loads", &L::cache_global_loads,
              "global loads allocate in L1 (false: they bypass it, like -dlcm=cg; ld.global.nc, ldu and texture fetches still use L1)");
    t.boolean("cache_local", &L::cache_local, "local memory goes through L1 (write-back there)");
    t.integer("param_latency", &L::param_latency, "cycles", "ld.param of kernel parameters (constant bank)")
        .range(1, 10000);
    t.integer("atomic_latency", &L::atomic_latency, "cycles",
              "added to the memory's reply latency for atomics and reductions")
        .range(0, 10000);
    return t;
  }();
  return table;
}

const config::Table<FixedLatencyMemoryConfig>& fixed_latency_memory_config_table() {
  static const config::Table<FixedLatencyMemoryConfig> table = [] {
    using M = FixedLatencyMemoryConfig;
    config::Table<M> t("Timing model: the memory below L1, and the fixed-latency model's parameters");
    t.enumeration("model", &M::model,
                  {{"memory-system", MemoryModel::MemorySystem}, {"fixed-latency", MemoryModel::FixedLatency}},
                  "memory-system: cluster ports, interconnect, L2 slices and DRAM ([timing.cluster], "
                  "[interconnect], [timing.partition], [timing.l2], [timing.dram]); fixed-latency: the "
                  "keys below (for studies of the SM alone)");
    t.integer("latency", &M::latency, "cycles", "core cycles from a request to its reply").range(1, 100000);
    t.integer("bytes_per_cycle", &M::bytes_per_cycle, "B/cycle",
              "per SM: request and reply bytes the memory port moves per core cycle")
        .range(1, 4096);
    t.integer("queue", &M::queue, "requests", "requests in flight per SM before the port refuses more")
        .range(1, 65536);
    return t;
  }();
  return table;
}

void add_timing_sections(config::Schema& schema, TimingConfig& c) {
  schema.add("timing", gpu_timing_config_table(), c.gpu);
  schema.add("timing.sm", sm_config_table(), c.sm);
  schema.add("timing.units", unit_config_table(), c.units);
  schema.add("timing.l1d", cache_config_table(), c.l1d);
  schema.add("timing.l1i", cache_config_table(), c.l1i);
  schema.add("timing.constant", cache_config_table(), c.constant);
  schema.add("timing.shared", shared_memory_config_table(), c.shared);
  schema.add("timing.ldst", ldst_config_table(), c.ldst);
  schema.add("timing.memory", fixed_latency_memory_config_table(), c.memory);
  schema.add("timing.cluster", cluster_port_config_table(), c.cluster);
  c.cluster.sections.bind(schema, "timing.cluster");  // [timing.cluster.<mechanism>]
  schema.add("interconnect", interconnect::network_config_table(), c.network);
  c.network.topologies.bind(schema, "interconnect");  // [interconnect.<topology>]
  schema.add("interconnect.router", interconnect::router_config_table(), c.network.router);
  schema.add("interconnect.area", interconnect::area_config_table(), c.network.area);
  schema.add("timing.partition", partition_config_table(), c.partition);
  schema.add("timing.l2", cache_config_table(), c.l2);
  schema.add("timing.dram", dram_config_table(), c.dram);
}

}  // namespace warpsim::timing
