#pragma once
// The planes a flit-level topology builds from the configuration, without
// running anything: what the routed network simulates and what the area
// model (`warpsim noc area`) prices.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "interconnect/network.h"
#include "interconnect/router/fabric.h"
#include "interconnect/router/router_config.h"

namespace warpsim::interconnect {

// How a packet picks a plane when a node is attached to several.
enum class PlanePolicy : uint8_t {
  BySubnet,     // plane = subnet (physical request and reply networks)
  Single,       // one plane carries both subnets (virtual-channel classes)
  Alternate,    // combined double network: a node alternates between the planes
  ColumnParity, // double checkerboard inverted: even column distance -> plane of the source's full router
  Balanced,     // DCIE: as ColumnParity, but straight packets go to the less used plane (up/down counter)
};

struct RoutedLayout {
  std::vector<Fabric> planes;
  PlanePolicy policy = PlanePolicy::BySubnet;
  RouterConfig router;   // [interconnect.router] as the topology adjusted it
  uint32_t flit_bytes = 0;
  std::string routing;   // the routing function's registry name
  uint32_t protocol_classes = 1;  // 2 when requests and replies share a plane's virtual channels
};

// A layout of one fabric: two copies of it as physical request and reply
// networks, or one carrying both on separate virtual channels, as
// config.router.subnets says.
RoutedLayout single_fabric_layout(const NetworkConfig& config, Fabric fabric, std::string routing);

// Checks that the layout's routing can route every plane and that the
// virtual channels split evenly into its classes; "" or a message that
// starts with `section`.
std::string check_layout_routing(const RoutedLayout& layout, const std::string& section);

// The layout of topology config.topology over `roles`; nullopt with `error`
// set when the topology has no routers (ideal, crossbar) or the
// configuration does not fit the nodes (a located, user-facing message).
std::optional<RoutedLayout> routed_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                          std::string& error);

}  // namespace warpsim::interconnect
