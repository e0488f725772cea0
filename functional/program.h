#pragma once
// functional::Program: a ptx::Module lowered for execution.
//
// Every function's instructions are decoded once into one flat array of
// DecodedInst (all functions concatenated; each function ends with a
// synthetic "function end" slot that acts as its implicit return and as the
// reconvergence point of branches whose paths only meet at the exit).
// Operands are register slots, predicate indices, immediates or addresses
// resolved to a memory window; branch targets and reconvergence points are
// instruction indices; each instruction carries the handler chosen for its
// (opcode, type) at decode time. No strings or maps remain on the execution
// path: decoding happens once, and the hot loop sees only integers, enums
// and arrays.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ptx/annotation.h"
#include "ptx/ir.h"
#include "ptx/resources.h"

namespace warpsim::functional {

inline constexpr uint32_t kWarpSize = 32;
inline constexpr uint32_t kFullMask = 0xffffffffu;
inline constexpr uint32_t kNoSlot = 0xffffffffu;
using LaneMask = uint32_t;

class Warp;
struct DecodedInst;
// Executes one warp instruction for the lanes in `active` (guard applied).
using Handler = void (*)(Warp& warp, const DecodedInst& inst, LaneMask active);

// Where a decoded operand's value comes from.
enum class Src : uint8_t {
  None,
  Reg,        // register slot `index` (one uint64 per lane)
  Imm,        // the constant `imm`, same for every lane
  Pred,       // predicate `index` (a lane mask), optionally negated
  FrameAddr,  // the thread's current local frame base + imm (address of a .local/.param variable)
  Special,    // special register: index = sreg << 8 | component, imm = %envreg/%pm number
};

struct Operand {
  Src kind = Src::None;
  bool negate = false;  // for Pred
  uint32_t index = kNoSlot;
  uint64_t imm = 0;
};

// Memory window an address refers to, decided at decode time.
enum class Window : uint8_t {
  Generic,      // runtime decision: shared window, local window, else global
  Global,       // absolute device address (global and const share one space)
  Shared,       // offset in the CTA's shared memory
  Local,        // thread-local address (0-based; frame-relative addresses are already absolute)
  KernelParam,  // offset in the launch's parameter buffer
};

// An address operand `[base + offset]`.
struct Address {
  Window window = Window::Generic;
  Operand base;         // Reg, Imm (absolute), FrameAddr, or None (offset only)
  // A base register of 32 bits or fewer: base + offset wraps at 32 bits, as
  // the hardware computes it. nvcc forms shared addresses as `&s - 64*tid`
  // plus a positive immediate, whose register value is "negative".
  bool wrap32 = false;
  int64_t offset = 0;
};

// One decoded warp instruction.
struct DecodedInst {
  Handler handler = nullptr;
  ptx::Opcode opcode = ptx::Opcode::Mov;
  ptx::ScalarType type = ptx::ScalarType::None;   // first instruction type
  ptx::ScalarType type2 = ptx::ScalarType::None;  // second (cvt source, setp operands...)
  uint8_t num_dst = 0;
  uint8_t num_src = 0;
  uint8_t access_size = 0;  // bytes per element for memory instructions
  uint8_t lanes = 1;        // vector width of a memory access / mov pack
  bool has_guard = false;
  bool guard_negated = false;
  bool dst_is_pred = false;  // dst[0] is a predicate index
  // A load from global memory (or a generic address): the warp's turn in the
  // functional CTA loop ends after it, as a GPU switches warps on a
  // long-latency load (Cta::run).
  bool ends_turn = false;
  uint32_t guard = kNoSlot;  // predicate index
  uint32_t dst[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};  // register slots (kNoSlot: sink)
  uint32_t dst_pred = kNoSlot;  // second, predicate destination (`d|p` forms)
  Operand src[5];
  Address addr;
  // Address operands after the first (cp.async [dst], [src]; cp.async.bulk
  // [dst], [src], size, [mbar]): Program::addresses[more_addrs...].
  uint32_t more_addrs = kNoSlot;
  // Vector operands of the tensor-core instructions (wmma, mma, ldmatrix,
  // stmatrix), whose fragments of up to 8 registers do not fit dst[]/src[]:
  // each vector operand, in PTX order, is one group of
  // Program::extra_operands, starting at extra_slots; group g has
  // extra_count[g] entries and directly follows group g-1. Destination
  // entries are Reg (None for a `_` sink), source entries Reg or Imm.
  // Scalar operands (wmma's stride) stay in dst[]/src[] as usual.
  uint32_t extra_slots = kNoSlot;
  uint8_t extra_count[4] = {0, 0, 0, 0};
  uint32_t target = 0;        // bra: instruction index; call: callee function
  uint32_t reconvergence = 0; // bra/brx/call: where divergent paths meet
  const ptx::Modifiers* mods = nullptr;  // the full typed modifiers (rarely needed)
  uint32_t function = 0;      // Program::functions index this instruction belongs to
  uint32_t ptx_index = 0;     // index in the ptx::Function (for reports)
};

// Layout of a function's per-thread local frame: its .local variables, the
// .param variables of its call sequences, its own parameters and return
// values, in that order.
struct FunctionInfo {
  std::string name;
  uint32_t ptx_function = 0;  // Module::functions index
  bool is_entry = false;
  uint32_t begin = 0;         // first instruction in Program::code
  uint32_t end = 0;           // the function-end slot (implicit return)
  uint32_t num_slots = 0;     // register slots per lane
  uint32_t num_preds = 0;
  uint64_t frame_bytes = 0;   // local frame size per thread
  uint32_t frame_align = 16;
  std::vector<uint64_t> param_offsets;   // frame offsets of its parameters (device functions)
  std::vector<uint64_t> return_offsets;  // frame offsets of its return values
  std::vector<uint32_t> param_sizes, return_sizes;
  std::vector<uint32_t> reg_param_slots;   // old-style `.reg` parameters
  std::vector<uint32_t> reg_return_slots;  // old-style `.reg` return values
};

// A call instruction's operands (variable length, so kept beside the code):
// DecodedInst::target indexes Program::call_sites.
// Functions nvcc declares `.extern` that the simulator provides itself.
enum class Builtin : uint8_t {
  None, Vprintf, Malloc, Free, AssertFail,
  DeviceRuntime,  // a CUDA device-runtime function (dynamic parallelism): CallSite::device_call
  Unprovided,     // an extern nobody provides: calling it faults, naming it
};

struct CallSite {
  Builtin builtin = Builtin::None;
  uint32_t callee = kNoSlot;  // Program::functions index; kNoSlot: builtin or indirect through `pointer`
  Operand pointer;            // indirect calls: the register holding the function address
  std::vector<Operand> args;  // caller-side argument locations (FrameAddr of .param vars, or Reg)
  std::vector<uint32_t> arg_sizes;
  std::vector<Operand> rets;  // caller-side return locations
  std::vector<uint32_t> ret_sizes;
  // Extern callees (builtins): which device-runtime function
  // (functional::DeviceCall, device_launch.h) and the ptx::Module function.
  uint8_t device_call = 0;
  uint32_t extern_function = kNoSlot;
};

// A kernel: entry function plus its launch-time layout.
struct KernelInfo {
  std::string name;
  uint32_t function = 0;  // Program::functions index
  ptx::KernelResources resources;
  uint64_t static_shared_bytes = 0;
  uint32_t dynamic_shared_align = 16;
  std::array<uint32_t, 3> cluster_dims{1, 1, 1};  // .reqnctapercluster (1,1,1: none)
  // What lets its CTAs act on one another (an atomic on global memory...);
  // empty: nothing, so they may run on several host threads by default
  // (functional/cta_interaction.h).
  std::string cta_interaction;
};

struct Program {
  std::shared_ptr<const ptx::Module> module;  // kept alive: `mods` and names point into it
  std::vector<DecodedInst> code;
  // What compile passes noted (ptx/annotation.h): annotations[pc] belongs to
  // code[pc] (the PTX instruction's annotation; a default one for the
  // function-end slots). Kept beside the code so DecodedInst, which the
  // simulator's inner loop walks, does not grow.
  std::vector<ptx::Annotation> annotations;
  // Whether some annotation carries the offload_chains pass's marks: only
  // then do warps count what they execute of the tagged chains.
  bool offload_marks = false;
  std::vector<FunctionInfo> functions;
  std::vector<KernelInfo> kernels;
  std::vector<CallSite> call_sites;
  std::vector<Address> addresses;  // see DecodedInst::more_addrs
  std::vector<Operand> extra_operands;  // see DecodedInst::extra_slots
  // brx.idx targets: DecodedInst::target indexes the first of its list here.
  std::vector<uint32_t> branch_tables;
  // Device addresses of module-scope .global/.const variables (kNone-valued
  // entries for .shared/.extern ones), indexed like Module::globals.
  std::vector<uint64_t> global_addresses;
  // Shared memory: every .shared variable of the module (module or function
  // scope) has one offset in a module-wide layout, so a device function
  // reaches the same variable from every kernel; dynamic shared memory
  // (`.extern .shared` arrays) starts at the aligned end of that layout.
  uint64_t shared_bytes = 0;
  uint64_t dynamic_shared_offset = 0;
  // The system-reserved shared memory region (%reserved_smem_offset_*),
  // placed after dynamic shared memory; only programs that read one of those
  // registers get one, so every other program keeps its layout.
  uint64_t reserved_shared_bytes = 0;
  // Unique among the programs of this process (set by lower_module): lets
  // the timing model keep what it derives from a program's code without
  // mistaking a later program at the same address for it.
  uint64_t serial = 0;
  // Independent thread scheduling (warp.h): the module's .target is sm_70
  // or later (or absent), where divergent paths of a warp progress
  // independently and bar.warp.sync synchronizes them.
  bool independent_threads = true;
  const KernelInfo* find_kernel(std::string_view name) const;
};

// The size of the system-reserved region: what the CUDA runtime reserves per
// CTA on compute capability 8.0 and later (cudaDevAttrReservedSharedMemoryPerBlock).
// Cooperative groups keeps its multi-warp tile scratch there, from
// %reserved_smem_offset_1, and counts on at least 288 bytes.
inline constexpr uint64_t kReservedSharedBytes = 1024;
inline constexpr uint64_t kReservedSharedSecondOffset = 512;  // %reserved_smem_offset_1

// Fake code addresses for function pointers (`mov.u64 %rd, func`): distinct,
// non-null, and outside every data window.
inline constexpr uint64_t kCodeWindow = 0x00000f0000000000ull;
inline uint64_t function_address(uint32_t function) { return kCodeWindow + 16ull * (function + 1); }

// Generic-address windows for shared and local memory (cvta / isspacep).
inline constexpr uint64_t kSharedWindow = 0x0000100000000000ull;
inline constexpr uint64_t kSharedWindowSize = 1ull << 32;
// Shared-window offsets at or above this stride name another CTA of the
// cluster: (rank + 1) * kClusterSharedStride + offset (mapa's results).
inline constexpr uint64_t kClusterSharedStride = 1ull << 24;
inline constexpr uint64_t kLocalWindow = 0x0000200000000000ull;
inline constexpr uint64_t kLocalWindowSize = 1ull << 40;

}  // namespace warpsim::functional
