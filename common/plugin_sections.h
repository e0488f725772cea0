#pragma once
// Configuration sections whose struct types only their plug-ins know.
//
// A seam whose plug-ins have keys of their own (each network topology has an
// [interconnect.<name>] section) holds one PluginSections: per plug-in, a
// section name, the plug-in's table and an object of the table's type,
// starting at the table's defaults. The holder never names the plug-ins'
// types: a plug-in reads its own section by type and name (get<T>), and the
// configuration layer binds every section into a Schema (bind), so all of
// them are loaded, validated, shown and documented whether or not their
// plug-in is selected.
//
// Value semantics: a copy copies every object (TableBase::clone), so a copied
// configuration shares nothing with the original. A move keeps the objects
// where they are (a Schema bound to them stays valid).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "common/config.h"

namespace warpsim::config {

class PluginSections {
 public:
  PluginSections() = default;
  PluginSections(const PluginSections& other);
  PluginSections& operator=(const PluginSections& other);
  PluginSections(PluginSections&&) noexcept = default;
  PluginSections& operator=(PluginSections&&) noexcept = default;

  // Adds section `name` holding a copy of `table`'s defaults; `table`
  // outlives this object (tables are static). Names are unique.
  void add(std::string name, const TableBase& table);

  // The object of section `name`, whose table's type must be T: asking for
  // a section that is not there, or with another type, is a warpsim bug.
  template <class T>
  T& get(std::string_view name) {
    return *static_cast<T*>(find(name, typeid(T)));
  }
  template <class T>
  const T& get(std::string_view name) const {
    return *static_cast<const T*>(find(name, typeid(T)));
  }

  bool contains(std::string_view name) const;
  size_t size() const { return sections_.size(); }

  // Adds every section to `schema` as "<prefix>.<name>", in the order added.
  // The objects must outlive the schema, as for Schema::add.
  void bind(Schema& schema, std::string_view prefix);

 private:
  struct Section {
    std::string name;
    const TableBase* table = nullptr;
    std::shared_ptr<void> object;  // owned alone: copies clone it
  };
  void* find(std::string_view name, const std::type_info& type) const;

  std::vector<Section> sections_;
};

}  // namespace warpsim::config
