#pragma once
// Contract tests run over a registry's names (common/registry.h):
//   INSTANTIATE_TEST_SUITE_P(Registered, Suite, ::testing::ValuesIn(registry.names()),
//                            warpsim::plugin_test_name<std::string_view>);
// names each instance after its plug-in ("two-level-rr" -> two_level_rr).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace warpsim {

template <class Name>
std::string plugin_test_name(const ::testing::TestParamInfo<Name>& info) {
  std::string n(info.param);
  std::replace_if(n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return n;
}

}  // namespace warpsim
