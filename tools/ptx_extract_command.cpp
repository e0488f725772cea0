// `warpsim ptx extract`: every PTX image embedded in a CUDA program, shared
// library or fatbin file, decompressed - the job cuobjdump -ptx does, without
// needing cuobjdump.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <filesystem>
#include <fstream>
#include <string>

#include "libcudart_shim/fatbin.h"
#include "tools/commands.h"
#include "tools/device_code.h"

namespace warpsim::tools {

namespace {

struct ExtractOptions {
  std::string file;
  std::string out_dir;
};

int run_extract(const ExtractOptions& opt) {
  std::string error;
  const std::unique_ptr<DeviceCode> code = read_device_code(opt.file, error);
  if (!code) {
    fmt::print(stderr, "{}: error: {}\n", opt.file, error);
    return 1;
  }
  const std::string stem = std::filesystem::path(opt.file).filename().string();
  if (!opt.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opt.out_dir, ec);
    if (ec) {
      fmt::print(stderr, "{}: error: cannot create directory: {}\n", opt.out_dir, ec.message());
      return 1;
    }
  }
  int failures = 0, written = 0, index = 0;
  for (const DeviceCode::Fatbin& src : code->fatbins) {
    auto fb = fatbin::parse_fatbin(src.bytes);
    if (!fb) {
      fmt::print(stderr, "{}: error: {}: {}\n", opt.file, src.what, fb.error().message);
      ++failures;
      continue;
    }
    for (const fatbin::Entry* e : fb->entries()) {
      if (!e->is_ptx()) continue;
      const int n = index++;
      auto text = fatbin::ptx_text(*e);
      if (!text) {
        fmt::print(stderr, "{}: error: PTX entry {} (compute_{}): {}\n", opt.file, n, e->arch,
                   text.error().message);
        ++failures;
        continue;
      }
      if (opt.out_dir.empty()) {
        fmt::print("// warpsim ptx extract: {} {} entry {}: compute_{}{}, PTX ISA {}.{}\n{}\n",
                   opt.file, src.what, n, e->arch, e->arch_specific() ? "a" : "", e->major,
                   e->minor, text.value());
      } else {
        const std::string name = fmt::format("{}.{}.compute_{}{}.ptx", stem, n, e->arch,
                                             e->arch_specific() ? "a" : "");
        const std::filesystem::path path = std::filesystem::path(opt.out_dir) / name;
        std::ofstream out(path, std::ios::binary);
        out << text.value();
        if (!out) {
          fmt::print(stderr, "{}: error: cannot write\n", path.string());
          ++failures;
          continue;
        }
        fmt::print("{}\n", path.string());
      }
      ++written;
    }
  }
  if (written == 0 && failures == 0) {
    fmt::print(stderr, "{}: error: the device code holds no PTX (SASS only); rebuild with a "
                       "virtual architecture, e.g. -gencode arch=compute_80,code=compute_80\n",
               opt.file);
    return 1;
  }
  return failures ? 1 : 0;
}

}  // namespace

void register_ptx_extract_command(CLI::App& ptx) {
  auto opt = std::make_shared<ExtractOptions>();
  CLI::App* extract = ptx.add_subcommand(
      "extract", "Write every PTX image embedded in a CUDA program, library or fatbin");
  extract->add_option("file", opt->file, "Program, shared library or .fatbin file")->required();
  extract->add_option("-o,--output-dir", opt->out_dir,
                      "Directory for the PTX files (FILE.N.compute_XX.ptx); default: stdout");
  extract->callback([opt] { set_exit_code(run_extract(*opt)); });
}

}  // namespace warpsim::tools
