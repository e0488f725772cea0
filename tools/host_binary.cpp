#include "tools/host_binary.h"

#include "common/byte_io.h"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace warpsim::tools {

namespace {

using bytes::fits;

// The T at `off`, if it lies within the file.
template <typename T>
bool load(const std::vector<std::byte>& b, uint64_t off, T& out) {
  if (!fits(off, sizeof(T), b.size())) return false;
  out = bytes::load<T>(b.data() + off);
  return true;
}

// A NUL-terminated string at `off` inside the string table [base, base+size).
std::string string_at(const std::vector<std::byte>& b, uint64_t base, uint64_t size, uint64_t off) {
  if (off >= size || !fits(base, size, b.size())) return {};
  const char* s = reinterpret_cast<const char*>(b.data() + base + off);
  return std::string(s, strnlen(s, size - off));
}

}  // namespace

std::optional<HostBinary> HostBinary::open(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return std::nullopt;
  }
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > (std::streamoff{1} << 34)) {
    error = "cannot read " + path;
    return std::nullopt;
  }
  std::vector<std::byte> bytes(static_cast<size_t>(size));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), size);
  if (!in) {
    error = "cannot read " + path;
    return std::nullopt;
  }
  auto b = parse(std::move(bytes), error);
  if (!b) error = path + ": " + error;
  return b;
}

std::optional<HostBinary> HostBinary::parse(std::vector<std::byte> bytes, std::string& error) {
  HostBinary hb;
  hb.bytes_ = std::move(bytes);
  const auto& b = hb.bytes_;
  Elf64_Ehdr eh;
  if (!load(b, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    error = "not an ELF file";
    return std::nullopt;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_machine != EM_X86_64) {
    error = "not an x86-64 ELF64 file";
    return std::nullopt;
  }
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0) {
    error = "no section headers";
    return std::nullopt;
  }
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  for (size_t i = 0; i < sh.size(); ++i)
    if (!load(b, eh.e_shoff + i * sizeof(Elf64_Shdr), sh[i])) {
      error = "truncated section headers";
      return std::nullopt;
    }
  if (eh.e_shstrndx >= sh.size()) {
    error = "bad section name table index";
    return std::nullopt;
  }
  const Elf64_Shdr& names = sh[eh.e_shstrndx];
  for (const Elf64_Shdr& s : sh) {
    ElfSection e;
    e.name = string_at(b, names.sh_offset, names.sh_size, s.sh_name);
    e.offset = s.sh_offset;
    e.size = s.sh_type == SHT_NOBITS ? 0 : s.sh_size;
    e.address = s.sh_addr;
    e.type = s.sh_type;
    if (!fits(e.offset, e.size, b.size())) {  // truncated file: treat as empty
      e.offset = 0;
      e.size = 0;
    }
    hb.sections_.push_back(std::move(e));
  }
  // DT_NEEDED names, from .dynamic with its linked string table.
  for (const Elf64_Shdr& s : sh) {
    if (s.sh_type != SHT_DYNAMIC || s.sh_link >= sh.size()) continue;
    const Elf64_Shdr& str = sh[s.sh_link];
    for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= s.sh_size; off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      if (!load(b, s.sh_offset + off, d) || d.d_tag == DT_NULL) break;
      if (d.d_tag == DT_NEEDED) hb.needed_.push_back(string_at(b, str.sh_offset, str.sh_size, d.d_un.d_val));
    }
  }
  // Defined symbols of .symtab and .dynsym.
  for (const Elf64_Shdr& s : sh) {
    if ((s.sh_type != SHT_SYMTAB && s.sh_type != SHT_DYNSYM) || s.sh_link >= sh.size()) continue;
    const Elf64_Shdr& str = sh[s.sh_link];
    const uint64_t count = s.sh_entsize == sizeof(Elf64_Sym) ? s.sh_size / sizeof(Elf64_Sym) : 0;
    for (uint64_t i = 1; i < count && i < (uint64_t{1} << 24); ++i) {
      Elf64_Sym sym;
      if (!load(b, s.sh_offset + i * sizeof(Elf64_Sym), sym)) break;
      if (sym.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym.st_info) != STT_FUNC) continue;
      hb.defined_.push_back(string_at(b, str.sh_offset, str.sh_size, sym.st_name));
    }
  }
  std::sort(hb.defined_.begin(), hb.defined_.end());
  return hb;
}

const ElfSection* HostBinary::section(std::string_view name) const {
  for (const ElfSection& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::span<const std::byte> HostBinary::contents(const ElfSection& s) const {
  return std::span<const std::byte>(bytes_).subspan(s.offset, s.size);
}

bool HostBinary::defines(std::string_view name) const {
  return std::binary_search(defined_.begin(), defined_.end(), name,
                            [](const auto& a, const auto& b) { return std::string_view(a) < std::string_view(b); });
}

int cudart_major(std::string_view lib) {
  constexpr std::string_view prefix = "libcudart.so.";
  if (lib.substr(0, prefix.size()) != prefix) return 0;
  std::string_view v = lib.substr(prefix.size());
  if (v == "13") return 13;
  if (v == "12") return 12;
  if (v == "11.0") return 11;
  return 0;
}

std::optional<std::string> find_cudart(const std::vector<std::string>& libraries) {
  for (const std::string& l : libraries)
    if (l.rfind("libcudart.so", 0) == 0) return l;
  return std::nullopt;
}

std::string cudart_mismatch_warning(const std::string& program, int requested_major) {
  if (requested_major == 0) return {};
  std::string error;
  const auto bin = HostBinary::open(program, error);
  if (!bin) return {};  // the run itself says what is wrong with the file
  const auto lib = find_cudart(bin->needed());
  if (!lib) return {};
  const int linked = cudart_major(*lib);
  if (linked == requested_major) return {};
  const std::string linked_text = linked ? fmt::format("CUDA {}", linked) : "a CUDA runtime warpsim does not provide";
  return fmt::format(
      "warning: {} is linked against {} ({}) but --cudart {} was given: warpsim provides the CUDA {} runtime, "
      "and the dynamic loader also loads the program's own {}, so its CUDA calls may bypass the simulator{}",
      program, *lib, linked_text, requested_major, requested_major, *lib,
      linked ? fmt::format("; drop --cudart or give --cudart {}", linked) : std::string());
}

}  // namespace warpsim::tools
