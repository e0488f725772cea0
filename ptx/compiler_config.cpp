// [compiler]: the table, and the passes it names.
#include "ptx/compiler_config.h"

#include "ptx/passes/pass_registry.h"

namespace warpsim::ptx {

CompilerConfig::CompilerConfig() : sections(pass_sections()) {}

const config::Table<CompilerConfig>& compiler_config_table() {
  static const config::Table<CompilerConfig> table = [] {
    using C = CompilerConfig;
    config::Table<C> t("Compiler: the passes run on every PTX module between checking and lowering");
    t.string("passes", &C::passes,
             "compile passes, comma-separated or a TOML array, run in this order on every module (each "
             "has its section [compiler.<name>]; \"\" or \"none\": none): " +
                 compile_passes().described())
        .list()
        .check("registered names, each once",
               [](const config::Value& v) { return compile_passes().check_list(std::get<std::string>(v)); });
    t.boolean("check_after_each_pass", &C::check_after_each_pass,
              "check the module again after every pass and report what a pass broke as an error naming "
              "it (for developing passes)");
    return t;
  }();
  return table;
}

void add_compiler_sections(config::Schema& schema, CompilerConfig& config) {
  schema.add("compiler", compiler_config_table(), config);
  config.sections.bind(schema, "compiler");
}

PassPipeline::PassPipeline(const CompilerConfig& config)
    : names_(name_list(config.passes)), check_after_each_pass_(config.check_after_each_pass) {
  const PassContext context{&config.sections};
  for (const std::string& name : names_) passes_.push_back(compile_passes().make(name, context));
}

CompileOptions PassPipeline::options() const {
  CompileOptions options;
  for (const auto& p : passes_) options.passes.push_back(p.get());
  options.check_after_each_pass = check_after_each_pass_;
  return options;
}

void PassPipeline::publish(StatsRegistry& stats) {
  for (size_t i = 0; i < passes_.size(); ++i) passes_[i]->publish(stats, pass_prefix(names_[i]));
}

}  // namespace warpsim::ptx
