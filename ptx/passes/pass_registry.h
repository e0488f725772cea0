#pragma once
// The compile-pass registry (common/registry.h): one line per pass in
// passes.def, naming its factory, its configuration section
// [compiler.<name>] and its statistics table (published at compiler.<name>).
// [compiler] passes lists the ones the compile pipeline runs, in order.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/plugin_sections.h"
#include "common/registry.h"
#include "common/stat_table.h"
#include "ptx/compile.h"

namespace warpsim::ptx {

// What a pass is told when it is made.
struct PassContext {
  const config::PluginSections* sections = nullptr;  // [compiler.<name>]

  template <class T>
  const T& section(std::string_view name) const {
    return sections->get<T>(name);
  }
};

struct PassPlugin {
  std::unique_ptr<ModulePass> (*make)(const PassContext&);
  const config::TableBase& (*config)();
  const stats::StatTableBase& (*stats)();

  std::unique_ptr<ModulePass> operator()(const PassContext& context) const { return make(context); }
};
using PassRegistry = Registry<PassPlugin>;

const PassRegistry& compile_passes();

// One section per registered pass, at its table's defaults.
config::PluginSections pass_sections();

// Where pass `name`'s counters are published: "compiler.<name>".
std::string pass_prefix(std::string_view name);

}  // namespace warpsim::ptx
