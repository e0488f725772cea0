#pragma once
// Per-kernel resource estimates from the PTX alone: registers, static shared
// memory, local memory (call-stack estimate), constant memory, the kernel
// parameter layout, and the functions the kernel calls.
//
// These feed occupancy when no cubin metadata is available, the launch path
// (parameter buffer layout) and the functional simulator (shared and constant
// variable addresses). They are estimates of what ptxas would allocate, and
// say so where they differ:
//  - registers: declared PTX registers, which nvcc emits in SSA-like form, so
//    this is an upper bound that is often several times the real allocation;
//  - shared: every .shared variable the kernel or a callee references (module
//    scope) or declares (function scope), laid out in module order, then
//    function order, each at its alignment;
//  - local: the kernel's .local variables plus the deepest chain of callee
//    frames; spills, the ABI save area and call parameters are not counted.
#include <array>
#include <cstdint>
#include <vector>

#include "ptx/ir.h"

namespace warpsim::ptx {

// Number of ScalarType values (None included), for arrays indexed by type.
inline constexpr size_t kNumScalarTypes = 1
#define PTX_TYPE(name, text, bits, kind) +1
#include "ptx/modifiers.def"
    ;

// 32-bit register slots one register of type `t` occupies in the estimate:
// 1 for types up to 32 bits (b8/b16/f16/f16x2/b32/...), 2 for 64-bit types
// (b64/u64/s64/f64 and the opaque .texref/.samplerref/.surfref handles), 4
// for b128, and 0 for .pred (predicates live in a separate predicate file).
uint32_t reg32_units(ScalarType t);

// A variable: a module global (function == kNone) or a function-scope
// variable (Module::functions[function].variables[index]).
struct VarRef {
  uint32_t function = kNone;
  uint32_t index = 0;
  friend bool operator==(const VarRef&, const VarRef&) = default;
};

// A variable placed in a memory window (shared, constant or local).
struct MemorySlot {
  VarRef var;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t align = 1;
};

// One kernel parameter in the device-side parameter buffer.
struct ParamSlot {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t align = 1;
};

struct KernelResources {
  // Registers declared in the kernel body, per type; a vector register
  // (`.reg .v4 .f32 %v`) counts as one register per lane.
  std::array<uint32_t, kNumScalarTypes> regs_by_type{};
  uint32_t reg32 = 0;               // sum of regs_by_type[t] * reg32_units(t)
  uint32_t reg32_with_callees = 0;  // max of reg32 over the kernel and its callees

  // Static shared memory (see the header comment) and its layout.
  uint64_t shared_bytes = 0;
  std::vector<MemorySlot> shared;
  // Unsized shared arrays (`.extern .shared .align 16 .b8 s[]`) are the
  // dynamic shared memory window, sized at launch; it starts after the static
  // part at an offset aligned to dynamic_shared_align.
  bool uses_dynamic_shared = false;
  uint64_t dynamic_shared_align = 0;

  // Local memory per thread: the kernel's own .local frame, and that frame
  // plus the deepest chain of callee frames. With recursion the depth is
  // unbounded: local_bytes then counts each function of a cycle once.
  uint64_t local_frame_bytes = 0;
  uint64_t local_bytes = 0;
  std::vector<MemorySlot> local;  // the kernel's own frame
  bool has_recursion = false;
  // A call through a register with a .callprototype (not a .calltargets list):
  // its targets are unknown and contribute nothing to these estimates.
  bool has_indirect_calls = false;

  // .const globals the kernel or its callees reference, laid out in module order.
  uint64_t const_bytes = 0;
  std::vector<MemorySlot> constants;

  // Parameter layout, in declaration order: each parameter at the next offset
  // aligned to its declared .align, else to its element size (lanes x type
  // size for vectors); size = element size x array dimensions. param_bytes is
  // the end of the last parameter, not padded to param_align, as in the cubin
  // (EIATTR_CBANK_PARAM_SIZE; measurements in resources.cpp).
  std::vector<ParamSlot> params;
  uint64_t param_bytes = 0;
  uint64_t param_align = 1;  // largest parameter alignment

  // Functions reachable through calls (direct, or listed by .calltargets),
  // ascending Module::functions indices; the kernel itself only if recursive.
  std::vector<uint32_t> callees;
};

// `kernel` is one of module.functions (its index names its own variables in
// VarRef and detects recursion through it).
KernelResources compute_resources(const Module& module, const Function& kernel);

}  // namespace warpsim::ptx
