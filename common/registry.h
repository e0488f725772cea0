#pragma once
// Plug-ins chosen by name from the configuration.
//
// Every seam where a policy or a mechanism plugs in (CTA scheduling, warp
// scheduling, DRAM scheduling, network topologies, switch allocators, ...)
// has one Registry: a constant list of entries - name, one-line description,
// factory - written as a `.def` file with one line per plug-in, in the order
// the docs list them. The registry gives the names (for the docs, and for the
// contract tests, which run over every registered plug-in so that a new one
// is tested without editing a test), checks a configured name with a message
// that lists the valid ones, and makes the plug-in.
//
// Adding a plug-in is its own .cpp defining the factory, one line in the
// seam's .def file and one line in the layer's CMakeLists.txt.
//
// A seam's registry, in its .cpp (the .def file lists
// WARPSIM_PLUGIN(name, factory, description) lines):
//
//   #define WARPSIM_PLUGIN(name, factory, description) std::unique_ptr<CtaScheduler> factory(const CtaSchedulerConfig&);
//   #include "timing/cta/cta_policies.def"
//   #undef WARPSIM_PLUGIN
//
//   const CtaPolicyRegistry& cta_policies() {
//     static const CtaPolicyRegistry registry("CTA scheduling policy", {
//   #define WARPSIM_PLUGIN(name, factory, description) {name, description, factory},
//   #include "timing/cta/cta_policies.def"
//   #undef WARPSIM_PLUGIN
//     });
//     return registry;
//   }
//
// The entries are fixed when the registry is built (no static-initialiser
// self-registration, so nothing depends on what the linker keeps).
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/invariant.h"

namespace warpsim {

// The names in a configured list of plug-ins, in order: "a, b" or "a,b";
// "" and "none" are none (`--set` needs a value).
std::vector<std::string> name_list(std::string_view list);

// What every registry offers without knowing its factories' type: the
// configuration tables check names through this.
class RegistryNames {
 public:
  // `what` names a plug-in of this seam in messages: "CTA scheduling policy".
  explicit RegistryNames(std::string what) : what_(std::move(what)) {}

  const std::string& what() const { return what_; }
  const std::vector<std::string_view>& names() const { return names_; }
  bool contains(std::string_view name) const;
  // "a, b, c"
  std::string joined() const;
  // "" when `name` is registered, else
  // "unknown CTA scheduling policy 'x' (one of: a, b, c)".
  std::string check(std::string_view name) const;
  // Why `list` (a name_list) is not a valid list of this seam's plug-ins
  // (an unknown or repeated name), or "".
  std::string check_list(std::string_view list) const;

 protected:
  std::string what_;
  std::vector<std::string_view> names_;
};

// Factory: the plug-in's factory function type, such as
// std::unique_ptr<CtaScheduler> (*)(const CtaSchedulerConfig&).
template <class Factory>
class Registry : public RegistryNames {
 public:
  struct Entry {
    std::string_view name;
    std::string_view description;  // one line, for the docs
    Factory make;
  };

  Registry(std::string what, std::initializer_list<Entry> entries)
      : RegistryNames(std::move(what)), entries_(entries) {
    for (const Entry& e : entries_) {
      WARPSIM_INVARIANT(!contains(e.name), "a plug-in name is registered twice");
      names_.push_back(e.name);
    }
  }

  std::span<const Entry> entries() const { return entries_; }
  // "a: what a does; b: what b does", for configuration descriptions.
  std::string described() const {
    std::string all;
    for (const Entry& e : entries_)
      all += (all.empty() ? "" : "; ") + std::string(e.name) + ": " + std::string(e.description);
    return all;
  }
  const Entry* find(std::string_view name) const {
    for (const Entry& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  // The factory of `name`. The configuration layer validated the name, so
  // an unknown one is a warpsim bug.
  Factory factory(std::string_view name) const {
    const Entry* e = find(name);
    if (e == nullptr) [[unlikely]]
      invariant_failed("registered name", check(name) + " (the configuration layer validates names)", __FILE__,
                       __LINE__);
    return e->make;
  }
  // Makes the plug-in `name` from `args`.
  template <class... Args>
  auto make(std::string_view name, Args&&... args) const {
    return factory(name)(std::forward<Args>(args)...);
  }

 private:
  std::vector<Entry> entries_;
};

}  // namespace warpsim
