#include "tools/device_code.h"

#include <cstring>
#include <fstream>
#include <memory>

#include "libcudart_shim/fatbin.h"

namespace warpsim::tools {

std::unique_ptr<DeviceCode> read_device_code(const std::string& path, std::string& error) {
  auto code = std::make_unique<DeviceCode>();
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      error = "cannot open";
      return nullptr;
    }
    in.seekg(0, std::ios::end);
    code->raw.resize(static_cast<size_t>(std::max<std::streamoff>(in.tellg(), 0)));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(code->raw.data()), static_cast<std::streamsize>(code->raw.size()));
  }
  uint32_t magic = 0;
  if (code->raw.size() >= 4) std::memcpy(&magic, code->raw.data(), 4);
  if (magic == fatbin::kContainerMagic) {
    code->fatbins.push_back({"file", code->raw});
    return code;
  }
  code->elf = HostBinary::parse(std::move(code->raw), error);
  if (!code->elf) {
    error += " (expected a CUDA program, library or fatbin)";
    return nullptr;
  }
  for (const char* name : {".nv_fatbin", "__nv_relfatbin"})
    if (const ElfSection* s = code->elf->section(name)) code->fatbins.push_back({name, code->elf->contents(*s)});
  if (code->fatbins.empty()) {
    error = "no device code (.nv_fatbin or __nv_relfatbin section)";
    return nullptr;
  }
  return code;
}

}  // namespace warpsim::tools
