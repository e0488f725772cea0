#pragma once
// The fatbins inside a CUDA program, shared library or .fatbin file: what
// `warpsim ptx extract` writes out and `warpsim ptx offload-chains` reads.
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tools/host_binary.h"

namespace warpsim::tools {

struct DeviceCode {
  struct Fatbin {
    std::string what;  // the ELF section's name, or "file"
    std::span<const std::byte> bytes;
  };
  std::vector<std::byte> raw;       // the file (a bare .fatbin)
  std::optional<HostBinary> elf;    // or the ELF holding the sections
  std::vector<Fatbin> fatbins;
};

// Reads `path`: a bare .fatbin file, or an ELF carrying .nv_fatbin
// (whole-program) and/or __nv_relfatbin (-rdc). Null with `error` set when
// the file cannot be read or holds no device code.
std::unique_ptr<DeviceCode> read_device_code(const std::string& path, std::string& error);

}  // namespace warpsim::tools
