// The workload suite description (benchmarks/suites.toml) as `warpsim bench`
// reads it: programs, per-preset arguments, named suites, and located errors.
#include "tools/workload_suite.h"

#include <gtest/gtest.h>

#include <string>

#include "common/source_file.h"

namespace warpsim::tools {
namespace {

struct Parsed {
  std::optional<WorkloadSuite> suite;
  std::string errors;
};

Parsed parse(const std::string& text) {
  SourceFile file("/x/benchmarks/suites.toml", text);
  DiagnosticEngine diags;
  Parsed p;
  p.suite = parse_workload_suite(file, diags);
  p.errors = diags.format_all();
  return p;
}

const char* kTwoPrograms = R"(
[suite.small-set]
description = "one of them"
programs = ["micro/copy-strided"]

[suite.all]
description = "both"
programs = ["*"]

[[program]]
suite = "rodinia"
name = "bfs"
description = "breadth-first search"
papers = ["wang-tc19", "pattnaik-isca19"]

[[program]]
suite = "micro"
name = "copy-strided"
description = "copy across partitions"
args.small = ["small", "--interleave", "256"]
)";

TEST(WorkloadSuite, ReadsProgramsArgumentsAndSuites) {
  Parsed p = parse(kTwoPrograms);
  ASSERT_TRUE(p.suite) << p.errors;
  const WorkloadSuite& s = *p.suite;
  ASSERT_EQ(s.programs.size(), 2u);
  EXPECT_EQ(s.programs[0].id(), "rodinia/bfs");
  EXPECT_EQ(s.programs[0].papers, (std::vector<std::string>{"wang-tc19", "pattnaik-isca19"}));
  EXPECT_TRUE(s.programs[1].papers.empty());
  // The preset is the default argument list; a program may give its own.
  EXPECT_EQ(s.programs[0].arguments("tiny"), std::vector<std::string>{"tiny"});
  EXPECT_EQ(s.programs[1].arguments("small"), (std::vector<std::string>{"small", "--interleave", "256"}));
  EXPECT_EQ(s.programs[1].arguments("large"), std::vector<std::string>{"large"});
  EXPECT_EQ(s.binary(s.programs[1]), "/x/benchmarks/micro/copy-strided");
  // `all` first; named suites resolve to program indices.
  ASSERT_EQ(s.suites.size(), 2u);
  EXPECT_EQ(s.suites[0].name, "all");
  EXPECT_EQ(s.suites[0].programs, (std::vector<size_t>{0, 1}));
  ASSERT_NE(s.find("small-set"), nullptr);
  EXPECT_EQ(s.find("small-set")->programs, std::vector<size_t>{1});
  EXPECT_EQ(s.find("nope"), nullptr);
}

TEST(WorkloadSuite, AllExistsEvenWhenTheFileDoesNotDefineIt) {
  Parsed p = parse("[[program]]\nsuite = \"a\"\nname = \"b\"\ndescription = \"c\"\n");
  ASSERT_TRUE(p.suite) << p.errors;
  ASSERT_NE(p.suite->find("all"), nullptr);
  EXPECT_EQ(p.suite->find("all")->programs, std::vector<size_t>{0});
}

TEST(WorkloadSuite, MistakesAreLocatedErrors) {
  // A typo in a key, with the line of its table and a suggestion.
  Parsed p = parse("[[program]]\nsuite = \"a\"\nname = \"b\"\ndescripton = \"c\"\n");
  EXPECT_FALSE(p.suite);
  EXPECT_NE(p.errors.find("suites.toml:1:"), std::string::npos) << p.errors;
  EXPECT_NE(p.errors.find("unknown key 'descripton'"), std::string::npos) << p.errors;
  EXPECT_NE(p.errors.find("did you mean 'description'"), std::string::npos) << p.errors;

  // A suite naming a program that does not exist.
  p = parse(std::string(kTwoPrograms) + "\n[suite.bad]\ndescription = \"x\"\nprograms = [\"rodinia/bsf\"]\n");
  EXPECT_FALSE(p.suite);
  EXPECT_NE(p.errors.find("unknown program 'rodinia/bsf'"), std::string::npos) << p.errors;
  EXPECT_NE(p.errors.find("did you mean 'rodinia/bfs'"), std::string::npos) << p.errors;

  // Duplicates, wrong types, path-like names, unknown presets, bad TOML.
  const std::pair<const char*, const char*> cases[] = {
      {"[[program]]\nsuite=\"a\"\nname=\"b\"\ndescription=\"c\"\n"
       "[[program]]\nsuite=\"a\"\nname=\"b\"\ndescription=\"d\"\n",
       "program a/b is listed twice"},
      {"[[program]]\nsuite=\"a\"\nname=\"b\"\ndescription=\"c\"\npapers=\"wang-tc19\"\n", "must be an array of strings"},
      {"[[program]]\nsuite=\"..\"\nname=\"b\"\ndescription=\"c\"\n", "must be plain words"},
      {"[[program]]\nsuite=\"a\"\nname=\"x/y\"\ndescription=\"c\"\n", "must be plain words"},
      {"[[program]]\nsuite=\"a\"\nname=\"b\"\ndescription=\"c\"\nargs.huge=[\"x\"]\n", "unknown key 'huge'"},
      {"[[program]]\nsuite=\"a\"\ndescription=\"c\"\n", "has no 'name'"},
      {"[suite.x]\ndescription=\"d\"\n", "suite 'x' has no 'programs'"},
      {"program = 3\n", "'program' must be an array of tables"},
      {"[[program]\n", "invalid TOML"},
  };
  for (const auto& [text, message] : cases) {
    p = parse(text);
    EXPECT_FALSE(p.suite) << text;
    EXPECT_NE(p.errors.find(message), std::string::npos) << text << "\n---\n" << p.errors;
  }
}

}  // namespace
}  // namespace warpsim::tools
