// The allocator registry, from allocators.def.
#include "interconnect/allocators/allocator.h"

namespace warpsim::interconnect {

#define WARPSIM_PLUGIN(name, factory, description) \
  std::unique_ptr<Allocator> factory(const AllocatorConfig& config);
#include "interconnect/allocators/allocators.def"
#undef WARPSIM_PLUGIN

const AllocatorRegistry& allocators() {
  static const AllocatorRegistry registry("switch allocator", {
#define WARPSIM_PLUGIN(name, factory, description) {name, description, factory},
#include "interconnect/allocators/allocators.def"
#undef WARPSIM_PLUGIN
  });
  return registry;
}

}  // namespace warpsim::interconnect
