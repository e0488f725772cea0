// The shim's own declarations of the CUDA runtime ABI (libcudart_shim/
// cuda_abi.h) against the real headers: clang lays out every struct and union
// of cuda_abi.h both ways (-fdump-record-layouts) and every field must sit at
// the same offset, every record have the same size. CUDA 13 is checked
// against /usr/local/cuda/include, CUDA 11 against Debian's 11.8 headers in
// /usr/include when installed (scripts/install-cuda11.sh); the CUDA 12
// layouts, whose headers cannot be installed here, are pinned by the
// static_asserts of abi_layout_cuda12.cpp (docs/runtime-shim.md).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Layout {
  uint64_t size = 0;
  std::map<std::string, uint64_t> fields;  // "a.b.c" -> byte offset
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

// The ABI headers checked: cuda_abi.h and the per-feature parts that
// include it (memory pools: cuda_abi_pool.h; graphs: cuda_abi_graph.h, and
// cuda_abi_graph12.h with the records CUDA 12 introduced), each with the
// first CUDA major that has its records.
struct AbiHeader {
  const char* file;
  int since;
};
const AbiHeader kAbiHeaders[] = {
    {"cuda_abi.h", 11}, {"cuda_abi_pool.h", 11}, {"cuda_abi_graph.h", 11}, {"cuda_abi_graph12.h", 12}};

// The struct and union tags defined in the ABI headers.
std::vector<std::string> abi_records(int major) {
  std::vector<std::string> names;
  for (const AbiHeader& h : kAbiHeaders) {
    if (major < h.since) continue;
    const std::string text = read_file(std::string(WARPSIM_SOURCE_DIR "/libcudart_shim/") + h.file);
    std::regex re(R"(\n(struct|union) (\w+) \{)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[2];
      if (name != "__fatBinC_Wrapper_t") names.push_back(name);  // not in the API headers
    }
  }
  return names;
}

std::string abi_includes() {
  std::string s;
  for (const AbiHeader& h : kAbiHeaders) s += std::string("#include \"libcudart_shim/") + h.file + "\"\n";
  return s;
}

// Runs clang on `source` and parses its record layouts by record name.
std::map<std::string, Layout> layouts(const std::string& source, const std::string& flags,
                                      std::string& log) {
  // One file per process and call: ctest runs the tests of this file in parallel.
  static int calls = 0;
  const std::string tu = testing::TempDir() + "abi_layout_" + std::to_string(getpid()) + "_" +
                         std::to_string(calls++) + ".cpp";
  std::ofstream(tu) << source;
  const std::string cmd = "clang++ -std=c++17 -fsyntax-only -Xclang -fdump-record-layouts " +
                          flags + " " + tu + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (p && fgets(buf, sizeof buf, p)) out += buf;
  if (p) pclose(p);
  std::remove(tu.c_str());
  log = out;

  std::map<std::string, Layout> result;
  std::istringstream in(out);
  std::string line;
  std::string record;
  std::vector<std::string> path;
  std::regex field_re(R"(^\s*(\d+)(?::\d+-\d+)? \|( *)(.*\S)\s*$)");
  std::regex size_re(R"(\[sizeof=(\d+))");
  while (std::getline(in, line)) {
    if (line.find("*** Dumping AST Record Layout") != std::string::npos) {
      record.clear();
      continue;
    }
    std::smatch m;
    if (std::regex_search(line, m, size_re)) {
      if (!record.empty()) result[record].size = std::stoull(m[1]);
      record.clear();
      continue;
    }
    if (!std::regex_match(line, m, field_re)) continue;
    const uint64_t offset = std::stoull(m[1]);
    const size_t depth = m[2].str().size() / 2;
    const std::string text = m[3];
    if (depth == 0) {
      // "struct cudaPos" / "union cudaLaunchAttributeValue"; anonymous
      // members' own dumps ("struct X::(unnamed at ...)") are skipped.
      if (text.find("::(") != std::string::npos) continue;
      record = text.substr(text.find(' ') + 1);
      result[record] = Layout{};
      path.clear();
      continue;
    }
    if (record.empty()) continue;
    // An anonymous member ("union X::(anonymous at file:line:col)") is named
    // by where it is declared, which differs between the two headers.
    const std::string name = text.find("(anonymous") != std::string::npos
                                 ? std::string("(anonymous)")
                                 : text.substr(text.find_last_of(' ') + 1);
    path.resize(depth - 1);
    path.push_back(name);
    std::string key;
    for (const std::string& s : path) key += (key.empty() ? "" : ".") + s;
    result[record].fields[key] = offset;
  }
  return result;
}

std::string sizes_of(const std::vector<std::string>& names) {
  std::string s = "unsigned long warpsim_sizes[] = {\n";
  for (const std::string& n : names) s += "  sizeof(" + n + "),\n";
  return s + "};\n";
}

void compare(int major, const std::string& nvidia_include) {
  if (std::system("clang++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "clang++ not found";
  const std::vector<std::string> names = abi_records(major);
  ASSERT_GT(names.size(), 10u);
  std::string ours_log, theirs_log;
  auto ours = layouts("#define WARPSIM_CUDA_MAJOR " + std::to_string(major) +
                          "\n" + abi_includes() + sizes_of(names),
                      "-I" WARPSIM_SOURCE_DIR, ours_log);
  auto theirs = layouts("#include <cuda_runtime_api.h>\n" + sizes_of(names),
                        "-isystem " + nvidia_include, theirs_log);
  for (const std::string& n : names) {
    SCOPED_TRACE(n);
    ASSERT_TRUE(ours.count(n)) << ours_log.substr(0, 4000);
    ASSERT_TRUE(theirs.count(n)) << theirs_log.substr(0, 4000);
    const Layout& a = ours[n];
    const Layout& b = theirs[n];
    EXPECT_EQ(a.size, b.size);
    EXPECT_FALSE(a.fields.empty());
    for (const auto& [field, offset] : a.fields) {
      auto it = b.fields.find(field);
      if (it == b.fields.end()) {
        ADD_FAILURE() << "field " << field << " is not in the CUDA " << major << " headers";
        continue;
      }
      EXPECT_EQ(offset, it->second) << "offset of " << field;
    }
  }
}

TEST(AbiLayout, Cuda13MatchesTheCuda13Headers) {
  const std::string inc = "/usr/local/cuda/include";
  if (!exists(inc + "/cuda_runtime_api.h")) GTEST_SKIP() << "CUDA 13 headers not installed";
  if (read_file(inc + "/cuda_runtime_api.h").find("#define CUDART_VERSION  13") == std::string::npos)
    GTEST_SKIP() << inc << " is not CUDA 13";
  compare(13, inc);
}

TEST(AbiLayout, Cuda11MatchesTheCuda118Headers) {
  const std::string inc = "/usr/include";
  if (!exists(inc + "/cuda_runtime_api.h") ||
      read_file(inc + "/cuda_runtime_api.h").find("#define CUDART_VERSION  11") == std::string::npos)
    GTEST_SKIP() << "CUDA 11 headers not installed (scripts/install-cuda11.sh)";
  compare(11, inc);
}

}  // namespace
