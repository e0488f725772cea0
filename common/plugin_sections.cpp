#include "common/plugin_sections.h"

#include <utility>

#include "common/invariant.h"

namespace warpsim::config {

PluginSections::PluginSections(const PluginSections& other) : sections_(other.sections_) {
  for (Section& s : sections_) s.object = s.table->clone(s.object.get());
}

PluginSections& PluginSections::operator=(const PluginSections& other) {
  if (this != &other) *this = PluginSections(other);
  return *this;
}

void PluginSections::add(std::string name, const TableBase& table) {
  WARPSIM_INVARIANT(!contains(name), "plug-in section names are unique");
  sections_.push_back({std::move(name), &table, table.clone(table.defaults())});
}

bool PluginSections::contains(std::string_view name) const {
  for (const Section& s : sections_)
    if (s.name == name) return true;
  return false;
}

void* PluginSections::find(std::string_view name, const std::type_info& type) const {
  for (const Section& s : sections_)
    if (s.name == name) {
      WARPSIM_INVARIANT(s.table->type() == type,
                        "a plug-in section is read with the type of its table");
      return s.object.get();
    }
  WARPSIM_INVARIANT(false, "a plug-in section is read by a registered name");
}

void PluginSections::bind(Schema& schema, std::string_view prefix) {
  for (Section& s : sections_)
    schema.add_section(std::string(prefix) + "." + s.name, *s.table, s.object.get());
}

}  // namespace warpsim::config
