// The [timing.cluster] and [timing.partition] tables.
#include "timing/memory/memory_system_config.h"

#include "timing/cluster/port_mechanism_registry.h"

namespace warpsim::timing {

const config::Table<ClusterPortConfig>& cluster_port_config_table() {
  static const config::Table<ClusterPortConfig> table = [] {
    using C = ClusterPortConfig;
    config::Table<C> t(
        "Timing model: the network port shared by the SMs of a cluster (Wang et al., IEEE TC 2019, "
        "sec. 2.2)");
    t.integer("sm_queue", &C::sm_queue, "requests",
              "per SM: requests waiting for the intra-cluster bus (one moves per interconnect cycle, "
              "round-robin over the SMs)")
        .range(1, 1024);
    t.integer("inject_buffer", &C::inject_buffer, "packets",
              "shared injection buffer; one packet enters the network per interconnect cycle")
        .range(1, 1024);
    t.integer("response_fifo", &C::response_fifo, "packets",
              "shared response FIFO; one packet leaves the network per interconnect cycle, one reply "
              "reaches its SM per core cycle")
        .range(1, 1024);
    t.string("mechanisms", &C::mechanisms,
             "cluster-port mechanisms, comma-separated, asked in this order about every request (each has "
             "its section [timing.cluster.<name>]; \"\" or \"none\": none): " +
                 port_mechanisms().described())
        .check("registered names, each once", [](const config::Value& v) {
          return check_mechanism_list(std::get<std::string>(v));
        });
    return t;
  }();
  return table;
}

const config::Table<PartitionConfig>& partition_config_table() {
  static const config::Table<PartitionConfig> table = [] {
    using P = PartitionConfig;
    config::Table<P> t(
        "Timing model: memory partitions (one DRAM channel each) and their sub-partitions (one L2 slice "
        "and network node each); address mapping");
    t.integer("partitions", &P::partitions, "partitions", "memory partitions = DRAM channels").range(1, 1024);
    t.integer("sub_partitions", &P::sub_partitions, "slices",
              "L2 slices per partition; a request's slice is its DRAM bank % sub_partitions")
        .range(1, 16);
    t.bytes("interleave_bytes", &P::interleave_bytes,
            "partition interleaving granularity when the mapping has no D bits")
        .range(32, 1 << 30);
    t.enumeration("hash", &P::hash,
                  {{"none", PartitionHash::None}, {"xor", PartitionHash::Xor}, {"ipoly", PartitionHash::Ipoly}},
                  "partition index hashing: none, xor (fold higher address bits in), ipoly (GF(2) "
                  "polynomial modulus; power-of-two partition counts 2 to 64)");
    t.string("mapping", &P::mapping,
             "partition-local address bits, most significant first (GPGPU-Sim -gpgpu_mem_addr_mapping style): "
             "R row, B bank, C column, D partition, S or 0 byte offset, '.' ignored");
    t.clock_mhz("l2_clock_mhz", &P::l2_clock_mhz, "L2 slice clock").range(1.0, 100000.0);
    t.integer("rop_latency", &P::rop_latency, "L2 cycles",
              "from a request's arrival at the slice to its L2 access (GPGPU-Sim -rop_latency)")
        .range(0, 100000);
    t.integer("dram_return_latency", &P::dram_return_latency, "L2 cycles",
              "from DRAM data to the L2 fill (GPGPU-Sim -dram_latency)")
        .range(0, 100000);
    t.integer("icnt_to_l2_queue", &P::icnt_to_l2_queue, "requests", "network -> L2 slice queue").range(1, 4096);
    t.integer("l2_to_icnt_queue", &P::l2_to_icnt_queue, "replies", "L2 slice -> network queue").range(1, 4096);
    t.integer("l2_to_dram_queue", &P::l2_to_dram_queue, "requests", "L2 slice -> DRAM scheduler queue (an access needs room for two)")
        .range(2, 4096);
    t.integer("dram_to_l2_queue", &P::dram_to_l2_queue, "replies", "DRAM -> L2 fill queue").range(1, 4096);
    t.integer("atomic_latency", &P::atomic_latency, "L2 cycles",
              "an atomic's read-modify-write at the slice, added to the L2 hit latency")
        .range(0, 10000);
    t.check("the address mapping is consistent", [](const P& p, config::Checker& r) {
      const std::string err = validate_address_mapping(p.address_mapping());
      if (!err.empty()) r.error({"mapping", "partitions", "sub_partitions", "hash"}, err);
    });
    return t;
  }();
  return table;
}

}  // namespace warpsim::timing
