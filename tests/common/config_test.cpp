// The configuration system: tables, the loader (files, base chains,
// overrides), every error kind with its location and message, the shipped
// configs, show -> reload round trips, and docs/config.md freshness.
#include "common/config.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <utility>

#include "common/gpu_config.h"
#include "common/plugin_sections.h"
#include "functional/executor_config.h"
#include "interconnect/crossbar.h"
#include "interconnect/ideal_network.h"
#include "ptx/compiler_config.h"
#include "timing/sim_config.h"

namespace warpsim {
namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = WARPSIM_SOURCE_DIR;
const std::string kConfigsDir = kSourceDir + "/configs";

// A fresh directory per test, for config files.
class TempDir {
 public:
  TempDir() {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::path(testing::TempDir()) /
            (std::string("warpsim_config_") + info->test_suite_name() + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  fs::path path_;
};

// The one error expected: "file:line:col: message" (file relative names ok).
std::string only_error(const DiagnosticEngine& d) {
  if (d.error_count() != 1 || d.diagnostics().size() != 1) return "errors: " + d.format_all();
  const Diagnostic& e = d.diagnostics()[0];
  return fmt::format("{}:{}:{}: {}", fs::path(e.file).filename().string(), e.location.line,
                     e.location.column, e.message);
}

std::optional<SimConfig> load_text(const TempDir& dir, const std::string& text, DiagnosticEngine& d,
                                   const std::vector<std::string>& overrides = {}) {
  return load_sim_config(dir.write("x.toml", text), overrides, {dir.path(), kConfigsDir}, d);
}

std::string load_error(const std::string& text, const std::vector<std::string>& overrides = {}) {
  TempDir dir;
  DiagnosticEngine d;
  auto c = load_text(dir, text, d, overrides);
  if (c) return "loaded without error";
  return only_error(d);
}

std::string override_error(const std::string& assignment) {
  DiagnosticEngine d;
  auto c = load_sim_config("", {assignment}, {}, d);
  if (c) return "loaded without error";
  return only_error(d);
}

// ---------------------------------------------------------------- defaults

TEST(GpuConfig, DefaultsAreTheH100) {
  GpuConfig g;
  EXPECT_EQ(g.name, "warpsim H100-SXM5 (simulated)");
  EXPECT_EQ(g.num_sms, 132u);
  EXPECT_EQ(g.shared_mem_per_sm, 228u * 1024);
  EXPECT_EQ(g.shared_mem_per_block_optin, 227u * 1024);
  EXPECT_EQ(g.l2_size, 50ull << 20);
  EXPECT_EQ(g.memory_size, 80ull << 30);
  EXPECT_EQ(g.core_clock, 1980.0);
  EXPECT_EQ((g.max_block_dim), (std::array<uint32_t, 3>{1024, 1024, 64}));
  EXPECT_EQ(g.cc_major(), 9);
  EXPECT_EQ(g.cc_minor(), 0);
  EXPECT_EQ(g.cc(), 90);
}

TEST(GpuConfig, ComputeCapabilityAccessors) {
  GpuConfig g;
  g.compute_capability = "12.1";
  EXPECT_EQ(g.cc(), 121);
  g.compute_capability = "7.5";
  EXPECT_EQ(g.cc_major(), 7);
  EXPECT_EQ(g.cc_minor(), 5);
  for (const char* bad : {"9", "9.", ".0", "09.0", "9.10", "16.0", "a.b", ""}) {
    g.compute_capability = bad;
    EXPECT_EQ(g.cc(), 0) << bad;
  }
}

TEST(SimConfig, DefaultsLoadCleanWithoutAnyDiagnostic) {
  DiagnosticEngine d;
  auto c = load_sim_config("", {}, {}, d);
  ASSERT_TRUE(c);
  EXPECT_TRUE(d.diagnostics().empty()) << d.format_all();
  EXPECT_EQ(c->gpu, GpuConfig{});
  EXPECT_EQ(c->functional.threads, functional::ExecutorOptions{}.threads);
  EXPECT_EQ(c->functional.watchdog, uint64_t{1} << 30);
}

// A file applies the keys it names and keeps the defaults for the rest.
TEST(SimConfig, FileKeepsDefaultsForKeysItDoesNotName) {
  TempDir dir;
  DiagnosticEngine d;
  auto c = load_text(dir, "[gpu]\nnum_sms = 80\n[functional]\nthreads = 4\n", d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->gpu.num_sms, 80u);
  EXPECT_EQ(c->functional.threads, 4u);
  GpuConfig expected;
  expected.num_sms = 80;
  EXPECT_EQ(c->gpu, expected);
}

// ---------------------------------------------------------------- shipped configs

TEST(ShippedConfigs, EveryFileLoadsCleanAndRoundTrips) {
  auto configs = config::list_named_configs({kConfigsDir});
  ASSERT_GE(configs.size(), 4u);
  for (const auto& named : configs) {
    DiagnosticEngine d;
    auto c = load_sim_config(named.name, {}, {kConfigsDir}, d);
    ASSERT_TRUE(c) << named.path << "\n" << d.format_all();
    EXPECT_TRUE(d.diagnostics().empty()) << named.path << "\n" << d.format_all();
    EXPECT_NE(c->gpu.name.find("(simulated)"), std::string::npos) << named.path;
  }
}

TEST(ShippedConfigs, H100IsTheBuiltInDefault) {
  DiagnosticEngine d;
  auto h100 = load_sim_config("h100", {}, {kConfigsDir}, d);
  ASSERT_TRUE(h100) << d.format_all();
  EXPECT_EQ(h100->gpu, GpuConfig{});
  // Loading fills the DRAM values the config leaves to the preset.
  SimConfig defaults;
  ASSERT_EQ(timing::resolve_dram_config(defaults.timing.dram), "");
  EXPECT_EQ(sim_config_toml(*h100), sim_config_toml(defaults));
}

TEST(ShippedConfigs, OthersHaveTheirOwnValues) {
  struct Expect {
    const char* name;
    int cc;
    uint32_t sms, threads_per_sm, ctas_per_sm;
    uint64_t smem_per_sm;
  };
  for (const Expect& e : {Expect{"a100", 80, 108, 2048, 32, 164 * 1024},
                          Expect{"rtx2080ti", 75, 68, 1024, 16, 64 * 1024},
                          Expect{"rtx4090", 89, 128, 1536, 24, 100 * 1024}}) {
    DiagnosticEngine d;
    auto c = load_sim_config(e.name, {}, {kConfigsDir}, d);
    ASSERT_TRUE(c) << d.format_all();
    EXPECT_EQ(c->gpu.cc(), e.cc) << e.name;
    EXPECT_EQ(c->gpu.num_sms, e.sms) << e.name;
    EXPECT_EQ(c->gpu.max_threads_per_sm, e.threads_per_sm) << e.name;
    EXPECT_EQ(c->gpu.max_ctas_per_sm, e.ctas_per_sm) << e.name;
    EXPECT_EQ(c->gpu.shared_mem_per_sm, e.smem_per_sm) << e.name;
    EXPECT_EQ(c->gpu.max_cluster_size, 0u) << e.name;
  }
}

// ---------------------------------------------------------------- base

TEST(Base, ChildOverridesItsBase) {
  TempDir dir;
  dir.write("parent.toml", "[gpu]\nname = \"parent\"\nnum_sms = 10\n[functional]\nthreads = 3\n");
  dir.write("child.toml", "base = \"parent\"\n[gpu]\nnum_sms = 20\n");
  DiagnosticEngine d;
  auto c = load_sim_config("child", {}, {dir.path()}, d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->gpu.name, "parent");
  EXPECT_EQ(c->gpu.num_sms, 20u);
  EXPECT_EQ(c->functional.threads, 3u);
}

TEST(Base, NamedShippedConfigAndRelativePath) {
  TempDir dir;
  fs::create_directories(dir.path() + "/sub");
  dir.write("sub/mid.toml", "base = \"a100\"\n[gpu]\nnum_sms = 54\n");
  dir.write("top.toml", "base = \"sub/mid.toml\"\n[gpu]\nname = \"half A100\"\n");
  DiagnosticEngine d;
  auto c = load_sim_config(dir.path() + "/top.toml", {}, {kConfigsDir}, d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->gpu.name, "half A100");
  EXPECT_EQ(c->gpu.num_sms, 54u);
  EXPECT_EQ(c->gpu.cc(), 80);
  EXPECT_EQ(c->gpu.l2_size, 40ull << 20);
}

TEST(Base, OverridesApplyAfterTheWholeChain) {
  DiagnosticEngine d;
  auto c = load_sim_config("a100", {"gpu.num_sms=7"}, {kConfigsDir}, d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->gpu.num_sms, 7u);
}

TEST(Base, CycleIsAnErrorAtTheBaseKey) {
  TempDir dir;
  dir.write("a.toml", "base = \"b\"\n");
  dir.write("b.toml", "\nbase = \"a\"\n");
  DiagnosticEngine d;
  EXPECT_FALSE(load_sim_config("a", {}, {dir.path()}, d));
  EXPECT_EQ(only_error(d), "b.toml:2:8: base config cycle: a.toml -> b.toml -> a.toml");
}

TEST(Base, SelfCycle) {
  TempDir dir;
  dir.write("a.toml", "base = \"a.toml\"\n");
  DiagnosticEngine d;
  EXPECT_FALSE(load_sim_config("a", {}, {dir.path()}, d));
  EXPECT_EQ(only_error(d), "a.toml:1:8: base config cycle: a.toml -> a.toml");
}

TEST(Base, MissingBaseListsTheSearchPath) {
  TempDir dir;
  DiagnosticEngine d;
  EXPECT_FALSE(load_text(dir, "base = \"nosuch\"\n", d));
  EXPECT_EQ(only_error(d),
            fmt::format("x.toml:1:8: base: no config named 'nosuch' (nosuch.toml) on "
                        "the search path: {}, {}",
                        dir.path(), kConfigsDir));
}

TEST(Base, MustBeAString) {
  EXPECT_EQ(load_error("base = 3\n"),
            "x.toml:1:8: base: expected the name or path of a config, found an integer (3)");
}

// ---------------------------------------------------------------- file errors

TEST(Errors, MissingNamedConfigListsTheSearchPath) {
  DiagnosticEngine d;
  EXPECT_FALSE(load_sim_config("nosuch", {}, {"/no/dir/a", "/no/dir/b"}, d));
  EXPECT_EQ(
      only_error(d),
      ":0:0: no config named 'nosuch' (nosuch.toml) on the search path: /no/dir/a, /no/dir/b");
}

TEST(Errors, MissingFile) {
  DiagnosticEngine d;
  EXPECT_FALSE(load_sim_config("/no/such/file.toml", {}, {}, d));
  EXPECT_EQ(only_error(d), ":0:0: config file '/no/such/file.toml' does not exist");
  TempDir dir;
  DiagnosticEngine d2;
  EXPECT_FALSE(load_sim_config(dir.path(), {}, {}, d2));
  EXPECT_EQ(only_error(d2), fmt::format(":0:0: cannot read config file '{}'", dir.path()));
}

TEST(Errors, EndlessBaseIsRefused) {
  // A base that never ends (or is larger than the input limit) is refused
  // after reading 256 MiB + 1 bytes, at the `base` that names it.
  EXPECT_EQ(load_error("base = \"/dev/zero\"\n"),
            "x.toml:1:8: config file '/dev/zero': file is larger than 256 MiB (the input size limit)");
}

TEST(Errors, MemorySizeIsBoundedByTheDeviceAddressWindow) {
  // The CUDA runtime places device memory in a 16 TiB window of addresses.
  EXPECT_EQ(override_error("gpu.memory_size=16TiB"), "loaded without error");
  EXPECT_EQ(override_error("gpu.memory_size=17TiB"),
            "--set:1:17: gpu.memory_size: 17TiB is out of range (valid: 1MiB to 16TiB)");
}

TEST(Errors, CacheSizesAcrossTheirRangeLoad) {
  for (const char* key : {"timing.l1d.size", "timing.l1i.size", "timing.constant.size", "timing.l2.size"}) {
    EXPECT_EQ(override_error(fmt::format("{}=1GiB", key)), "loaded without error") << key;
    EXPECT_NE(override_error(fmt::format("{}=2GiB", key)).find("is out of range"), std::string::npos) << key;
  }
}

// Fermi's hashed set index is defined for 32 or 64 sets of 128-byte lines:
// the built-in L1D (128 KiB, 4 ways: 256 sets) and L2 slices are refused, a
// 16 KiB or 48 KiB L1D (4 or 6 ways) is not.
TEST(Errors, FermiHashNeedsThirtyTwoOrSixtyFourSets) {
  for (const char* key : {"timing.l1d", "timing.l2"})
    EXPECT_EQ(override_error(fmt::format("{}.set_index=fermi-hash", key)),
              fmt::format("--set:1:{}: {}.set_index: fermi-hash needs 128-byte lines and 32 or 64 sets "
                          "(size / (line_bytes * ways))",
                          std::string_view(key).size() + 12, key));
  EXPECT_EQ(load_error("[timing.l1d]\nset_index = \"fermi-hash\"\nsize = \"16KiB\"\nways = 4\n"),
            "loaded without error");
  EXPECT_EQ(load_error("[timing.l1d]\nset_index = \"fermi-hash\"\nsize = \"48KiB\"\nways = 6\n"),
            "loaded without error");
}

TEST(Errors, TomlSyntax) {
  std::string e = load_error("[gpu]\nnum_sms = = 3\n");
  EXPECT_EQ(e.rfind("x.toml:2:", 0), 0u) << e;
  EXPECT_NE(e.find("invalid TOML: "), std::string::npos) << e;
}

// toml++ 3.3 reaches __builtin_unreachable on some non-ASCII characters
// (config_loader.cpp works around it): an error, never undefined behaviour.
TEST(Errors, NonAsciiOutsideStrings) {
  std::string e = load_error("[gpu\xc3\xa9]\nnum_sms = 4\n");
  EXPECT_EQ(e.rfind("x.toml:1:5: invalid TOML: ", 0), 0u) << e;
  e = load_error("[gpu]\nnum_sms\xc2\xa0= 4\n");
  EXPECT_EQ(e.rfind("x.toml:2:", 0), 0u) << e;
  TempDir dir;
  DiagnosticEngine d;
  auto c = load_text(dir, "[gpu] # \xc3\xa9t\xc3\xa9\nname = \"GPU \xc3\xa9\xe2\x82\xac\"\n", d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->gpu.name, "GPU \xc3\xa9\xe2\x82\xac");
}

TEST(Errors, UnknownKeyWithSuggestion) {
  EXPECT_EQ(load_error("[gpu]\nnum_sm = 4\n"),
            "x.toml:2:1: unknown key 'num_sm' in [gpu] (did you mean 'num_sms'?)");
  EXPECT_EQ(load_error("[functional]\n  wachdog = 4\n"),
            "x.toml:2:3: unknown key 'wachdog' in [functional] (did you mean 'watchdog'?)");
}

TEST(Errors, UnknownKeyFarFromAnyHasNoSuggestion) {
  EXPECT_EQ(load_error("[gpu]\nfrobnicate = 4\n"), "x.toml:2:1: unknown key 'frobnicate' in [gpu]");
}

TEST(Errors, UnknownSection) {
  EXPECT_EQ(load_error("\n[gpuu]\nnum_sms = 4\n"),
            "x.toml:2:2: unknown section [gpuu] (did you mean [gpu]?)");
  EXPECT_EQ(load_error("[gpu.l1]\nsize = 4\n"), "x.toml:1:6: unknown key 'l1' in [gpu]");
}

TEST(Errors, KeyOutsideASection) {
  EXPECT_EQ(
      load_error("num_sms = 4\n"),
      "x.toml:1:1: unknown top-level key 'num_sms': settings go in sections (gpu, functional, compiler, timing, "
      "interconnect, power) "
      "(it belongs in section [gpu])");
}

TEST(Errors, SectionThatIsNotATable) {
  EXPECT_EQ(load_error("gpu = 4\n"),
            "x.toml:1:1: [gpu] is a section: expected a table, found an integer (4)");
}

TEST(Errors, WrongType) {
  EXPECT_EQ(load_error("[gpu]\nnum_sms = \"many\"\n"),
            "x.toml:2:11: gpu.num_sms: expected an integer, found a string (\"many\")");
  EXPECT_EQ(load_error("[gpu]\nname = 3\n"),
            "x.toml:2:8: gpu.name: expected a string, found an integer (3)");
  EXPECT_EQ(
      load_error("[gpu]\ncore_clock = \"fast\"\n"),
      "x.toml:2:14: gpu.core_clock: expected a clock in MHz (a number), found a string (\"fast\")");
  EXPECT_EQ(
      load_error("[gpu]\nmax_block_dim = 5\n"),
      "x.toml:2:17: gpu.max_block_dim: expected an array of 3 integers, found an integer (5)");
  EXPECT_EQ(load_error("[gpu]\nmax_block_dim = [1, 2]\n"),
            "x.toml:2:17: gpu.max_block_dim: expected an array of 3 integers, found 2 elements");
  EXPECT_EQ(
      load_error("[gpu]\nmax_block_dim = [1, 2, \"z\"]\n"),
      "x.toml:2:17: gpu.max_block_dim: element 2: expected an integer, found a string (\"z\")");
  EXPECT_EQ(load_error("[gpu]\nl2_size = 1.5\n"),
            "x.toml:2:11: gpu.l2_size: expected a size (a number of bytes, or a string such as "
            "\"48KiB\"), found a float (1.5)");
}

TEST(Errors, OutOfRange) {
  EXPECT_EQ(load_error("[gpu]\nnum_sms = 0\n"),
            "x.toml:2:11: gpu.num_sms: 0 is out of range (valid: 1 to 4096)");
  EXPECT_EQ(load_error("[gpu]\nwarp_size = 64\n"),
            "x.toml:2:13: gpu.warp_size: 64 threads is out of range (valid: 32 threads)");
  EXPECT_EQ(load_error("[gpu]\nshared_mem_per_sm = \"1GiB\"\n"),
            "x.toml:2:21: gpu.shared_mem_per_sm: 1GiB is out of range (valid: 0B to 64MiB)");
  EXPECT_EQ(load_error("[gpu]\nl2_size = -1\n"),
            "x.toml:2:11: gpu.l2_size: -1 is out of range (valid: 0B to 64GiB)");
  EXPECT_EQ(load_error("[gpu]\ncore_clock = 0.5\n"),
            "x.toml:2:14: gpu.core_clock: 0.5 MHz is out of range (valid: 1 to 100000 MHz)");
  EXPECT_EQ(load_error("[gpu]\ncore_clock = nan\n"),
            "x.toml:2:14: gpu.core_clock: nan is not a finite number");
  EXPECT_EQ(
      load_error("[gpu]\nmax_grid_dim = [1, 0, 1]\n"),
      "x.toml:2:16: gpu.max_grid_dim: element 1 (0) is out of range (valid: each 1 to 2147483647 "
      "blocks)");
  EXPECT_EQ(
      load_error("[functional]\nthreads = 5000\n"),
      "x.toml:2:11: functional.threads: 5000 threads is out of range (valid: 0 to 1024 threads)");
  // Beyond what the member's type holds: still an error, never a wrap-around.
  EXPECT_EQ(
      load_error("[functional]\nwarp_quantum = 4294967296\n"),
      "x.toml:2:16: functional.warp_quantum: 4294967296 instructions is out of range (valid: 1 "
      "to 4294967295 instructions)");
  EXPECT_EQ(load_error("[functional]\nwatchdog = -1\n"),
            "x.toml:2:12: functional.watchdog: -1 instructions is out of range (valid: at least 0 "
            "instructions)");
}

TEST(Errors, BadSizeString) {
  EXPECT_EQ(
      load_error("[gpu]\nl2_size = \"50MB\"\n"),
      "x.toml:2:11: gpu.l2_size: \"50MB\": unknown size unit 'MB'; use B, KiB, MiB, GiB or TiB "
      "(for 1024*1024 bytes write MiB)");
  EXPECT_EQ(load_error("[gpu]\nl2_size = \"big\"\n"),
            "x.toml:2:11: gpu.l2_size: \"big\" is not a size: expected a whole number of bytes, "
            "optionally with a unit (B, KiB, MiB, GiB, TiB), such as \"48KiB\"");
  EXPECT_EQ(load_error("[gpu]\nl2_size = \"99999999999999999999B\"\n"),
            "x.toml:2:11: gpu.l2_size: \"99999999999999999999B\" is too large");
  EXPECT_EQ(load_error("[gpu]\nl2_size = \"17179869184GiB\"\n"),
            "x.toml:2:11: gpu.l2_size: \"17179869184GiB\" is too large");
}

TEST(Errors, BadComputeCapability) {
  EXPECT_EQ(load_error("[gpu]\ncompute_capability = \"9\"\n"),
            "x.toml:2:22: gpu.compute_capability: \"9\" is not a compute capability: expected "
            "\"major.minor\" with major 1 to 15 and minor 0 to 9, such as \"9.0\"");
  EXPECT_EQ(load_error("[gpu]\ncompute_capability = 9.0\n"),
            "x.toml:2:22: gpu.compute_capability: expected a string, found a float (9)");
}

TEST(Errors, UnshippedComputeCapabilityIsAWarning) {
  TempDir dir;
  DiagnosticEngine d;
  auto c = load_text(dir, "[gpu]\ncompute_capability = \"9.5\"\n", d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->gpu.cc(), 95);
  ASSERT_EQ(d.diagnostics().size(), 1u);
  EXPECT_EQ(d.diagnostics()[0].severity, Severity::Warning);
  EXPECT_EQ(d.diagnostics()[0].location, (SourceLocation{2, 22}));
  EXPECT_EQ(d.diagnostics()[0].message.rfind("gpu.compute_capability: 9.5 is not a compute "
                                             "capability NVIDIA has shipped (2.0 2.1",
                                             0),
            0u)
      << d.diagnostics()[0].message;
}

TEST(Errors, CrossFieldViolationsAreReportedWhereTheKeyWasSet) {
  EXPECT_EQ(load_error("[gpu]\nshared_mem_per_block = \"228KiB\"\n"),
            "x.toml:2:24: gpu.shared_mem_per_block: 228KiB exceeds shared_mem_per_block_optin "
            "(227KiB)");
  EXPECT_EQ(
      load_error("[gpu]\nshared_mem_per_sm = \"200KiB\"\n"),
      "x.toml:2:21: gpu.shared_mem_per_block_optin: 227KiB plus reserved_shared_mem_per_block "
      "(1KiB) exceeds shared_mem_per_sm (200KiB)")
      << "placed at the last-set key of the check when the named key kept its default";
  EXPECT_EQ(load_error("[gpu]\nmax_threads_per_sm = 512\n"),
            "x.toml:2:22: gpu.max_threads_per_block: 1024 exceeds max_threads_per_sm (512)");
  EXPECT_EQ(load_error("[gpu]\nmax_threads_per_sm = 2000\n"),
            "x.toml:2:22: gpu.max_threads_per_sm: 2000 is not a multiple of warp_size (32)");
  EXPECT_EQ(load_error("[gpu]\nmax_block_dim = [2048, 1, 1]\n"),
            "x.toml:2:17: gpu.max_block_dim: x = 2048 exceeds max_threads_per_block (1024)");
  EXPECT_EQ(load_error("[gpu]\nregs_per_block = 131072\n"),
            "x.toml:2:18: gpu.regs_per_block: 131072 exceeds regs_per_sm (65536)");
  EXPECT_EQ(load_error("[gpu]\nmax_cluster_size = 32\n"),
            "x.toml:2:20: gpu.max_cluster_size: 32 exceeds max_cluster_size_nonportable (16)");
  EXPECT_EQ(load_error("[gpu]\ncompute_capability = \"8.0\"\n"),
            "x.toml:2:22: gpu.max_cluster_size_nonportable: thread block clusters need compute "
            "capability 9.0 or later (compute_capability is 8.0); set the cluster sizes to 0");
}

// Checks across sections (sim_config.cpp) are placed like the checks within
// one: where the most recently set of the keys they read was set, in a file
// or in the --set override that set it.
TEST(Errors, CrossSectionViolationsAreReportedWhereAKeyWasSet) {
  const std::string cluster = "timing.sms_per_cluster: 4 does not divide gpu.num_sms (130)";
  std::string e = load_error("[gpu]\nnum_sms = 130\n[timing]\nsms_per_cluster = 4\n");
  EXPECT_TRUE(e.starts_with("x.toml:4:")) << e;
  EXPECT_NE(e.find(cluster), std::string::npos) << e;
  // Within one file, at one of the keys (the loader applies a file's
  // sections in name order, not line order).
  e = load_error("[timing]\nsms_per_cluster = 4\n[gpu]\nnum_sms = 130\n");
  EXPECT_TRUE(e.starts_with("x.toml:2:") || e.starts_with("x.toml:4:")) << e;
  // An override is the most recent: its line of the virtual file "--set".
  e = load_error("[gpu]\nnum_sms = 130\n", {"gpu.name=x", "timing.sms_per_cluster=4"});
  EXPECT_TRUE(e.starts_with("--set:2:")) << e;
  EXPECT_NE(e.find(cluster), std::string::npos) << e;
  e = load_error("[timing.l1d]\nline_bytes = 256\n");
  EXPECT_TRUE(e.starts_with("x.toml:2:")) << e;
  EXPECT_NE(e.find("timing.l1d.line_bytes (256) is larger than timing.l2.line_bytes (128)"), std::string::npos)
      << e;
  e = load_error("[timing.l1d]\nsize = \"64KiB\"\n", {"timing.l1i.line_bytes=256"});
  EXPECT_TRUE(e.starts_with("--set:1:")) << e;
}

// Scale-model sampling runs launches on a GPU of 1/N the SMs and partitions:
// that GPU must be one the simulator can build.
TEST(Errors, ScaleModelSamplingNeedsAGpuItCanScaleDown) {
  EXPECT_EQ(override_error("timing.sample_ctas=4"), "loaded without error");
  EXPECT_NE(override_error("timing.sample_ctas=5").find("timing.sample_ctas: 132 SMs do not split into 5 equal parts"),
            std::string::npos);
  DiagnosticEngine both;
  EXPECT_FALSE(load_sim_config("", {"timing.sample=true", "timing.sample_ctas=4"}, {}, both));
  EXPECT_NE(both.format_all().find("two ways of sampling a launch; choose one"), std::string::npos)
      << both.format_all();
  // A mesh keeps its routers and distances however few nodes remain.
  DiagnosticEngine mesh;
  EXPECT_FALSE(load_sim_config("zhao-lallc-8x8", {"timing.sample_ctas=2"}, {kConfigsDir}, mesh));
  EXPECT_NE(mesh.format_all().find("the mesh network does not scale down with the GPU"), std::string::npos)
      << mesh.format_all();
}

TEST(SimConfig, ScaleModelHasAnNthOfTheSmsAndPartitions) {
  SimConfig c;
  c.timing.gpu.sample_ctas = 4;
  SimConfig s = scale_model(c);
  EXPECT_EQ(s.gpu.num_sms, 33u);
  EXPECT_EQ(s.timing.partition.partitions, 20u);
  EXPECT_EQ(s.timing.l2.size, c.timing.l2.size) << "a slice stays a slice";
  EXPECT_EQ(s.gpu.max_threads_per_sm, c.gpu.max_threads_per_sm);
  // 80 / 6 partitions round to 13.
  c.timing.gpu.sample_ctas = 6;
  s = scale_model(c);
  EXPECT_EQ(s.gpu.num_sms, 22u);
  EXPECT_EQ(s.timing.partition.partitions, 13u);
}

TEST(Errors, CrossSectionViolationOverridesShowTheOverride) {
  DiagnosticEngine d;
  EXPECT_FALSE(load_sim_config("", {"gpu.num_sms=130", "timing.sms_per_cluster=4"}, {}, d));
  const std::string out = d.format_all();
  EXPECT_TRUE(out.starts_with("--set:2:")) << out;
  EXPECT_NE(out.find("\n  timing.sms_per_cluster=4\n"), std::string::npos) << out;
}

TEST(Errors, CrossFieldViolationOfValuesSetInCodeHasNoLocation) {
  SimConfig c;
  c.gpu.shared_mem_per_block = 1 << 20;
  c.gpu.num_sms = 0;
  config::Schema schema = sim_config_schema(c);
  DiagnosticEngine d;
  config::Loader loader(schema, d, {});
  EXPECT_FALSE(loader.validate());
  ASSERT_EQ(d.diagnostics().size(), 2u) << d.format_all();
  EXPECT_EQ(d.diagnostics()[0].message, "gpu.num_sms: 0 is out of range (valid: 1 to 4096)");
  EXPECT_EQ(d.diagnostics()[0].location, SourceLocation{});
  EXPECT_EQ(d.diagnostics()[1].message,
            "gpu.shared_mem_per_block: 1MiB exceeds shared_mem_per_block_optin (227KiB)");
  EXPECT_EQ(d.diagnostics()[1].file, "");
}

TEST(Errors, EveryErrorIsReportedNotJustTheFirst) {
  TempDir dir;
  DiagnosticEngine d;
  EXPECT_FALSE(load_text(dir, "[gpu]\nnum_sms = 0\nnum_sm = 1\n[functional]\nthreads = \"x\"\n", d,
                         {"gpu.bogus=1"}));
  EXPECT_EQ(d.error_count(), 4u) << d.format_all();
}

TEST(Errors, FormattedWithSourceLineAndCaret) {
  TempDir dir;
  DiagnosticEngine d;
  load_text(dir, "[gpu]\nnum_sms = 0\n", d);
  EXPECT_EQ(d.format_all(), dir.path() +
                                "/x.toml:2:11: error: gpu.num_sms: 0 is out of range "
                                "(valid: 1 to 4096)\n  num_sms = 0\n            ^\n");
}

// ---------------------------------------------------------------- overrides

TEST(Overrides, OfEveryGpuFieldKind) {
  DiagnosticEngine d;
  auto c = load_sim_config(
      "",
      {"gpu.num_sms=80", "gpu.name=my gpu", "gpu.compute_capability=9.0", "gpu.l2_size=40MiB",
       "gpu.const_mem = 32768", "gpu.core_clock=1410.5", "gpu.max_block_dim=[512, 512, 64]",
       "functional.watchdog=1000000", "gpu.memory_size=\"1GiB\""},
      {}, d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->gpu.num_sms, 80u);
  EXPECT_EQ(c->gpu.name, "my gpu");
  EXPECT_EQ(c->gpu.l2_size, 40ull << 20);
  EXPECT_EQ(c->gpu.const_mem, 32768u);
  EXPECT_EQ(c->gpu.core_clock, 1410.5);
  EXPECT_EQ((c->gpu.max_block_dim), (std::array<uint32_t, 3>{512, 512, 64}));
  EXPECT_EQ(c->functional.watchdog, 1000000u);
  EXPECT_EQ(c->gpu.memory_size, 1ull << 30);
}

TEST(Overrides, LaterOverridesWin) {
  DiagnosticEngine d;
  auto c = load_sim_config("", {"gpu.num_sms=80", "gpu.num_sms=90"}, {}, d);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->gpu.num_sms, 90u);
}

TEST(Overrides, BadSyntax) {
  EXPECT_EQ(override_error("gpu.num_sms"),
            "--set:1:1: invalid override 'gpu.num_sms': expected section.key=value");
  EXPECT_EQ(override_error("num_sms=3"),
            "--set:1:1: invalid override 'num_sms=3': expected section.key=value (such as "
            "gpu.num_sms=80)");
  EXPECT_EQ(override_error("gpu.=3"),
            "--set:1:1: invalid override 'gpu.=3': expected section.key=value (such as "
            "gpu.num_sms=80)");
  EXPECT_EQ(override_error("gpu.num_sms="), "--set:1:12: gpu.num_sms: missing value after '='");
}

// Overrides are the lines of a virtual file "--set", in the order given, so
// their diagnostics come out in that order.
TEST(Overrides, LineNumberIsThePositionOnTheCommandLine) {
  DiagnosticEngine d;
  EXPECT_FALSE(
      load_sim_config("", {"gpu.num_sms=8", "functional.threads=2000", "gpu.num_sm=3"}, {}, d));
  EXPECT_EQ(d.format_all(),
            "--set:2:20: error: functional.threads: 2000 threads is out of range (valid: 0 to 1024 "
            "threads)\n"
            "  functional.threads=2000\n"
            "                     ^\n"
            "--set:3:5: error: unknown key 'num_sm' in [gpu] (did you mean 'num_sms'?)\n"
            "  gpu.num_sm=3\n"
            "      ^\n");
}

TEST(Overrides, UnknownKeyAndSection) {
  EXPECT_EQ(override_error("gpu.num_sm=3"),
            "--set:1:5: unknown key 'num_sm' in [gpu] (did you mean 'num_sms'?)");
  EXPECT_EQ(override_error("gpx.num_sms=3"),
            "--set:1:1: unknown section [gpx] in override (did you mean [gpu]?)");
}

TEST(Overrides, BadValues) {
  EXPECT_EQ(override_error("gpu.num_sms=abc"),
            "--set:1:13: gpu.num_sms: expected an integer, found 'abc'");
  EXPECT_EQ(override_error("gpu.num_sms=\"12\""),
            "--set:1:13: gpu.num_sms: expected an integer, found a string (\"12\")");
  EXPECT_EQ(override_error("gpu.num_sms=0"),
            "--set:1:13: gpu.num_sms: 0 is out of range (valid: 1 to 4096)");
  EXPECT_EQ(
      override_error("gpu.l2_size=50 MB"),
      "--set:1:13: gpu.l2_size: \"50 MB\": unknown size unit 'MB'; use B, KiB, MiB, GiB or TiB "
      "(for 1024*1024 bytes write MiB)");
  EXPECT_EQ(override_error("gpu.compute_capability=nine"),
            "--set:1:24: gpu.compute_capability: \"nine\" is not a compute capability: expected "
            "\"major.minor\" with major 1 to 15 and minor 0 to 9, such as \"9.0\"");
  EXPECT_EQ(override_error("gpu.num_sms=1 2"),
            "--set:1:13: gpu.num_sms: expected an integer, found '1 2'");
  EXPECT_EQ(override_error("gpu.max_block_dim=[1,2"),
            "--set:1:19: gpu.max_block_dim: expected an array of 3 integers, found '[1,2'");
}

// Every field kind, through a table of its own.
enum class Mode { Fast, Exact, Lazy };
struct AllKinds {
  bool flag = false;
  int32_t count = 0;
  uint64_t big = 5;
  double ratio = 0.5;
  std::string label = "x";
  Mode mode = Mode::Fast;
  std::array<int16_t, 3> dims = {1, 2, 3};
  uint32_t size = 64;
  double clock = 100;
};

const config::Table<AllKinds>& all_kinds_table() {
  static const config::Table<AllKinds> table = [] {
    config::Table<AllKinds> t("Every kind of field");
    t.boolean("flag", &AllKinds::flag, "a switch");
    t.integer("count", &AllKinds::count, "", "signed").range(-100, 100);
    t.integer("big", &AllKinds::big, "", "unsigned 64-bit");
    t.real("ratio", &AllKinds::ratio, "", "a fraction").range(0.0, 1.0);
    t.string("label", &AllKinds::label, "a | label");
    t.enumeration("mode", &AllKinds::mode,
                  {{"fast", Mode::Fast}, {"exact", Mode::Exact}, {"lazy", Mode::Lazy}}, "how");
    t.int_array("dims", &AllKinds::dims, "", "three small numbers");
    t.bytes("size", &AllKinds::size, "a size");
    t.clock_mhz("clock", &AllKinds::clock, "a clock").range(1.0, 5000.0);
    t.check("count is even when flag", [](const AllKinds& k, config::Checker& c) {
      if (k.flag && k.count % 2) c.error({"count", "flag"}, "must be even when flag is set");
    });
    return t;
  }();
  return table;
}

struct AllKindsFixture : testing::Test {
  AllKinds object;
  config::Schema schema;
  DiagnosticEngine d;
  config::Loader loader{schema, d, {}};
  AllKindsFixture() { schema.add("t.sub", all_kinds_table(), object); }
  // The error of one override given alone.
  std::string error(const std::string& assignment) {
    DiagnosticEngine diags;
    config::Loader fresh(schema, diags, {});
    if (fresh.apply_override(assignment)) return "applied";
    return only_error(diags);
  }
};

TEST_F(AllKindsFixture, OverridesOfEveryKind) {
  EXPECT_TRUE(
      loader.apply_overrides({"t.sub.flag=true", "t.sub.count=-6", "t.sub.big=9000000000",
                              "t.sub.ratio=0.25", "t.sub.label=hello world", "t.sub.mode=exact",
                              "t.sub.dims=[-1, 0, 300]", "t.sub.size=2KiB", "t.sub.clock=1410"}))
      << d.format_all();
  EXPECT_TRUE(object.flag);
  EXPECT_EQ(object.count, -6);
  EXPECT_EQ(object.big, 9000000000u);
  EXPECT_EQ(object.ratio, 0.25);
  EXPECT_EQ(object.label, "hello world");
  EXPECT_EQ(object.mode, Mode::Exact);
  EXPECT_EQ((object.dims), (std::array<int16_t, 3>{-1, 0, 300}));
  EXPECT_EQ(object.size, 2048u);
  EXPECT_EQ(object.clock, 1410.0);
  // Quoted forms, as in TOML.
  EXPECT_TRUE(loader.apply_overrides({"t.sub.label=\"a \\\"q\\\" b\"", "t.sub.mode='lazy'",
                                      "t.sub.size=\"4KiB\"", "t.sub.size=4096"}));
  EXPECT_EQ(object.label, "a \"q\" b");
  EXPECT_EQ(object.mode, Mode::Lazy);
  EXPECT_EQ(object.size, 4096u);
  EXPECT_TRUE(loader.validate()) << d.format_all();
}

TEST_F(AllKindsFixture, ErrorsOfEveryKind) {
  EXPECT_EQ(error("t.sub.flag=yes"), "--set:1:12: t.sub.flag: expected true or false, found 'yes'");
  EXPECT_EQ(error("t.sub.flag=1"),
            "--set:1:12: t.sub.flag: expected true or false, found an integer (1)");
  EXPECT_EQ(error("t.sub.count=101"),
            "--set:1:13: t.sub.count: 101 is out of range (valid: -100 to 100)");
  EXPECT_EQ(error("t.sub.ratio=2"), "--set:1:13: t.sub.ratio: 2 is out of range (valid: 0 to 1)");
  EXPECT_EQ(
      error("t.sub.mode=fsat"),
      "--set:1:12: t.sub.mode: \"fsat\" is not one of fast, exact, lazy (did you mean 'fast'?)");
  EXPECT_EQ(error("t.sub.mode=3"), "--set:1:12: t.sub.mode: \"3\" is not one of fast, exact, lazy");
  EXPECT_EQ(
      error("t.sub.dims=[1, 2, 40000]"),
      "--set:1:12: t.sub.dims: element 2 (40000) is out of range (valid: each -32768 to 32767)");
  EXPECT_EQ(error("t.sub.size=5GiB"),
            "--set:1:12: t.sub.size: 5GiB is out of range (valid: 0B to 4294967295B)");
  EXPECT_EQ(error("t.sub.clock=inf"), "--set:1:13: t.sub.clock: inf is not a finite number");
  EXPECT_EQ(error("t.sub=3"), "--set:1:1: unknown section [t] in override (did you mean [t.sub]?)");
  EXPECT_EQ(error("t.sub.nope=3"),
            "--set:1:7: unknown key 'nope' in [t.sub] (did you mean 'mode'?)");
}

TEST_F(AllKindsFixture, CrossFieldCheckPointsAtTheOverride) {
  EXPECT_TRUE(loader.apply_overrides({"t.sub.count=3", "t.sub.flag=true"}));
  EXPECT_FALSE(loader.validate());
  // At the later of the two keys the check names: either may be the mistake.
  EXPECT_EQ(only_error(d), "--set:2:12: t.sub.count: must be even when flag is set");
  EXPECT_EQ(d.diagnostics()[0].source_line, "t.sub.flag=true");
}

TEST_F(AllKindsFixture, NestedSectionsInFiles) {
  EXPECT_TRUE(loader.load_text("[t.sub]\ncount = 4\n", "a.toml")) << d.format_all();
  EXPECT_EQ(object.count, 4);
  EXPECT_TRUE(loader.load_text("t.sub.count = 6\n", "b.toml")) << d.format_all();
  EXPECT_EQ(object.count, 6);
  EXPECT_TRUE(loader.load_text("[t]\nsub = { count = 8 }\n", "c.toml")) << d.format_all();
  EXPECT_EQ(object.count, 8);
  EXPECT_FALSE(loader.load_text("[t]\ncount = 4\n", "d.toml"));
  EXPECT_EQ(only_error(d),
            "d.toml:2:1: unknown key 'count' in [t] (it belongs in section [t.sub])");
  d.clear();
  EXPECT_FALSE(loader.load_text("[t.sbu]\n", "e.toml"));
  EXPECT_EQ(only_error(d), "e.toml:1:4: unknown section [t.sbu] (did you mean [t.sub]?)");
}

// ---------------------------------------------------------------- plug-in sections

struct Small {
  uint32_t n = 3;
};

const config::Table<Small>& small_table() {
  static const config::Table<Small> table = [] {
    config::Table<Small> t("A plug-in's section");
    t.integer("n", &Small::n, "", "a number").range(1, 10);
    return t;
  }();
  return table;
}

config::PluginSections two_sections() {
  config::PluginSections s;
  s.add("kinds", all_kinds_table());
  s.add("small", small_table());
  return s;
}

TEST(PluginSections, TypedAccessStartsAtTheTablesDefaults) {
  config::PluginSections s = two_sections();
  EXPECT_EQ(s.size(), 2u);
  EXPECT_TRUE(s.contains("small"));
  EXPECT_FALSE(s.contains("other"));
  EXPECT_EQ(s.get<Small>("small").n, 3u);
  EXPECT_EQ(s.get<AllKinds>("kinds").label, "x");
  s.get<Small>("small").n = 7;
  EXPECT_EQ(std::as_const(s).get<Small>("small").n, 7u);
}

TEST(PluginSections, CopiesAreDeepAndMovesKeepTheObjects) {
  config::PluginSections a = two_sections();
  config::PluginSections b = a;
  b.get<Small>("small").n = 9;
  EXPECT_EQ(a.get<Small>("small").n, 3u);
  a = b;
  b.get<Small>("small").n = 1;
  EXPECT_EQ(a.get<Small>("small").n, 9u);
  Small* where = &a.get<Small>("small");
  config::PluginSections c = std::move(a);
  EXPECT_EQ(&c.get<Small>("small"), where);
}

TEST(PluginSections, WrongTypeOrNameIsAnInvariantViolation) {
  config::PluginSections s = two_sections();
  EXPECT_DEATH(s.get<AllKinds>("small"), "read with the type of its table");
  EXPECT_DEATH(s.get<Small>("other"), "read by a registered name");
}

TEST(PluginSections, BoundSectionsLoadValidateAndShow) {
  config::PluginSections s = two_sections();
  config::Schema schema;
  s.bind(schema, "p");
  ASSERT_EQ(schema.sections().size(), 2u);
  EXPECT_EQ(schema.sections()[0].name, "p.kinds");
  EXPECT_EQ(schema.sections()[1].name, "p.small");
  DiagnosticEngine d;
  config::Loader loader(schema, d, {});
  EXPECT_TRUE(loader.load_text("[p.small]\nn = 5\n[p.kinds]\ncount = 2\n", "a.toml")) << d.format_all();
  EXPECT_TRUE(loader.apply_override("p.kinds.label=y"));
  EXPECT_TRUE(loader.validate()) << d.format_all();
  EXPECT_EQ(s.get<Small>("small").n, 5u);
  EXPECT_EQ(s.get<AllKinds>("kinds").count, 2);
  EXPECT_EQ(s.get<AllKinds>("kinds").label, "y");
  EXPECT_NE(config::to_toml(schema, "").find("[p.small]\nn = 5"), std::string::npos);
  EXPECT_FALSE(loader.apply_override("p.small.n=11"));
  EXPECT_EQ(only_error(d), "--set:2:11: p.small.n: 11 is out of range (valid: 1 to 10)");
}

TEST(PluginSections, SimConfigCopiesTheTopologySections) {
  DiagnosticEngine d;
  auto c = load_sim_config("", {"interconnect.crossbar.latency=7", "interconnect.ideal.latency=2"}, {}, d);
  ASSERT_TRUE(c) << d.format_all();
  SimConfig copy = *c;
  copy.timing.network.topologies.get<interconnect::CrossbarConfig>("crossbar").latency = 1;
  EXPECT_EQ(c->timing.network.topologies.get<interconnect::CrossbarConfig>("crossbar").latency, 7u);
  EXPECT_EQ(c->timing.network.topologies.get<interconnect::IdealConfig>("ideal").latency, 2u);
  const std::string shown = sim_config_toml(*c);
  EXPECT_NE(shown.find("\n[interconnect.ideal]\nlatency = 2"), std::string::npos) << shown;
  EXPECT_NE(shown.find("\n[interconnect.crossbar]\nlatency = 7"), std::string::npos) << shown;
}

// ---------------------------------------------------------------- show and docs

TEST_F(AllKindsFixture, ShowReloadsToTheSameValues) {
  ASSERT_TRUE(loader.apply_overrides(
      {"t.sub.flag=true", "t.sub.count=-6", "t.sub.big=9000000000", "t.sub.ratio=0.1",
       "t.sub.label=\"tab\\there \\\"q\\\" \\\\ é\"", "t.sub.mode=lazy", "t.sub.dims=[-1, 0, 300]",
       "t.sub.size=3000", "t.sub.clock=1410.25"}))
      << d.format_all();
  const std::string shown = config::to_toml(schema, "header");
  AllKinds reloaded;
  reloaded.label = "other";
  config::Schema schema2;
  schema2.add("t.sub", all_kinds_table(), reloaded);
  config::Loader loader2(schema2, d, {});
  ASSERT_TRUE(loader2.load_text(shown, "shown.toml")) << d.format_all() << shown;
  EXPECT_EQ(reloaded.flag, object.flag);
  EXPECT_EQ(reloaded.count, object.count);
  EXPECT_EQ(reloaded.big, object.big);
  EXPECT_EQ(reloaded.ratio, object.ratio);
  EXPECT_EQ(reloaded.label, object.label);
  EXPECT_EQ(reloaded.mode, object.mode);
  EXPECT_EQ(reloaded.dims, object.dims);
  EXPECT_EQ(reloaded.size, object.size);
  EXPECT_EQ(reloaded.clock, object.clock);
  EXPECT_EQ(config::to_toml(schema2, "header"), shown);
}

TEST(Show, AnnotatesEveryValueWithDescriptionAndUnit) {
  const std::string shown = sim_config_toml(SimConfig{});
  EXPECT_NE(shown.find("\n[gpu]\n"), std::string::npos);
  EXPECT_NE(shown.find("\n[functional]\n"), std::string::npos);
  EXPECT_NE(shown.find("num_sms = 132"), std::string::npos) << shown;
  EXPECT_NE(shown.find("shared_mem_per_sm = \"228KiB\""), std::string::npos) << shown;
  EXPECT_NE(shown.find("# shared memory per SM [233472 B]\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("# peak SM clock [MHz]\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("max_block_dim = [1024, 1024, 64]"), std::string::npos) << shown;
}

TEST(Show, ReloadsToTheSameConfigForEveryShippedConfigAndOverrides) {
  TempDir dir;
  std::vector<std::string> names = {""};
  for (const auto& c : config::list_named_configs({kConfigsDir})) names.push_back(c.name);
  for (const auto& name : names) {
    DiagnosticEngine d;
    auto c =
        load_sim_config(name, {"gpu.core_clock=1234.56", "functional.threads=7"}, {kConfigsDir}, d);
    ASSERT_TRUE(c) << d.format_all();
    const std::string shown = sim_config_toml(*c);
    auto again = load_sim_config(dir.write("shown.toml", shown), {}, {}, d);
    ASSERT_TRUE(again) << name << "\n" << d.format_all() << shown;
    EXPECT_EQ(again->gpu, c->gpu) << name;
    EXPECT_EQ(again->functional.threads, 7u);
    EXPECT_EQ(sim_config_toml(*again), shown) << name;
  }
}

TEST(Docs, OneTablePerSectionWithDefaults) {
  const std::string md = sim_config_markdown();
  EXPECT_EQ(md.rfind("# Configuration reference\n", 0), 0u);
  EXPECT_NE(md.find("## [gpu]\n"), std::string::npos);
  EXPECT_NE(md.find("## [functional]\n"), std::string::npos);
  EXPECT_NE(md.find("| `num_sms` | integer | `132` |  | 1 to 4096 | streaming multiprocessors |"),
            std::string::npos)
      << md;
  EXPECT_NE(
      md.find(
          "| `shared_mem_per_sm` | size | `\"228KiB\"` | B | 0B to 64MiB | shared memory per SM |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("- max_threads_per_block <= max_threads_per_sm\n"), std::string::npos);
}

// The example file in the docs' introduction is a valid config.
TEST(Docs, IntroExampleLoads) {
  const std::string md = sim_config_markdown();
  const size_t begin = md.find("```toml\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = md.find("```\n", begin + 8);
  ASSERT_NE(end, std::string::npos);
  TempDir dir;
  DiagnosticEngine d;
  auto c = load_text(dir, md.substr(begin + 8, end - begin - 8), d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->gpu.cc(), 80);
  EXPECT_EQ(c->gpu.l2_size, 80ull << 20);
  EXPECT_EQ(c->functional.threads, 4u);
}

TEST_F(AllKindsFixture, DocsEscapeTablePipes) {
  EXPECT_NE(config::to_markdown(schema).find("| a \\| label |"), std::string::npos)
      << config::to_markdown(schema);
}

// docs/config.md is generated; a changed table must come with a regenerated page.
TEST(ConfigDocs, UpToDate) {
  std::string committed;
  ASSERT_TRUE(read_file(kSourceDir + "/docs/config.md", committed)) << "docs/config.md is missing";
  EXPECT_TRUE(committed == sim_config_markdown())
      << "docs/config.md is out of date with the configuration tables. Regenerate it:\n"
         "  build/default/tools/warpsim config docs > docs/config.md\n"
         "(or with the warpsim of any build directory) and commit the result.";
}

// ---------------------------------------------------------------- helpers

TEST(Bytes, ParseAndFormat) {
  EXPECT_EQ(config::parse_bytes("48KiB", nullptr), 48u * 1024);
  EXPECT_EQ(config::parse_bytes("48 KiB", nullptr), 48u * 1024);
  EXPECT_EQ(config::parse_bytes("80GiB", nullptr), 80ull << 30);
  EXPECT_EQ(config::parse_bytes("1TiB", nullptr), 1ull << 40);
  EXPECT_EQ(config::parse_bytes("128B", nullptr), 128u);
  EXPECT_EQ(config::parse_bytes("4096", nullptr), 4096u);
  std::string error;
  EXPECT_FALSE(config::parse_bytes("48kb", &error));
  EXPECT_EQ(error, "\"48kb\": unknown size unit 'kb'; use B, KiB, MiB, GiB or TiB");
  EXPECT_FALSE(config::parse_bytes("", &error));
  EXPECT_FALSE(config::parse_bytes("-1KiB", &error));
  EXPECT_FALSE(config::parse_bytes("1.5GiB", &error));
  EXPECT_EQ(config::format_bytes(0), "0B");
  EXPECT_EQ(config::format_bytes(128), "128B");
  EXPECT_EQ(config::format_bytes(1536), "1536B");
  EXPECT_EQ(config::format_bytes(5632 * 1024), "5632KiB");
  EXPECT_EQ(config::format_bytes(50ull << 20), "50MiB");
  EXPECT_EQ(config::format_bytes(3ull << 40), "3TiB");
}

TEST(ClosestMatch, OnlyLikelyTypos) {
  std::vector<std::string> keys = {"num_sms", "warp_size", "l2_size"};
  EXPECT_EQ(config::closest_match("num_sm", keys), "num_sms");
  EXPECT_EQ(config::closest_match("NUM_SMS", keys), "num_sms");
  EXPECT_EQ(config::closest_match("l2size", keys), "l2_size");
  EXPECT_EQ(config::closest_match("frobnicate", keys), "");
}

TEST(NamedConfigs, SearchOrderAndShadowing) {
  TempDir dir;
  dir.write("a100.toml", "[gpu]\nname = \"local a100\"\n");
  dir.write("mine.toml", "");
  dir.write("notes.txt", "");
  auto list = config::list_named_configs({dir.path(), "/no/such/dir", kConfigsDir});
  ASSERT_GE(list.size(), 6u);
  EXPECT_EQ(list[0].name, "a100");
  EXPECT_FALSE(list[0].shadowed);
  EXPECT_EQ(list[1].name, "mine");
  bool shipped_a100_shadowed = false;
  for (const auto& c : list)
    if (c.name == "a100" && c.path.find(kConfigsDir) == 0) shipped_a100_shadowed = c.shadowed;
  EXPECT_TRUE(shipped_a100_shadowed);
  DiagnosticEngine d;
  auto c = load_sim_config("a100", {}, {dir.path(), kConfigsDir}, d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->gpu.name, "local a100");
  EXPECT_TRUE(config::is_config_name("h100"));
  EXPECT_FALSE(config::is_config_name("h100.toml"));
  EXPECT_FALSE(config::is_config_name("./h100"));
  EXPECT_FALSE(config::is_config_name(""));
}

TEST(SearchPath, EnvironmentFirstThenExecutableThenSourceTree) {
  setenv("WARPSIM_CONFIG_PATH", "/p/one::/p/two", 1);
  auto path = config_search_path();
  unsetenv("WARPSIM_CONFIG_PATH");
  ASSERT_EQ(path.size(), 4u);
  EXPECT_EQ(path[0], "/p/one");
  EXPECT_EQ(path[1], "/p/two");
  EXPECT_NE(path[2].find("share/warpsim/configs"), std::string::npos);
  EXPECT_EQ(path[3], kConfigsDir);
}

// User input never crashes: mutated configs and odd bytes only produce
// diagnostics.
TEST(Robustness, MutatedConfigsNeverCrash) {
  std::string h100;
  ASSERT_TRUE(read_file(kConfigsDir + "/h100.toml", h100));
  std::mt19937 rng(12345);
  const std::string alphabet = "[]{}=\"'.,#\n \\0123456789abcxyzKiB-+e_\x01\xff";
  for (int i = 0; i < 1500; ++i) {
    std::string text = h100;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (text.size() + 1);
      switch (rng() % 3) {
        case 0: text.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        case 1:
          if (pos < text.size()) text.erase(pos, 1 + rng() % 8);
          break;
        default:
          if (pos < text.size()) text[pos] = alphabet[rng() % alphabet.size()];
      }
    }
    SimConfig c;
    config::Schema schema = sim_config_schema(c);
    DiagnosticEngine d;
    config::Loader loader(schema, d, {});
    if (loader.load_text(text, "m.toml")) loader.validate();
    d.format_all();
  }
  // Short random documents and overrides.
  for (int i = 0; i < 3000; ++i) {
    std::string text = i % 2 ? "[gpu]\n" : "";
    const size_t n = rng() % 40;
    for (size_t k = 0; k < n; ++k) text += alphabet[rng() % alphabet.size()];
    SimConfig c;
    config::Schema schema = sim_config_schema(c);
    DiagnosticEngine d;
    config::Loader loader(schema, d, {});
    loader.load_text(text, "r.toml");
    loader.apply_override((i % 3 ? "gpu.max_block_dim=" : "gpu.l2_size=") + text);
    d.format_all();
  }
  DiagnosticEngine d;
  for (const std::string& text :
       {std::string(300, '['), std::string("a = ") + std::string(1000, '['),
        std::string("\0\0\0", 3), std::string("[gpu]\nnum_sms = 99999999999999999999999\n"),
        std::string("\xef\xbb\xbf[gpu]\n")}) {
    SimConfig c;
    config::Schema schema = sim_config_schema(c);
    config::Loader loader(schema, d, {});
    loader.load_text(text, "odd.toml");
  }
  SUCCEED();
}

// ---------------------------------------------------------------- [compiler]

TEST(CompilerConfig, PassesAreNoneByDefault) {
  DiagnosticEngine d;
  auto c = load_sim_config("", {}, {}, d);
  ASSERT_TRUE(c) << d.format_all();
  EXPECT_EQ(c->compiler.passes, "none");
  EXPECT_TRUE(ptx::PassPipeline(c->compiler).empty());
}

TEST(CompilerConfig, PassesAsAnArrayOrACommaSeparatedString) {
  TempDir dir;
  DiagnosticEngine d;
  auto a = load_text(dir, "[compiler]\npasses = [\"dead_moves\", \"offload_chains\"]\n", d);
  ASSERT_TRUE(a) << d.format_all();
  EXPECT_EQ(a->compiler.passes, "dead_moves, offload_chains");
  EXPECT_EQ(ptx::PassPipeline(a->compiler).passes().size(), 2u);
  auto b = load_sim_config("", {"compiler.passes=instruction_mix,offload_chains"}, {}, d);
  ASSERT_TRUE(b) << d.format_all();
  ptx::PassPipeline pipeline(b->compiler);
  ASSERT_EQ(pipeline.passes().size(), 2u);
  EXPECT_EQ(pipeline.passes()[0]->name(), "instruction_mix");
  EXPECT_EQ(pipeline.passes()[1]->name(), "offload_chains");
}

TEST(CompilerConfig, UnknownOrRepeatedPassIsALocatedError) {
  EXPECT_EQ(load_error("[compiler]\npasses = [\"dead_moves\", \"offload\"]\n"),
            "x.toml:2:10: compiler.passes: unknown compile pass 'offload' (one of: dead_moves, instruction_mix, "
            "offload_chains)");
  EXPECT_NE(override_error("compiler.passes=dead_moves,dead_moves").find("compile pass 'dead_moves' is listed twice"),
            std::string::npos);
  EXPECT_NE(load_error("[compiler]\npasses = [\"dead_moves\", 3]\n").find("element 1: expected a string"),
            std::string::npos);
  EXPECT_NE(load_error("[compiler.offload_chains]\nmax_span = 1\n").find("max_span"), std::string::npos);
}

}  // namespace
}  // namespace warpsim
