#pragma once
// What `warpsim run` and `warpsim ptx extract` need to know about a host
// executable or shared library (ELF64, x86-64): its sections, the shared
// libraries it names (DT_NEEDED), whether it defines the CUDA runtime's
// registration entry point itself (a statically linked libcudart), and the
// CUDA runtime major it was linked against. Everything is read from the file
// with bounds checks; a file that is not such an ELF is an error, not a crash.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpsim::tools {

struct ElfSection {
  std::string name;
  uint64_t offset = 0;  // in the file
  uint64_t size = 0;
  uint64_t address = 0;
  uint32_t type = 0;
};

class HostBinary {
 public:
  // Reads and indexes `path`; nullopt with `error` set on failure.
  static std::optional<HostBinary> open(const std::string& path, std::string& error);
  // The same for bytes already in memory (tests).
  static std::optional<HostBinary> parse(std::vector<std::byte> bytes, std::string& error);

  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* section(std::string_view name) const;
  std::span<const std::byte> contents(const ElfSection& s) const;
  const std::vector<std::string>& needed() const { return needed_; }
  // True when the symbol tables define `name` (any binding), i.e. the code
  // is linked into this file rather than imported.
  bool defines(std::string_view name) const;
  bool has_device_code() const { return section(".nv_fatbin") || section("__nv_relfatbin"); }

 private:
  std::vector<std::byte> bytes_;
  std::vector<ElfSection> sections_;
  std::vector<std::string> needed_;
  std::vector<std::string> defined_;  // sorted names of defined symbols
};

// The CUDA runtime major a shared-library name belongs to: 13 for
// "libcudart.so.13", 12, 11 for "libcudart.so.11.0"; 0 for anything else
// (other majors are reported by the caller).
int cudart_major(std::string_view library);
// The libcudart name in `libraries`, if any.
std::optional<std::string> find_cudart(const std::vector<std::string>& libraries);

// What `warpsim run --cudart MAJOR` should warn about `program`: when the
// program itself names a libcudart of another major (DT_NEEDED), the dynamic
// loader loads that runtime beside warpsim's, and the program's calls may
// reach the real one. "" when it names none, names `requested_major`'s,
// cannot be read, or `requested_major` is 0 (detect from the program).
std::string cudart_mismatch_warning(const std::string& program, int requested_major);

}  // namespace warpsim::tools
