// The timing model's statistics: every table published where the catalogue
// says, no two tables publishing one name, every published name documented,
// and docs/statistics.md current.
#include "functional/offload_counts.h"
#include "ptx/compiler_config.h"
#include "ptx/passes/pass_registry.h"
#include "timing/statistics.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tests/timing/timing_test_util.h"
#include "timing/cluster/port_mechanism_registry.h"
#include "timing/launch_activity.h"

namespace warpsim::timing {
namespace {

using functional::param_bytes;
using testing::TimedDevice;

// Every name the catalogue says is published, with N for an instance
// number: headline and prefixed names, and the per-instance ones.
std::set<std::string> catalogued_names() {
  std::set<std::string> names;
  for (const PublishedTable& t : published_tables())
    for (const stats::Row& row : t.table->rows()) {
      for (const stats::Instance& w : t.where) {
        const std::string name = stats::published_name(row, w);
        EXPECT_TRUE(names.insert(name).second) << name << " is published by two tables";
      }
      if (!row.per_instance) continue;
      // "timing.{sm.N.l1d,partition.N.l2}" names one prefix per alternative.
      const std::string pattern(t.per_instance);
      const size_t open = pattern.find('{'), close = pattern.find('}');
      std::vector<std::string> prefixes;
      if (open == std::string::npos) {
        prefixes.push_back(pattern);
      } else {
        std::stringstream alts(pattern.substr(open + 1, close - open - 1));
        for (std::string a; std::getline(alts, a, ',');)
          prefixes.push_back(pattern.substr(0, open) + a + pattern.substr(close + 1));
      }
      for (const std::string& p : prefixes) names.insert(p + "." + row.name);
    }
  return names;
}

TEST(Statistics, NoTwoTablesPublishOneName) { catalogued_names(); }

TEST(Statistics, EveryPublishedNameIsCatalogued) {
  SimConfig c = testing::small_gpu();
  c.timing.gpu.sms_per_cluster = 2;
  // Every registered cluster-port mechanism, so that theirs are published too.
  c.timing.cluster.mechanisms = port_mechanisms().joined();
  TimedDevice t(c, R"(
.visible .entry copy(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<4>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %tid.x;
  mad.lo.u32 %r3, %r1, 128, %r2;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd2, %rd3; add.s64 %rd5, %rd1, %rd3;
  ld.global.u32 %r1, [%rd4];
  atom.global.add.u32 %r2, [%rd5], %r1;
  ret;
}
)");
  const uint64_t in = t.alloc(16 * 128 * 4), out = t.alloc(16 * 128 * 4);
  ASSERT_TRUE(t.run("copy", {16}, {128}, {param_bytes(out), param_bytes(in)}).ok());
  StatsRegistry stats;
  publish(stats, t.gpu->last());
  // Every registered compile pass, run on a module, and the counts of the
  // offload chains a program executed (both published by the runtime shim).
  ptx::CompilerConfig compiler;
  compiler.passes = ptx::compile_passes().joined();
  ptx::PassPipeline pipeline(compiler);
  const std::string kernel = ".version 8.5\n.target sm_80\n.address_size 64\n"
                             ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<2>; .reg .b64 %rd<2>;\n"
                             "ld.param.u64 %rd1, [p];\nld.global.u32 %r1, [%rd1];\nst.global.u32 [%rd1+4], %r1;\n"
                             "ret;\n}\n";
  const ptx::PtxSource source{kernel, "k.ptx"};
  DiagnosticEngine diags;
  ASSERT_TRUE(ptx::compile(std::span(&source, 1), pipeline.options(), diags)) << diags.format_all();
  pipeline.publish(stats);
  functional::offload_counts_table().publish(stats, functional::OffloadCounts{},
                                             {functional::kOffloadCountsPrefix});
  const std::set<std::string> names = catalogued_names();
  const std::regex number(R"(\.\d+\.)");
  size_t instances = 0;
  for (const auto& [name, value] : stats.values()) {
    const std::string generic = std::regex_replace(name, number, ".N.");
    instances += generic != name;
    EXPECT_TRUE(names.count(generic)) << name << " is published but not in the statistics catalogue";
  }
  EXPECT_GT(instances, 0u);
  // And every summed figure of the catalogue was published.
  for (const PublishedTable& pt : published_tables())
    for (const stats::Row& row : pt.table->rows())
      for (const stats::Instance& w : pt.where)
        EXPECT_TRUE(stats.has(stats::published_name(row, w))) << stats::published_name(row, w);
}

// docs/statistics.md is generated; a changed table must come with a
// regenerated page.
TEST(StatisticsDocs, UpToDate) {
  std::ifstream in(std::string(WARPSIM_SOURCE_DIR) + "/docs/statistics.md");
  ASSERT_TRUE(in) << "docs/statistics.md is missing";
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_TRUE(committed.str() == statistics_markdown())
      << "docs/statistics.md is out of date with the statistics tables. Regenerate it:\n"
         "  build/default/tools/warpsim stats docs > docs/statistics.md\n"
         "(or with the warpsim of any build directory) and commit the result.";
}

}  // namespace
}  // namespace warpsim::timing
