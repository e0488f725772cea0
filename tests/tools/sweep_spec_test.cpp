// The sweep specification: reading (with located errors), expanding into
// points, the content hash that --resume trusts, and flattening statistics
// into the results table's columns.
#include <gtest/gtest.h>

#include "common/toml_document.h"
#include "tools/sweep_results.h"
#include "tools/sweep_runs.h"
#include "tools/sweep_spec.h"

namespace warpsim::tools {
namespace {

struct Parsed {
  std::optional<SweepSpec> spec;
  std::string errors;
};

Parsed parse(const std::string& text, const std::string& name = "/studies/x/spec.toml") {
  SourceFile file(name, text);
  DiagnosticEngine diags;
  Parsed p;
  if (auto doc = parse_toml_document(file, diags)) p.spec = read_sweep_spec(*doc, file, diags);
  p.errors = diags.format_all();
  return p;
}

TEST(SweepSpec, ProductOfConfigsAndAxesInOrder) {
  auto p = parse(R"(
name = "s"
programs = ["micro/copy-aligned"]
[[config]]
label = "A"
name = "gtx480"
set = ["timing.sm.warp_policy=lrr"]
[[config]]
label = "B"
name = "mine.toml"
[[axis]]
key = "timing.l1d.size"
name = "l1"
values = ["16KiB", "48KiB"]
[[axis]]
key = "interconnect.clock_mhz"
values = [700, 1400, 2800]
)");
  ASSERT_TRUE(p.spec) << p.errors;
  EXPECT_EQ(p.spec->configs[1].name, "/studies/x/mine.toml");  // a file is relative to the spec
  const auto points = expand_points(*p.spec);
  ASSERT_EQ(points.size(), 2u * 2u * 3u);
  EXPECT_EQ(points[0].id, "p000");
  EXPECT_EQ(points[11].id, "p011");
  // Configs outermost, the last axis fastest.
  EXPECT_EQ(points[0].label, "A, l1=16KiB, interconnect.clock_mhz=700");
  EXPECT_EQ(points[1].label, "A, l1=16KiB, interconnect.clock_mhz=1400");
  EXPECT_EQ(points[3].label, "A, l1=48KiB, interconnect.clock_mhz=700");
  EXPECT_EQ(points[6].label, "B, l1=16KiB, interconnect.clock_mhz=700");
  // Spec, config, then axis overrides, in that order.
  EXPECT_EQ(points[1].overrides, (std::vector<std::string>{"timing.sm.warp_policy=lrr", "timing.l1d.size=16KiB",
                                                           "interconnect.clock_mhz=1400"}));
  EXPECT_EQ(parameter_columns(*p.spec),
            (std::vector<std::string>{"config", "mode", "preset", "l1", "interconnect.clock_mhz"}));
  EXPECT_EQ(points[4].parameters[4].second, nlohmann::json(1400));
}

TEST(SweepSpec, ZippedAxesAndMultiKeyAxisWithLabels) {
  auto p = parse(R"(
programs = ["a/b"]
combine = "zip"
modes = ["timing", "functional"]
[[axis]]
name = "scale"
keys = ["interconnect.clock_mhz", "timing.partition.l2_clock_mhz"]
values = [350, [700, 1400]]
labels = [0.25, 0.5]
[[axis]]
key = "timing.sm.warp_policy"
values = ["gto", "lrr"]
)");
  ASSERT_TRUE(p.spec) << p.errors;
  EXPECT_EQ(p.spec->name, "spec");  // the file's name when not given
  const auto points = expand_points(*p.spec);
  ASSERT_EQ(points.size(), 2u * 2u);  // zipped steps x modes
  EXPECT_EQ(points[0].overrides, (std::vector<std::string>{"interconnect.clock_mhz=350",
                                                           "timing.partition.l2_clock_mhz=350",
                                                           "timing.sm.warp_policy=gto"}));
  EXPECT_EQ(points[2].overrides[1], "timing.partition.l2_clock_mhz=1400");
  EXPECT_EQ(points[2].overrides[2], "timing.sm.warp_policy=lrr");
  EXPECT_EQ(points[1].label, "mode=functional, scale=0.25, timing.sm.warp_policy=gto");
}

TEST(SweepSpec, ErrorsAreLocatedAndNamed) {
  auto p = parse("programs = [\"a/b\"]\nmode = \"fast\"\n[[axis]]\nkey = \"x.y\"\nvalues = [1]\nvalue = 3\n");
  EXPECT_FALSE(p.spec);
  EXPECT_NE(p.errors.find("unknown mode 'fast'"), std::string::npos) << p.errors;
  EXPECT_NE(p.errors.find("spec.toml:3:1: error: unknown key 'value' in [[axis]] (did you mean 'values'?)"),
            std::string::npos) << p.errors;

  p = parse("name = \"n\"\n");
  EXPECT_NE(p.errors.find("names no programs"), std::string::npos) << p.errors;

  p = parse("programs = [\"a/b\"]\ncombine = \"zip\"\n[[axis]]\nkey = \"a.b\"\nvalues = [1, 2]\n"
            "[[axis]]\nkey = \"c.d\"\nvalues = [1]\n");
  EXPECT_NE(p.errors.find("zip\" needs axes of one length"), std::string::npos) << p.errors;

  p = parse("programs = [\"a/b\"]\nset = [\"nodot=1\"]\n[[config]]\nlabel = \"x\"\n[[config]]\nlabel = \"x\"\n");
  EXPECT_NE(p.errors.find("'nodot=1' is not a section.key=value override"), std::string::npos) << p.errors;
  EXPECT_NE(p.errors.find("two configurations are labelled 'x'"), std::string::npos) << p.errors;

  p = parse("programs = [\"a/b\"]\n[[axis]]\nkeys = [\"a.b\", \"c.d\"]\nname = \"n\"\nvalues = [[1, 2, 3]]\n");
  EXPECT_NE(p.errors.find("has 3 entries for 2 keys"), std::string::npos) << p.errors;

  p = parse("programs = [\"a/b\"]\n[[program]]\nname = \"p\"\n");
  EXPECT_NE(p.errors.find("needs a 'command'"), std::string::npos) << p.errors;
}

TEST(SweepSpec, CommandsResolveAgainstTheSpecFolder) {
  auto p = parse("[[program]]\nname = \"mine\"\ncommand = [\"bin/app\", \"--n\", \"3\"]\npass = \"OK\"\n"
                 "[[program]]\nname = \"sys\"\ncommand = [\"app-on-path\"]\n");
  ASSERT_TRUE(p.spec) << p.errors;
  ASSERT_EQ(p.spec->commands.size(), 2u);
  EXPECT_EQ(p.spec->commands[0].command,
            (std::vector<std::string>{"/studies/x/bin/app", "--n", "3"}));
  EXPECT_EQ(p.spec->commands[0].pass_line, "OK");
  EXPECT_EQ(p.spec->commands[1].command[0], "app-on-path");
}

TEST(ContentHash, StableAndSeparated) {
  ContentHash a, b, c;
  a.add("ab");
  a.add("c");
  b.add("a");
  b.add("bc");
  c.add("ab");
  c.add("c");
  EXPECT_NE(a.hex(), b.hex());  // the parts' boundaries count
  EXPECT_EQ(a.hex(), c.hex());
  EXPECT_EQ(a.hex().size(), 32u);
  ContentHash empty;
  EXPECT_EQ(empty.hex(), "cbf29ce48422232584222325cbf29ce4");  // the seeds: a fixed, documented start
}

TEST(SweepResults, FlattenKeepsValuesOfPrefixNamesAndIndexesArrays) {
  const auto j = nlohmann::json::parse(R"({
    "gpu_tot_sim_cycle": 10,
    "timing": {"l1d": {"value": 5, "misses": 2}, "name": "x"},
    "list": [1, {"a": 2}],
    "kernels": [{"cycles": 3}]
  })");
  std::map<std::string, nlohmann::json> flat;
  flatten_statistics(j, "", flat, {"kernels"});
  EXPECT_EQ(flat.size(), 6u);
  EXPECT_EQ(flat["gpu_tot_sim_cycle"], 10);
  EXPECT_EQ(flat["timing.l1d"], 5);
  EXPECT_EQ(flat["timing.l1d.misses"], 2);
  EXPECT_EQ(flat["timing.name"], "x");
  EXPECT_EQ(flat["list.0"], 1);
  EXPECT_EQ(flat["list.1.a"], 2);
  EXPECT_EQ(flat.count("kernels.0.cycles"), 0u);
}

}  // namespace
}  // namespace warpsim::tools
