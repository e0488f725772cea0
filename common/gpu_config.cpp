// The [gpu] table. Defaults and their sources are in gpu_config.h.
#include "common/gpu_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace warpsim {

namespace {

constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * KiB;
constexpr uint64_t GiB = 1024 * MiB;
constexpr uint64_t TiB = 1024 * GiB;

// Compute capabilities NVIDIA has shipped (CUDA C++ Programming Guide,
// "CUDA-Enabled GPUs"; 10.1 was renamed 11.0 in CUDA 13). Others are accepted
// with a warning, for hypothetical GPUs.
constexpr std::string_view kKnownCcs[] = {"2.0",  "2.1",  "3.0",  "3.2",  "3.5", "3.7", "5.0",
                                          "5.2",  "5.3",  "6.0",  "6.1",  "6.2", "7.0", "7.2",
                                          "7.5",  "8.0",  "8.6",  "8.7",  "8.9", "9.0", "10.0",
                                          "10.1", "10.3", "11.0", "12.0", "12.1"};

// Parses "major.minor" (major 1-15 without a leading zero, minor 0-9).
bool parse_cc(std::string_view s, int& major, int& minor) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 2 || s.size() != dot + 2) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != dot && (s[i] < '0' || s[i] > '9')) return false;
  if (s[0] == '0') return false;
  major = dot == 1 ? s[0] - '0' : (s[0] - '0') * 10 + (s[1] - '0');
  minor = s[dot + 1] - '0';
  return major >= 1 && major <= 15;
}

std::string check_cc(const config::Value& v) {
  int major = 0, minor = 0;
  const auto& s = std::get<std::string>(v);
  if (parse_cc(s, major, minor)) return {};
  return fmt::format(
      "{} is not a compute capability: expected \"major.minor\" with major 1 to 15 "
      "and minor 0 to 9, such as \"9.0\"",
      config::toml_quote(s));
}

std::string check_name(const config::Value& v) {
  const auto& s = std::get<std::string>(v);
  if (s.empty()) return "must not be empty";
  if (s.size() > 255)
    return fmt::format("is {} bytes long; cudaDeviceProp::name holds at most 255", s.size());
  return {};
}

std::string check_power_of_two(const config::Value& v) {
  int64_t x = std::get<int64_t>(v);
  if (x > 0 && (x & (x - 1)) == 0) return {};
  return fmt::format("{} is not a power of two", x);
}

std::string bytes(uint64_t b) { return config::format_bytes(b); }

void add_fields(config::Table<GpuConfig>& t) {
  using G = GpuConfig;
  t.string("name", &G::name, "device name reported by cudaGetDeviceProperties")
      .check("1 to 255 bytes", check_name);
  t.string("compute_capability", &G::compute_capability, "compute capability, \"major.minor\"")
      .check("\"major.minor\", major 1 to 15, minor 0 to 9", check_cc);
  t.integer("num_sms", &G::num_sms, "", "streaming multiprocessors").range(1, 4096);
  t.integer("warp_size", &G::warp_size, "threads", "threads per warp").range(32, 32);
  t.integer("max_threads_per_block", &G::max_threads_per_block, "threads",
            "most threads in one thread block")
      .range(32, 4096);
  t.int_array("max_block_dim", &G::max_block_dim, "threads", "largest block dimensions [x, y, z]")
      .range(1, 4096);
  t.int_array("max_grid_dim", &G::max_grid_dim, "blocks", "largest grid dimensions [x, y, z]")
      .range(1, 2147483647);
  t.integer("max_threads_per_sm", &G::max_threads_per_sm, "threads", "most resident threads per SM")
      .range(32, 65536);
  t.integer("max_ctas_per_sm", &G::max_ctas_per_sm, "blocks", "most resident thread blocks per SM")
      .range(1, 1024);
  t.integer("regs_per_sm", &G::regs_per_sm, "registers", "32-bit registers per SM")
      .range(256, 16 * 1024 * 1024);
  t.integer("regs_per_block", &G::regs_per_block, "registers",
            "most 32-bit registers one thread block may use")
      .range(256, 16 * 1024 * 1024);
  t.integer("max_regs_per_thread", &G::max_regs_per_thread, "registers",
            "most 32-bit registers per thread")
      .range(16, 255);
  t.integer("reg_alloc_unit", &G::reg_alloc_unit, "registers",
            "register allocation granularity, per warp")
      .range(1, 65536)
      .check("a power of two", check_power_of_two);
  t.bytes("shared_mem_per_sm", &G::shared_mem_per_sm, "shared memory per SM").range(0, 64 * MiB);
  t.bytes("shared_mem_per_block", &G::shared_mem_per_block,
          "shared memory one block may use without opting in")
      .range(0, 64 * MiB);
  t.bytes("shared_mem_per_block_optin", &G::shared_mem_per_block_optin,
          "shared memory one block may use with cudaFuncAttributeMaxDynamicSharedMemorySize")
      .range(0, 64 * MiB);
  t.bytes("reserved_shared_mem_per_block", &G::reserved_shared_mem_per_block,
          "shared memory the system reserves per block")
      .range(0, 64 * KiB);
  t.bytes("shared_mem_alloc_unit", &G::shared_mem_alloc_unit,
          "shared memory allocation granularity")
      .range(1, 64 * KiB)
      .check("a power of two", check_power_of_two);
  t.bytes("const_mem", &G::const_mem, "constant memory").range(0, 1 * GiB);
  t.bytes("l2_size", &G::l2_size, "L2 cache size").range(0, 64 * GiB);
  // At most the CUDA runtime's window of device addresses (16 TiB,
  // libcudart_shim/runtime.cpp): more could never be allocated.
  t.bytes("memory_size", &G::memory_size, "device (global) memory").range(1 * MiB, 16 * TiB);
  t.integer("memory_bus_width", &G::memory_bus_width, "bit", "memory bus width").range(8, 65536);
  t.clock_mhz("memory_clock", &G::memory_clock, "peak memory clock, as the runtime reports it")
      .range(1.0, 100000.0);
  t.clock_mhz("core_clock", &G::core_clock, "peak SM clock").range(1.0, 100000.0);
  t.integer("max_cluster_size", &G::max_cluster_size, "blocks",
            "portable thread block cluster size limit; 0: no clusters")
      .range(0, 64);
  t.integer("max_cluster_size_nonportable", &G::max_cluster_size_nonportable, "blocks",
            "cluster size limit with cudaFuncAttributeNonPortableClusterSizeAllowed")
      .range(0, 64);
  t.integer("async_engines", &G::async_engines, "", "copy engines (asyncEngineCount)").range(0, 64);
  t.integer("pci_domain_id", &G::pci_domain_id, "", "PCI domain").range(0, 65535);
  t.integer("pci_bus_id", &G::pci_bus_id, "", "PCI bus").range(0, 255);
  t.integer("pci_device_id", &G::pci_device_id, "", "PCI device (slot on the bus)").range(0, 31);
}

void add_checks(config::Table<GpuConfig>& t) {
  t.check("compute_capability is one NVIDIA has shipped (otherwise a warning)",
          [](const GpuConfig& g, config::Checker& c) {
            if (std::find(std::begin(kKnownCcs), std::end(kKnownCcs), g.compute_capability) !=
                std::end(kKnownCcs))
              return;
            if (g.cc_major() == 0) return;  // malformed: reported by the field check
            std::string known;
            for (auto cc : kKnownCcs) known += (known.empty() ? "" : " ") + std::string(cc);
            c.warning(
                {"compute_capability"},
                fmt::format("{} is not a compute capability NVIDIA has shipped ({}); used as given",
                            g.compute_capability, known));
          });
  t.check("max_threads_per_block and max_threads_per_sm are multiples of warp_size",
          [](const GpuConfig& g, config::Checker& c) {
            if (g.max_threads_per_block % g.warp_size)
              c.error({"max_threads_per_block", "warp_size"},
                      fmt::format("{} is not a multiple of warp_size ({})", g.max_threads_per_block,
                                  g.warp_size));
            if (g.max_threads_per_sm % g.warp_size)
              c.error({"max_threads_per_sm", "warp_size"},
                      fmt::format("{} is not a multiple of warp_size ({})", g.max_threads_per_sm,
                                  g.warp_size));
          });
  t.check("max_threads_per_block <= max_threads_per_sm",
          [](const GpuConfig& g, config::Checker& c) {
            if (g.max_threads_per_block > g.max_threads_per_sm)
              c.error({"max_threads_per_block", "max_threads_per_sm"},
                      fmt::format("{} exceeds max_threads_per_sm ({})", g.max_threads_per_block,
                                  g.max_threads_per_sm));
          });
  t.check("each max_block_dim <= max_threads_per_block",
          [](const GpuConfig& g, config::Checker& c) {
            for (size_t i = 0; i < 3; ++i)
              if (g.max_block_dim[i] > g.max_threads_per_block)
                c.error({"max_block_dim", "max_threads_per_block"},
                        fmt::format("{} = {} exceeds max_threads_per_block ({})", "xyz"[i],
                                    g.max_block_dim[i], g.max_threads_per_block));
          });
  t.check("regs_per_block <= regs_per_sm; regs_per_sm is a multiple of reg_alloc_unit",
          [](const GpuConfig& g, config::Checker& c) {
            if (g.regs_per_block > g.regs_per_sm)
              c.error({"regs_per_block", "regs_per_sm"},
                      fmt::format("{} exceeds regs_per_sm ({})", g.regs_per_block, g.regs_per_sm));
            if (g.regs_per_sm % g.reg_alloc_unit)
              c.error({"regs_per_sm", "reg_alloc_unit"},
                      fmt::format("{} is not a multiple of reg_alloc_unit ({})", g.regs_per_sm,
                                  g.reg_alloc_unit));
          });
  t.check("max_regs_per_thread x warp_size <= regs_per_block", [](const GpuConfig& g,
                                                                  config::Checker& c) {
    if (uint64_t{g.max_regs_per_thread} * g.warp_size > g.regs_per_block)
      c.error(
          {"max_regs_per_thread", "warp_size", "regs_per_block"},
          fmt::format("{} registers for each of {} threads of a warp exceed regs_per_block ({})",
                      g.max_regs_per_thread, g.warp_size, g.regs_per_block));
  });
  t.check(
      "shared_mem_per_block <= shared_mem_per_block_optin <= "
      "shared_mem_per_sm - reserved_shared_mem_per_block",
      [](const GpuConfig& g, config::Checker& c) {
        if (g.shared_mem_per_block > g.shared_mem_per_block_optin)
          c.error({"shared_mem_per_block", "shared_mem_per_block_optin"},
                  fmt::format("{} exceeds shared_mem_per_block_optin ({})",
                              bytes(g.shared_mem_per_block), bytes(g.shared_mem_per_block_optin)));
        if (g.shared_mem_per_block_optin + g.reserved_shared_mem_per_block > g.shared_mem_per_sm)
          c.error(
              {"shared_mem_per_block_optin", "reserved_shared_mem_per_block", "shared_mem_per_sm"},
              fmt::format("{} plus reserved_shared_mem_per_block ({}) exceeds "
                          "shared_mem_per_sm ({})",
                          bytes(g.shared_mem_per_block_optin),
                          bytes(g.reserved_shared_mem_per_block), bytes(g.shared_mem_per_sm)));
      });
  t.check("max_cluster_size <= max_cluster_size_nonportable; clusters need compute capability 9.0+",
          [](const GpuConfig& g, config::Checker& c) {
            if (g.max_cluster_size > g.max_cluster_size_nonportable)
              c.error({"max_cluster_size", "max_cluster_size_nonportable"},
                      fmt::format("{} exceeds max_cluster_size_nonportable ({})",
                                  g.max_cluster_size, g.max_cluster_size_nonportable));
            if (g.max_cluster_size_nonportable > 0 && g.cc_major() != 0 && g.cc() < 90)
              c.error({"max_cluster_size_nonportable", "compute_capability"},
                      fmt::format("thread block clusters need compute capability 9.0 or later "
                                  "(compute_capability is {}); set the cluster sizes to 0",
                                  g.compute_capability));
          });
}

}  // namespace

int GpuConfig::cc_major() const {
  int major = 0, minor = 0;
  return parse_cc(compute_capability, major, minor) ? major : 0;
}

int GpuConfig::cc_minor() const {
  int major = 0, minor = 0;
  return parse_cc(compute_capability, major, minor) ? minor : 0;
}

const config::Table<GpuConfig>& gpu_config_table() {
  static const config::Table<GpuConfig> table = [] {
    config::Table<GpuConfig> t(
        "The simulated GPU as the CUDA runtime reports it (cudaGetDeviceProperties) and the "
        "limits launches are checked against");
    add_fields(t);
    add_checks(t);
    return t;
  }();
  return table;
}

}  // namespace warpsim
