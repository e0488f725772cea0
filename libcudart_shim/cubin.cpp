#include "libcudart_shim/cubin.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "common/byte_io.h"

namespace warpsim::fatbin {

static_assert(std::endian::native == std::endian::little, "cubins are little endian");

namespace {

// ELF64 constants (System V gABI) and the CUDA-specific values measured on
// nvcc 11.8 / 13.0 output (docs/fatbin.md, "Cubin metadata").
constexpr size_t kElfHeaderSize = 64;
constexpr size_t kSectionHeaderSize = 64;
constexpr size_t kSymbolSize = 24;
constexpr uint8_t kElfClass64 = 2;
constexpr uint8_t kElfDataLittle = 1;
constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtStrtab = 3;
constexpr uint32_t kShtNote = 7;
constexpr uint32_t kShtNobits = 8;
constexpr uint32_t kShtCudaInfo = 0x70000000;
constexpr uint32_t kShnLoReserve = 0xff00;
constexpr uint32_t kShnXindex = 0xffff;
constexpr uint8_t kSttFunc = 2;
constexpr uint8_t kStoCudaEntry = 0x10;
constexpr uint32_t kNoteTypeCuInfo = 1000;

constexpr uint16_t kEtExec = 2;

// In linked (ET_EXEC) sm_90+ images, each .nv.shared.<kernel> section starts
// with the 1 KiB the hardware reserves per block; ptxas does not count it in
// "bytes smem" (nvlink -v does). Relocatable objects do not include it.
constexpr uint32_t kReservedSharedArch = 90;
constexpr uint64_t kReservedSharedBytes = 1024;

// .nv.info entry formats: {u8 format, u8 attribute, u16 value-or-size}.
constexpr uint8_t kFmtNval = 1;  // no value (the u16 is 0)
constexpr uint8_t kFmtBval = 2;  // byte value in the u16
constexpr uint8_t kFmtHval = 3;  // u16 value
constexpr uint8_t kFmtSval = 4;  // u16 = size of the payload that follows

// EIATTR codes this reader interprets.
constexpr uint8_t kAttrMaxThreads = 0x05;
constexpr uint8_t kAttrParamCbank = 0x0a;
constexpr uint8_t kAttrReqntid = 0x10;
constexpr uint8_t kAttrFrameSize = 0x11;
constexpr uint8_t kAttrMinStackSize = 0x12;
constexpr uint8_t kAttrKparamInfo = 0x17;
constexpr uint8_t kAttrCbankParamSize = 0x19;
constexpr uint8_t kAttrMaxregCount = 0x1b;
constexpr uint8_t kAttrCrsStackSize = 0x1e;
constexpr uint8_t kAttrMaxStackSize = 0x23;
constexpr uint8_t kAttrCoopGroupInstrOffsets = 0x28;
constexpr uint8_t kAttrRegcount = 0x2f;
constexpr uint8_t kAttrCudaApiVersion = 0x37;
constexpr uint8_t kAttrCtaPerCluster = 0x3d;
constexpr uint8_t kAttrExplicitCluster = 0x3e;
constexpr uint8_t kAttrMaxClusterRank = 0x3f;
constexpr uint8_t kAttrKparamInfoV2 = 0x45;
constexpr uint8_t kAttrNumBarriers = 0x4c;

using bytes::fits;
using bytes::load;

Error err(std::string msg) { return Error{std::move(msg)}; }

struct Section {
  uint32_t name_offset = 0;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t entsize = 0;
  std::string_view name;
};

struct Symbol {
  uint32_t name = 0;
  uint8_t info = 0;
  uint8_t other = 0;
  uint16_t shndx = 0;
  uint64_t value = 0;
  uint64_t size = 0;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> elf)
      : elf_(elf), scan_budget_(kScanBudgetFactor * elf.size() + 4096), info_budget_(elf.size()) {}

  Result<CubinInfo> run() {
    if (auto r = read_header(); !r) return r.error();
    if (auto r = read_sections(); !r) return r.error();
    if (auto r = read_symbols(); !r) return r.error();
    read_text_sections();
    if (auto r = read_linked_sections(); !r) return r.error();
    read_cuinfo_note();
    for (auto& f : info_.functions) {
      std::stable_sort(f.params.begin(), f.params.end(),
                       [](const KernelParam& a, const KernelParam& b) { return a.ordinal < b.ordinal; });
      if (info_.elf_type == kEtExec && info_.arch >= kReservedSharedArch &&
          f.shared_section_bytes >= kReservedSharedBytes)
        f.shared_bytes = f.shared_section_bytes - kReservedSharedBytes;
      else
        f.shared_bytes = f.shared_section_bytes;
    }
    return std::move(info_);
  }

 private:
  // Result<bool> is the "ok or Error" of the steps below.
  using Status = Result<bool>;

  Status read_header() {
    if (elf_.size() < kElfHeaderSize)
      return err(fmt::format("truncated ELF header ({} bytes, need {})", elf_.size(), kElfHeaderSize));
    const std::byte* h = elf_.data();
    if (std::memcmp(h, "\x7f" "ELF", 4) != 0) return err("not an ELF image (bad magic)");
    if (load<uint8_t>(h + 4) != kElfClass64) return err("not a 64-bit ELF image");
    if (load<uint8_t>(h + 5) != kElfDataLittle) return err("not a little-endian ELF image");
    info_.os_abi = load<uint8_t>(h + 7);
    info_.abi_version = load<uint8_t>(h + 8);
    info_.elf_type = load<uint16_t>(h + 16);
    const uint16_t machine = load<uint16_t>(h + 18);
    if (machine != kElfMachineCuda)
      return err(fmt::format("ELF machine {} is not CUDA ({})", machine, kElfMachineCuda));
    info_.e_flags = load<uint32_t>(h + 48);
    if (info_.os_abi == kElfOsAbiCudaV7) {
      info_.arch = info_.e_flags & 0xff;
      info_.virtual_arch = (info_.e_flags >> 16) & 0xff;
    } else if (info_.os_abi == kElfOsAbiCudaV8) {
      info_.arch = (info_.e_flags >> 8) & 0xff;
    } else {
      return err(fmt::format("unknown CUDA ELF OS ABI {:#x} (known: {:#x}, {:#x})", info_.os_abi, kElfOsAbiCudaV7,
                             kElfOsAbiCudaV8));
    }
    shoff_ = load<uint64_t>(h + 40);
    shentsize_ = load<uint16_t>(h + 58);
    shnum_ = load<uint16_t>(h + 60);
    shstrndx_ = load<uint16_t>(h + 62);
    return true;
  }

  Section read_section_header(uint64_t index) const {
    // The caller has checked that the whole table lies within the image.
    const std::byte* p = elf_.data() + shoff_ + index * kSectionHeaderSize;
    Section s;
    s.name_offset = load<uint32_t>(p + 0);
    s.type = load<uint32_t>(p + 4);
    s.flags = load<uint64_t>(p + 8);
    s.offset = load<uint64_t>(p + 24);
    s.size = load<uint64_t>(p + 32);
    s.link = load<uint32_t>(p + 40);
    s.info = load<uint32_t>(p + 44);
    s.entsize = load<uint64_t>(p + 56);
    return s;
  }

  Status read_sections() {
    if (shoff_ == 0) return err("ELF image has no section headers");
    if (shentsize_ != kSectionHeaderSize)
      return err(fmt::format("section header size {} (expected {})", shentsize_, kSectionHeaderSize));
    if (!fits(shoff_, kSectionHeaderSize, elf_.size()))
      return err(fmt::format("section header table at {} outside the {}-byte image", shoff_, elf_.size()));
    // Extended numbering: the real count / string table index live in section 0.
    uint64_t count = shnum_;
    uint64_t strndx = shstrndx_;
    const Section first = read_section_header(0);
    if (count == 0) count = first.size;
    if (strndx == kShnXindex) strndx = first.link;
    if (count > elf_.size() / kSectionHeaderSize || !fits(shoff_, count * kSectionHeaderSize, elf_.size()))
      return err(fmt::format("section header table ({} entries at {}) outside the {}-byte image", count, shoff_,
                             elf_.size()));
    sections_.reserve(count);
    for (uint64_t i = 0; i < count; ++i) sections_.push_back(read_section_header(i));
    if (strndx == 0 || strndx >= count)
      return err(fmt::format("section name table index {} invalid ({} sections)", strndx, count));
    auto names = data(strndx, "section name table");
    if (!names) return names.error();
    if (sections_[strndx].type != kShtStrtab)
      return err(fmt::format("section name table (section {}) has type {:#x}, not STRTAB", strndx,
                             sections_[strndx].type));
    for (size_t i = 0; i < sections_.size(); ++i) {
      auto n = string_at(names.value(), sections_[i].name_offset);
      if (!n) return err(fmt::format("section {}: name: {}", i, n.error().message));
      sections_[i].name = n.value();
    }
    return true;
  }

  // The file bytes of section `index`.
  Result<std::span<const std::byte>> data(uint64_t index, std::string_view what) const {
    const Section& s = sections_[index];
    if (s.type == kShtNobits) return err(fmt::format("{} (section {}) has no file data", what, index));
    if (!fits(s.offset, s.size, elf_.size()))
      return err(fmt::format("{} (section {}: offset {}, size {}) outside the {}-byte image", what, index, s.offset,
                             s.size, elf_.size()));
    return elf_.subspan(s.offset, s.size);
  }

  // Strings may overlap (suffix sharing), so many entries can name the same
  // long unterminated tail: the bytes scanned are charged to a budget
  // proportional to the image so that such input cannot take quadratic time.
  Result<std::string_view> string_at(std::span<const std::byte> table, uint64_t offset) {
    if (offset >= table.size())
      return err(fmt::format("string offset {} outside the {}-byte string table", offset, table.size()));
    const char* begin = reinterpret_cast<const char*>(table.data()) + offset;
    const size_t room = std::min<uint64_t>(table.size() - offset, scan_budget_);
    const void* nul = std::memchr(begin, 0, room);
    if (nul == nullptr) {
      if (room == scan_budget_) return err("string tables too large to scan (overlapping strings)");
      return err(fmt::format("string at offset {} not terminated in its table", offset));
    }
    const size_t len = static_cast<size_t>(static_cast<const char*>(nul) - begin);
    scan_budget_ -= len + 1;
    return std::string_view(begin, len);
  }

  Status read_symbols() {
    size_t symtab = 0;
    for (size_t i = 1; i < sections_.size() && symtab == 0; ++i)
      if (sections_[i].type == kShtSymtab) symtab = i;
    if (symtab == 0) return err("ELF image has no symbol table");
    const Section& st = sections_[symtab];
    if (st.entsize != kSymbolSize)
      return err(fmt::format("symbol table entry size {} (expected {})", st.entsize, kSymbolSize));
    auto syms = data(symtab, "symbol table");
    if (!syms) return syms.error();
    if (st.link == 0 || st.link >= sections_.size() || sections_[st.link].type != kShtStrtab)
      return err(fmt::format("symbol table links to section {}, not a string table", st.link));
    auto strings = data(st.link, "symbol string table");
    if (!strings) return strings.error();

    const size_t count = syms->size() / kSymbolSize;
    symbol_function_.assign(count, kNone);
    uint64_t name_bytes = 0;
    for (size_t i = 0; i < count; ++i) {
      const std::byte* p = syms->data() + i * kSymbolSize;
      Symbol s;
      s.name = load<uint32_t>(p + 0);
      s.info = load<uint8_t>(p + 4);
      s.other = load<uint8_t>(p + 5);
      s.shndx = load<uint16_t>(p + 6);
      s.value = load<uint64_t>(p + 8);
      s.size = load<uint64_t>(p + 16);
      if ((s.info & 0xf) != kSttFunc) continue;
      // Undefined, reserved (SHN_ABS, SHN_XINDEX...) or out-of-range indices
      // are not code in this image.
      if (s.shndx == 0 || s.shndx >= kShnLoReserve || s.shndx >= sections_.size()) continue;
      if (!sections_[s.shndx].name.starts_with(".text")) continue;
      auto name = string_at(strings.value(), s.name);
      if (!name) return err(fmt::format("symbol {}: name: {}", i, name.error().message));
      // Names are copied: bound the total so that symbols sharing one long
      // string cannot make the result quadratic in the input size.
      name_bytes += name->size();
      if (name_bytes > elf_.size()) return err("function names exceed the image size (overlapping names)");
      CubinFunction f;
      f.name = std::string(name.value());
      f.is_kernel = (s.other & kStoCudaEntry) != 0;
      f.section = s.shndx;
      f.code_bytes = s.size;
      symbol_function_[i] = info_.functions.size();
      info_.functions.push_back(std::move(f));
    }
    return true;
  }

  // The function a section belongs to: a .text section's sh_info holds the
  // index of its function's symbol in the low 24 bits (CUDA 11 puts the
  // register count in the high 8).
  CubinFunction* text_owner(uint64_t section) {
    if (section == 0 || section >= sections_.size() || section >= kShnLoReserve) return nullptr;
    const Section& s = sections_[section];
    if (!s.name.starts_with(".text")) return nullptr;
    CubinFunction* f = function_for_symbol(s.info & 0xffffff);
    return f != nullptr && f->section == section ? f : nullptr;
  }

  CubinFunction* function_for_symbol(uint64_t symbol) {
    if (symbol >= symbol_function_.size() || symbol_function_[symbol] == kNone) return nullptr;
    return &info_.functions[symbol_function_[symbol]];
  }

  // Register count and (CUDA 11 layout) barrier count of each .text
  // section's function; .nv.info values read later take precedence.
  void read_text_sections() {
    for (size_t i = 1; i < sections_.size(); ++i) {
      CubinFunction* f = text_owner(i);
      if (f == nullptr) continue;
      const uint32_t regs = sections_[i].info >> 24;
      if (regs != 0) f->registers = regs;
      if (info_.os_abi == kElfOsAbiCudaV7) f->barriers = static_cast<uint32_t>((sections_[i].flags >> 20) & 0x1f);
    }
  }

  Status read_linked_sections() {
    // Global .nv.info first, then the per-function sections, so that the
    // per-function values win where both record something.
    for (size_t i = 1; i < sections_.size(); ++i) {
      const Section& s = sections_[i];
      if (s.type == kShtCudaInfo && s.name == ".nv.info") {
        if (auto r = read_nv_info(i, nullptr); !r) return r;
      }
    }
    for (size_t i = 1; i < sections_.size(); ++i) {
      const Section& s = sections_[i];
      CubinFunction* f = s.info != 0 ? text_owner(s.info) : nullptr;
      if (f == nullptr) continue;
      if (s.type == kShtCudaInfo && s.name.starts_with(".nv.info.")) {
        if (auto r = read_nv_info(i, f); !r) return r;
      } else if (s.name.starts_with(".nv.shared.")) {
        f->shared_section_bytes = s.size;
      } else if (s.name.starts_with(".nv.constant0.")) {
        if (s.type != kShtNobits && !fits(s.offset, s.size, elf_.size()))
          return err(fmt::format("section {} ({}) outside the image", i, s.name));
        f->const0_bytes = s.size;
      }
    }
    return true;
  }

  struct Attr {
    uint8_t format = 0;
    uint8_t code = 0;
    uint16_t value = 0;  // NVAL/BVAL/HVAL
    std::span<const std::byte> payload;  // SVAL
  };

  // `owner` is the function of a .nv.info.<name> section, null for the
  // global .nv.info (whose entries name their symbol).
  Status read_nv_info(size_t index, CubinFunction* owner) {
    auto bytes = data(index, sections_[index].name);
    if (!bytes) return bytes.error();
    const auto& d = bytes.value();
    // Sections sharing the same bytes would multiply the work and the
    // parameters recorded: all .nv.info sections together must fit the image.
    if (d.size() > info_budget_) return err(fmt::format("{}: .nv.info sections overlap", sections_[index].name));
    info_budget_ -= d.size();
    size_t pos = 0;
    while (pos < d.size()) {
      if (d.size() - pos < 4)
        return err(fmt::format("{}: truncated attribute at offset {}", sections_[index].name, pos));
      Attr a;
      a.format = load<uint8_t>(d.data() + pos);
      a.code = load<uint8_t>(d.data() + pos + 1);
      a.value = load<uint16_t>(d.data() + pos + 2);
      const size_t at = pos;
      pos += 4;
      if (a.format == kFmtSval) {
        if (!fits(pos, a.value, d.size()))
          return err(fmt::format("{}: attribute {:#04x} at offset {}: {} payload bytes past the section end",
                                 sections_[index].name, a.code, at, a.value));
        a.payload = d.subspan(pos, a.value);
        pos += a.value;
      } else if (a.format != kFmtNval && a.format != kFmtBval && a.format != kFmtHval) {
        return err(fmt::format("{}: unknown attribute format {} at offset {}", sections_[index].name, a.format, at));
      }
      if (auto r = apply(a, owner); !r)
        return err(fmt::format("{}: attribute {:#04x} at offset {}: {}", sections_[index].name, a.code, at,
                               r.error().message));
    }
    return true;
  }

  static Status expect_sval(const Attr& a, size_t size) {
    if (a.format != kFmtSval || a.payload.size() != size)
      return err(fmt::format("format {} with {} payload bytes, expected {} bytes", a.format, a.payload.size(), size));
    return true;
  }

  static Status expect_small(const Attr& a) {
    if (a.format != kFmtBval && a.format != kFmtHval)
      return err(fmt::format("format {}, expected a 16-bit value", a.format));
    return true;
  }

  static uint32_t word(const Attr& a, size_t i) { return load<uint32_t>(a.payload.data() + 4 * i); }

  static Dim3 dim3(const Attr& a) { return Dim3{word(a, 0), word(a, 1), word(a, 2)}; }

  Status apply(const Attr& a, CubinFunction* owner) {
    switch (a.code) {
      // {u32 symbol index, u32 value}: usually in the global .nv.info.
      case kAttrRegcount:
      case kAttrFrameSize:
      case kAttrMinStackSize:
      case kAttrMaxStackSize: {
        if (auto r = expect_sval(a, 8); !r) return r;
        CubinFunction* f = function_for_symbol(word(a, 0));
        if (f == nullptr) return true;  // not a function of this image: nothing to record
        const uint32_t v = word(a, 1);
        if (a.code == kAttrRegcount) f->registers = v;
        if (a.code == kAttrFrameSize) f->frame_bytes = v;
        if (a.code == kAttrMinStackSize) f->min_stack_bytes = v;
        if (a.code == kAttrMaxStackSize) f->max_stack_bytes = v;
        return true;
      }
      default:
        break;
    }
    if (owner == nullptr) return true;  // per-kernel attributes outside a kernel's section
    CubinFunction& f = *owner;
    switch (a.code) {
      case kAttrMaxThreads:
      case kAttrReqntid:
      case kAttrCtaPerCluster: {
        if (auto r = expect_sval(a, 12); !r) return r;
        if (a.code == kAttrMaxThreads) f.max_threads = dim3(a);
        if (a.code == kAttrReqntid) f.required_threads = dim3(a);
        if (a.code == kAttrCtaPerCluster) f.cluster_dims = dim3(a);
        return true;
      }
      case kAttrKparamInfo:
      case kAttrKparamInfoV2: {
        // {u32 index, u16 ordinal, u16 offset, u32 w}. V1: size in bits 18-31
        // of w (bits 0-7 pointee log-alignment, 8-11 space, 12-16 cbank,
        // 17 not-cbank). V2 (a parameter too large for 14 bits): bits 0-15.
        if (auto r = expect_sval(a, 12); !r) return r;
        const uint32_t w1 = word(a, 1);
        const uint32_t w2 = word(a, 2);
        const uint32_t size = a.code == kAttrKparamInfo ? w2 >> 18 : w2 & 0xffff;
        f.params.push_back(KernelParam{w1 & 0xffff, w1 >> 16, size});
        return true;
      }
      case kAttrParamCbank: {
        // {u32 symbol of .nv.constant0.<kernel>, u16 offset, u16 size}
        if (auto r = expect_sval(a, 8); !r) return r;
        f.param_offset = word(a, 1) & 0xffff;
        f.param_bytes = word(a, 1) >> 16;
        return true;
      }
      case kAttrCbankParamSize:
        if (auto r = expect_small(a); !r) return r;
        if (!f.param_bytes) f.param_bytes = a.value;
        return true;
      case kAttrMaxregCount:
        if (auto r = expect_small(a); !r) return r;
        f.max_registers = a.value;
        return true;
      case kAttrNumBarriers:
        if (auto r = expect_small(a); !r) return r;
        f.barriers = a.format == kFmtBval ? (a.value & 0xffu) : a.value;
        return true;
      case kAttrExplicitCluster:
        f.explicit_cluster = true;
        return true;
      case kAttrCoopGroupInstrOffsets:
        f.uses_grid_sync = true;
        return true;
      case kAttrMaxClusterRank:
      case kAttrCrsStackSize:
      case kAttrCudaApiVersion: {
        if (auto r = expect_sval(a, 4); !r) return r;
        if (a.code == kAttrMaxClusterRank) f.max_cluster_rank = word(a, 0);
        if (a.code == kAttrCrsStackSize) f.crs_stack_bytes = word(a, 0);
        if (a.code == kAttrCudaApiVersion) f.cuda_api_version = word(a, 0);
        return true;
      }
      default:
        return true;  // attributes this reader does not interpret
    }
  }

  // .note.nv.cuinfo: {namesz, descsz, type 1000, "NVIDIA Corp\0", desc:
  // u16 version, u16 virtual arch, u32 toolkit version}. Informational:
  // a malformed note leaves the fields unset instead of failing the image.
  void read_cuinfo_note() {
    for (size_t i = 1; i < sections_.size(); ++i) {
      const Section& s = sections_[i];
      if (s.type != kShtNote || s.name != ".note.nv.cuinfo") continue;
      auto bytes = data(i, s.name);
      if (!bytes || bytes->size() < 12) return;
      const auto& d = bytes.value();
      const uint64_t namesz = load<uint32_t>(d.data());
      const uint64_t descsz = load<uint32_t>(d.data() + 4);
      const uint32_t type = load<uint32_t>(d.data() + 8);
      const uint64_t desc = 12 + ((namesz + 3) & ~uint64_t{3});
      if (type != kNoteTypeCuInfo || descsz < 8 || !fits(desc, descsz, d.size())) return;
      const uint32_t virtual_arch = load<uint16_t>(d.data() + desc + 2);
      const uint32_t toolkit = load<uint32_t>(d.data() + desc + 4);
      if (info_.os_abi == kElfOsAbiCudaV8) info_.virtual_arch = virtual_arch;
      info_.toolkit_version = toolkit;
      return;
    }
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);
  // Legitimate images scan each name about once (section names share
  // suffixes, so a little more than the tables' size); 16x is ample.
  static constexpr uint64_t kScanBudgetFactor = 16;

  std::span<const std::byte> elf_;
  uint64_t scan_budget_;  // string bytes string_at may still scan
  uint64_t info_budget_;  // .nv.info bytes read_nv_info may still parse
  uint64_t shoff_ = 0;
  uint16_t shentsize_ = 0;
  uint16_t shnum_ = 0;
  uint16_t shstrndx_ = 0;
  std::vector<Section> sections_;
  std::vector<size_t> symbol_function_;  // symbol index -> index in info_.functions, or kNone
  CubinInfo info_;
};

std::string dim3_string(const Dim3& d) { return fmt::format("{}x{}x{}", d.x, d.y, d.z); }

}  // namespace

size_t CubinInfo::kernel_count() const {
  return static_cast<size_t>(std::count_if(functions.begin(), functions.end(),
                                           [](const CubinFunction& f) { return f.is_kernel; }));
}

Result<CubinInfo> read_cubin(std::span<const std::byte> elf) { return Reader(elf).run(); }

Result<CubinInfo> read_cubin(const Entry& entry, size_t max_size) {
  if (!entry.is_elf())
    return err(fmt::format("entry at offset {} is not an ELF image (kind {})", entry.offset, entry.kind));
  auto image = decompress(entry, max_size);
  if (!image) return err(fmt::format("ELF sm_{} at offset {}: {}", entry.arch, entry.offset, image.error().message));
  const auto& s = image.value();
  auto info = read_cubin(std::span(reinterpret_cast<const std::byte*>(s.data()), s.size()));
  if (!info) return err(fmt::format("ELF sm_{} at offset {}: {}", entry.arch, entry.offset, info.error().message));
  if (info->arch != entry.arch)
    return err(fmt::format("ELF at offset {}: fatbin entry says sm_{}, the ELF header sm_{}", entry.offset,
                           entry.arch, info->arch));
  return info;
}

const CubinFunction* find_function(const CubinInfo& info, std::string_view name) {
  for (const auto& f : info.functions)
    if (f.name == name) return &f;
  return nullptr;
}

std::string describe(const CubinInfo& info) {
  std::string out = fmt::format("sm_{} cubin", info.arch);
  if (info.virtual_arch) out += fmt::format(" from compute_{}", *info.virtual_arch);
  if (info.toolkit_version)
    out += fmt::format(", CUDA {}.{}", *info.toolkit_version / 10, *info.toolkit_version % 10);
  out += fmt::format(", {} ({} kernels, {} device functions)",
                     info.elf_type == 1 ? "relocatable" : info.elf_type == 2 ? "executable" : "unknown type",
                     info.kernel_count(), info.functions.size() - info.kernel_count());
  for (const auto& f : info.functions) {
    out += fmt::format("\n  {} {}: ", f.is_kernel ? "kernel" : "function", f.name);
    out += f.registers ? fmt::format("{} registers", *f.registers) : std::string("registers not recorded");
    if (f.frame_bytes) out += fmt::format(", {} B stack frame", *f.frame_bytes);
    if (f.min_stack_bytes) out += fmt::format(", {} B cumulative stack", *f.min_stack_bytes);
    if (!f.is_kernel) continue;
    out += fmt::format(", {} B smem, {} B cmem[0], {} barriers", f.shared_bytes, f.const0_bytes, f.barriers);
    out += fmt::format(", {} params", f.params.size());
    if (f.param_bytes) out += fmt::format(" ({} B)", *f.param_bytes);
    if (f.max_threads) out += ", max threads " + dim3_string(*f.max_threads);
    if (f.required_threads) out += ", required threads " + dim3_string(*f.required_threads);
    if (f.max_registers && *f.max_registers != 0xff) out += fmt::format(", register cap {}", *f.max_registers);
    if (f.cluster_dims) out += ", cluster " + dim3_string(*f.cluster_dims);
    if (f.max_cluster_rank) out += fmt::format(", max cluster size {}", *f.max_cluster_rank);
    if (f.uses_grid_sync) out += ", grid sync";
  }
  return out;
}

}  // namespace warpsim::fatbin
