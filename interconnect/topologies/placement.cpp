// Node placement patterns (see placement.h).
#include "interconnect/topologies/placement.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

namespace warpsim::interconnect {
namespace {

// `count` positions spread evenly over [0, n).
std::vector<uint32_t> spread(uint32_t count, uint32_t n) {
  std::vector<uint32_t> at;
  for (uint32_t i = 0; i < count; ++i) at.push_back(static_cast<uint32_t>((2 * i + 1) * n / (2 * count)));
  return at;
}

std::vector<uint32_t> top_bottom(const GridPlacementRequest& q, std::string& error) {
  // A one-row grid has its top and bottom in the same row.
  const uint32_t top = q.rows < 2 ? q.memory_nodes : (q.memory_nodes + 1) / 2, bottom = q.memory_nodes - top;
  if (top > q.columns * q.concentration) {
    error = fmt::format("top-bottom placement: {} memory nodes do not fit in the top and bottom rows of a {}x{} grid",
                        q.memory_nodes, q.columns, q.rows);
    return {};
  }
  std::vector<uint32_t> out;
  for (auto [count, row] : {std::pair{top, 0u}, std::pair{bottom, q.rows - 1}}) {
    const uint32_t routers = (count + q.concentration - 1) / q.concentration;
    const uint32_t first = (q.columns - routers) / 2;
    for (uint32_t i = 0; i < count; ++i) out.push_back(row * q.columns + first + i / q.concentration);
  }
  return out;
}

std::vector<uint32_t> peripheral(const GridPlacementRequest& q, bool rows, std::string& error) {
  const uint32_t a = (q.memory_nodes + 1) / 2, b = q.memory_nodes - a;
  const uint32_t length = rows ? q.columns : q.rows;
  if (a > length * q.concentration || (rows ? q.rows : q.columns) < 2) {
    error = fmt::format("peripheral placement: {} memory nodes do not fit on two sides of a {}x{} grid",
                        q.memory_nodes, q.columns, q.rows);
    return {};
  }
  std::vector<uint32_t> out;
  for (auto [count, side] : {std::pair{a, 0u}, std::pair{b, 1u}}) {
    const uint32_t routers = (count + q.concentration - 1) / q.concentration;
    const std::vector<uint32_t> at = spread(routers, length);
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t along = at[i / q.concentration];
      out.push_back(rows ? (side ? q.rows - 1 : 0) * q.columns + along
                         : along * q.columns + (side ? q.columns - 1 : 0));
    }
  }
  return out;
}

// Greedy: candidates in a fixed order, each taken if it keeps the rules.
std::vector<uint32_t> pick(const GridPlacementRequest& q, const std::vector<uint32_t>& candidates,
                           bool spacing, std::string& error, const char* name) {
  std::vector<uint32_t> out;
  std::vector<uint32_t> per_row(q.rows, 0), per_col(q.columns, 0);
  for (int pass = 0; pass < 2 && out.size() < q.memory_nodes; ++pass)
    for (uint32_t r : candidates) {
      if (out.size() == q.memory_nodes) break;
      if (std::find(out.begin(), out.end(), r) != out.end()) continue;
      const uint32_t x = r % q.columns, y = r / q.columns;
      bool ok = true;
      if (spacing && pass == 0) {
        ok = per_row[y] < 2 && per_col[x] < 2;
        for (uint32_t o : out) {
          const uint32_t ox = o % q.columns, oy = o / q.columns;
          if (std::abs(int(ox) - int(x)) + std::abs(int(oy) - int(y)) <= 1) ok = false;
        }
      }
      if (!ok) continue;
      out.push_back(r);
      per_row[y]++, per_col[x]++;
    }
  if (out.size() < q.memory_nodes) {
    error = fmt::format("{} placement: only {} of {} memory nodes fit on a {}x{} grid", name, out.size(),
                        q.memory_nodes, q.columns, q.rows);
    return {};
  }
  return out;
}

std::vector<uint32_t> checkerboard(const GridPlacementRequest& q, std::string& error) {
  // Half routers, the top-right corner first, then by distance from the
  // centre (farthest first), ties by row then column: placements away from
  // the centre, spread by the spacing rules.
  std::vector<uint32_t> half;
  for (uint32_t y = 0; y < q.rows; ++y)
    for (uint32_t x = 0; x < q.columns; ++x)
      if ((x + y) % 2 == 1) half.push_back(y * q.columns + x);
  const double cx = (q.columns - 1) / 2.0, cy = (q.rows - 1) / 2.0;
  const uint32_t corner = q.columns - 1;  // (columns-1, 0)
  std::stable_sort(half.begin(), half.end(), [&](uint32_t a, uint32_t b) {
    if ((a == corner) != (b == corner)) return a == corner;
    const double da = std::abs(a % q.columns - cx) + std::abs(a / q.columns - cy);
    const double db = std::abs(b % q.columns - cx) + std::abs(b / q.columns - cy);
    return da > db;
  });
  if (q.concentration != 1) {
    error = "checkerboard placement needs one node per router";
    return {};
  }
  return pick(q, half, true, error, "checkerboard");
}

std::vector<uint32_t> diamond(const GridPlacementRequest& q, std::string& error) {
  std::vector<uint32_t> cells(q.columns * q.rows);
  for (uint32_t i = 0; i < cells.size(); ++i) cells[i] = i;
  const double cx = (q.columns - 1) / 2.0, cy = (q.rows - 1) / 2.0;
  const double radius = std::min(cx, cy) + 0.5;
  std::stable_sort(cells.begin(), cells.end(), [&](uint32_t a, uint32_t b) {
    const double da = std::abs(std::abs(a % q.columns - cx) + std::abs(a / q.columns - cy) - radius);
    const double db = std::abs(std::abs(b % q.columns - cx) + std::abs(b / q.columns - cy) - radius);
    return da < db;
  });
  return pick(q, cells, true, error, "diamond");
}

std::vector<uint32_t> listed(const GridPlacementRequest& q, std::string& error) {
  std::vector<uint32_t> out;
  const std::string& s = q.list;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    const std::string item = s.substr(i, j - i);
    char* end = nullptr;
    const unsigned long v = std::strtoul(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v >= uint64_t{q.columns} * q.rows) {
      error = fmt::format("memory_routers: '{}' is not a router of the {}x{} grid (0..{})", item, q.columns,
                          q.rows, q.columns * q.rows - 1);
      return {};
    }
    out.push_back(static_cast<uint32_t>(v));
    i = j + 1;
  }
  if (out.size() != q.memory_nodes) {
    error = fmt::format("memory_routers lists {} routers but the GPU has {} memory nodes (L2 slices)", out.size(),
                        q.memory_nodes);
    return {};
  }
  return out;
}

}  // namespace

const std::vector<std::string>& placement_patterns() {
  static const std::vector<std::string> names = {"top-bottom", "peripheral-row", "peripheral-column",
                                                 "diamond",    "checkerboard",   "list"};
  return names;
}

std::vector<uint32_t> place_memory_nodes(const GridPlacementRequest& q, std::string& error) {
  std::vector<uint32_t> out;
  if (q.memory_nodes == 0) return out;
  if (q.pattern == "top-bottom") out = top_bottom(q, error);
  else if (q.pattern == "peripheral-row") out = peripheral(q, true, error);
  else if (q.pattern == "peripheral-column") out = peripheral(q, false, error);
  else if (q.pattern == "diamond") out = diamond(q, error);
  else if (q.pattern == "checkerboard") out = checkerboard(q, error);
  else if (q.pattern == "list") out = listed(q, error);
  else error = "unknown placement '" + q.pattern + "'";
  if (!error.empty()) return {};
  // No router takes more memory nodes than it has slots.
  std::vector<uint32_t> count(q.columns * q.rows, 0);
  for (uint32_t r : out)
    if (++count[r] > q.concentration) {
      error = fmt::format("placement puts more than {} node(s) at router {}", q.concentration, r);
      return {};
    }
  return out;
}

}  // namespace warpsim::interconnect
