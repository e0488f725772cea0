#pragma once
// The compiler's configuration, [compiler]: which compile passes run, in
// order, and each pass's own section [compiler.<pass>]. The compile pipeline
// (ptx/compile.h) takes the passes made from it.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/plugin_sections.h"
#include "common/stats.h"
#include "ptx/compile.h"

namespace warpsim::ptx {

struct CompilerConfig {
  std::string passes = "none";  // comma-separated pass names; "none": none
  bool check_after_each_pass = false;
  config::PluginSections sections;  // [compiler.<pass>], one per registered pass

  CompilerConfig();
};

const config::Table<CompilerConfig>& compiler_config_table();

// Adds [compiler] and every [compiler.<pass>] of `config` to `schema`.
void add_compiler_sections(config::Schema& schema, CompilerConfig& config);

// The passes `config` names, made in order (the table validated the names),
// and the options that run them.
class PassPipeline {
 public:
  explicit PassPipeline(const CompilerConfig& config);

  bool empty() const { return passes_.empty(); }
  CompileOptions options() const;
  // Publishes what every pass did since the last call at compiler.<pass>.
  void publish(StatsRegistry& stats);
  std::span<const std::unique_ptr<ModulePass>> passes() const { return passes_; }

 private:
  std::vector<std::unique_ptr<ModulePass>> passes_;
  std::vector<std::string> names_;
  bool check_after_each_pass_ = false;
};

}  // namespace warpsim::ptx
