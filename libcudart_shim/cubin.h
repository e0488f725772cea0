#pragma once
// Reader for the resource metadata of CUDA cubins (the ELF device images in
// fatbin ELF entries): per-kernel register count, shared / constant / stack
// sizes, launch bounds, parameter layout, barriers, cluster dimensions, as
// ptxas (or nvlink) recorded them. Layout and how it was verified:
// docs/fatbin.md, "Cubin metadata". Like the fatbin reader, everything is
// parsed from memory with explicit, overflow-free bounds checks; malformed
// input yields an Error, never an exception, abort or out-of-bounds read.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "libcudart_shim/fatbin.h"

namespace warpsim::fatbin {

inline constexpr uint16_t kElfMachineCuda = 190;  // EM_CUDA
inline constexpr uint8_t kElfOsAbiCudaV7 = 0x33;  // e_flags: sm in bits 0-7 (CUDA <= 12.x)
inline constexpr uint8_t kElfOsAbiCudaV8 = 0x41;  // e_flags: sm in bits 8-15 (CUDA 13)

struct Dim3 {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

// One kernel parameter (EIATTR_KPARAM_INFO / _V2).
struct KernelParam {
  uint32_t ordinal = 0;  // position in the signature
  uint32_t offset = 0;   // bytes from the start of the parameter block
  uint32_t size = 0;     // bytes
  friend bool operator==(const KernelParam&, const KernelParam&) = default;
};

// A function symbol of the cubin: a kernel (entry) or a device function.
// Fields ptxas did not record stay unset (or empty / false, as noted).
struct CubinFunction {
  std::string name;        // mangled symbol name
  bool is_kernel = false;  // STO_CUDA_ENTRY (0x10) in st_other
  uint16_t section = 0;    // index of its .text section
  uint64_t code_bytes = 0; // st_size

  // Registers per thread: EIATTR_REGCOUNT (after nvlink: the maximum over
  // the call graph), else the high byte of the owning .text section's sh_info.
  std::optional<uint32_t> registers;
  // Bytes of the function's own stack frame (ptxas "N bytes stack frame").
  std::optional<uint32_t> frame_bytes;       // EIATTR_FRAME_SIZE
  // Frame plus callees (ptxas "cumulative stack size", nvlink "N stack").
  std::optional<uint32_t> min_stack_bytes;   // EIATTR_MIN_STACK_SIZE
  std::optional<uint32_t> max_stack_bytes;   // EIATTR_MAX_STACK_SIZE (CUDA 11: always 0)

  // The remaining fields describe kernels. Device functions only get what
  // their own .nv.info.<name> section records (relocatable images: the API
  // version); the rest stays empty.
  // Static shared memory as ptxas reports it ("N bytes smem"): the size of
  // .nv.shared.<kernel>, less the 1 KiB system-reserved prefix that linked
  // (executable) sm_90+ cubins include in that section. 0 without a section.
  uint64_t shared_bytes = 0;
  uint64_t shared_section_bytes = 0;  // the raw section size
  // Size of .nv.constant0.<kernel> (ptxas "N bytes cmem[0]"): driver
  // constants + parameters.
  uint64_t const0_bytes = 0;
  // Barriers used (ptxas "used N barriers"): EIATTR_NUM_BARRIERS (CUDA 12+),
  // else bits 20-24 of the .text section's sh_flags (CUDA 11); 0 if neither.
  uint32_t barriers = 0;
  std::optional<uint32_t> max_registers;  // EIATTR_MAXREG_COUNT (ptxas cap; 255 = none)
  std::optional<Dim3> max_threads;        // EIATTR_MAX_THREADS (.maxntid, __launch_bounds__)
  std::optional<Dim3> required_threads;   // EIATTR_REQNTID (.reqntid, __block_size__)
  std::optional<Dim3> cluster_dims;       // EIATTR_CTA_PER_CLUSTER (__cluster_dims__)
  bool explicit_cluster = false;          // EIATTR_EXPLICIT_CLUSTER
  std::optional<uint32_t> max_cluster_rank;  // EIATTR_MAX_CLUSTER_RANK (.maxclusterrank)
  // EIATTR_COOP_GROUP_INSTR_OFFSETS present: cooperative grid sync. CUDA 11.8
  // never records it, so false there means "not recorded".
  bool uses_grid_sync = false;
  std::optional<uint32_t> crs_stack_bytes;  // EIATTR_CRS_STACK_SIZE
  std::vector<KernelParam> params;          // sorted by ordinal
  std::optional<uint32_t> param_bytes;      // EIATTR_PARAM_CBANK size, else EIATTR_CBANK_PARAM_SIZE
  std::optional<uint32_t> param_offset;     // EIATTR_PARAM_CBANK: start of the parameters in c[0]
  std::optional<uint32_t> cuda_api_version;  // EIATTR_CUDA_API_VERSION (130 = 13.0)
};

struct CubinInfo {
  // SM number from e_flags: bits 0-7 with OS ABI 0x33, bits 8-15 with 0x41.
  // The arch-specific suffix (sm_90a) is not in e_flags.
  uint32_t arch = 0;
  // PTX target it was compiled from: e_flags bits 16-23 (OS ABI 0x33), or
  // the .note.nv.cuinfo note (OS ABI 0x41); unset if neither records it.
  std::optional<uint32_t> virtual_arch;
  std::optional<uint32_t> toolkit_version;  // .note.nv.cuinfo (130 = 13.0)
  uint8_t os_abi = 0;
  uint8_t abi_version = 0;
  uint16_t elf_type = 0;  // 1 relocatable (-rdc object), 2 executable
  uint32_t e_flags = 0;
  std::vector<CubinFunction> functions;  // symbol table order

  size_t kernel_count() const;
};

// Parses a cubin (an ELF image, already decompressed; see decompress()).
Result<CubinInfo> read_cubin(std::span<const std::byte> elf);

// Decompresses an ELF fatbin entry and parses it; the entry's arch must
// match the one in e_flags.
Result<CubinInfo> read_cubin(const Entry& entry, size_t max_size = kDefaultMaxImageSize);

// The function (kernel or device function) with this mangled name, or null.
const CubinFunction* find_function(const CubinInfo& info, std::string_view name);

// Multi-line summary (arch, then one line per function), for messages.
std::string describe(const CubinInfo& info);

}  // namespace warpsim::fatbin
