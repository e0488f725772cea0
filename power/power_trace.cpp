// PowerTrace: one CSV row per sampled stretch of a launch.
#include "power/power_trace.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace warpsim::power {
namespace {

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

PowerTrace::PowerTrace(const std::string& path, const PowerConfig& config, const Machine& machine)
    : config_(config), machine_(machine) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) {
    error_ = fmt::format("cannot write the power trace {}: {}", path, std::strerror(errno));
    return;
  }
  std::string header = "launch,kernel,first_cycle,end_cycle,seconds";
  for (std::string_view g : kGroupNames) header += fmt::format(",{}_W", g);
  // The warp instructions issued in the row: IPC over time next to power.
  header += ",total_W,warp_instructions\n";
  std::fputs(header.c_str(), file_);
}

PowerTrace::~PowerTrace() {
  if (file_ != nullptr) std::fclose(file_);
}

void PowerTrace::begin_launch(std::string_view kernel, uint64_t first_cycle) {
  ++launch_;
  kernel_ = csv_field(kernel);
  first_cycle_ = first_cycle;
  previous_ = Activity{};
}

void PowerTrace::sample(const Activity& launch_so_far) {
  if (file_ == nullptr) return;
  const Activity delta = launch_so_far.minus(previous_);
  if (delta["gpu_tot_sim_cycle"] == 0) return;
  const uint64_t begin = first_cycle_ + previous_["gpu_tot_sim_cycle"];
  const EnergyReport r = estimate(config_, machine_, delta);
  std::string row = fmt::format("{},{},{},{},{:.9g}", launch_, kernel_, begin, begin + r.cycles, r.seconds);
  for (size_t g = 0; g < kGroups; ++g) row += fmt::format(",{:.6g}", r.group_watts(static_cast<Group>(g)));
  row += fmt::format(",{:.6g},{}\n", r.average_watts(), delta["timing.warp_instructions"]);
  std::fputs(row.c_str(), file_);
  ++rows_;
  previous_ = launch_so_far;
}

}  // namespace warpsim::power
