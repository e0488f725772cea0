#pragma once
// The lowering pass's state (internal to lower.cpp and lower_decode.cpp).
//
// Pass 1 lays out memory: device addresses for .global/.const variables (with
// their initialisers written), one module-wide shared-memory layout, and each
// function's register slots and local frame. Pass 2 decodes instructions,
// now that every symbol has an address and every callee a frame layout.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>

#include "common/diagnostics.h"
#include "functional/device_memory.h"
#include "functional/exec.h"
#include "functional/fp/half.h"
#include "functional/program.h"
#include "ptx/module_analysis.h"

namespace warpsim::functional::detail {

using ptx::OperandKind;
using ptx::ScalarType;
using ptx::StateSpace;
using ptx::SymbolKind;

inline uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

inline bool is_shared(StateSpace s) {
  return s == StateSpace::Shared || s == StateSpace::SharedCta || s == StateSpace::SharedCluster;
}
inline bool is_frame_space(StateSpace s) { return s == StateSpace::Local || s == StateSpace::Param; }

// Per-function facts needed while decoding.
struct FunctionLayout {
  std::vector<uint32_t> slot;        // ptx register -> slot or predicate index
  std::vector<bool> is_pred;
  std::vector<int64_t> var_location; // function variable -> frame offset / shared offset / address
  std::vector<uint64_t> param_location;   // entry: kernel-param offset; func: frame offset
  std::vector<uint64_t> return_location;  // frame offset
};

class Lowering {
 public:
  Lowering(std::shared_ptr<const ptx::Module> m, DeviceMemory& mem, DiagnosticEngine& d)
      : module_(*m), memory_(mem), diags_(d) {
    program_ = std::make_unique<Program>();
    program_->module = std::move(m);
  }

  std::unique_ptr<Program> run() {
    analysis_ = ptx::analyze_module(module_);
    layout_globals();
    if (diags_.has_errors()) return nullptr;
    layout_functions();
    if (diags_.has_errors()) return nullptr;
    write_initialisers();
    if (diags_.has_errors()) return nullptr;
    for (uint32_t i = 0; i < module_.functions.size(); ++i)
      if (index_[i] != kNoSlot) decode_function(i);
    make_kernels();
    return std::move(program_);
  }

 private:
  void error(SourceLocation loc, std::string msg) {
    diags_.error(module_.source.get(), loc, std::move(msg));
  }

  // ---- pass 1: memory layout -------------------------------------------------------

  uint64_t add_shared(const ptx::Variable& v) {
    shared_end_ = align_up(shared_end_, v.alignment());
    uint64_t off = shared_end_;
    shared_end_ += v.size_bytes();
    return off;
  }

  void layout_globals() {
    global_location_.assign(module_.globals.size(), 0);
    program_->global_addresses.assign(module_.globals.size(), ptx::kNone);
    for (size_t i = 0; i < module_.globals.size(); ++i) {
      const ptx::Variable& v = module_.globals[i];
      if (is_shared(v.space)) {
        if (!v.dims.empty() && v.dims[0] == 0) { dynamic_vars_.push_back(i); continue; }
        global_location_[i] = static_cast<int64_t>(add_shared(v));
      } else if (v.space == StateSpace::Global || v.space == StateSpace::Const) {
        if (v.linkage & ptx::kExtern && !v.has_init && v.dims.size() && v.dims[0] == 0) {
          error(v.loc, fmt::format("external variable '{}' has no definition", v.name));
          continue;
        }
        global_location_[i] = static_cast<int64_t>(allocate(v));
        program_->global_addresses[i] = static_cast<uint64_t>(global_location_[i]);
      } else if (v.space == StateSpace::Local) {
        error(v.loc, fmt::format("module-scope .local variable '{}' is not supported", v.name));
      }
    }
  }

  uint64_t allocate(const ptx::Variable& v) {
    Fault f;
    uint64_t size = std::max<uint64_t>(1, v.size_bytes());
    // __managed__ variables are host-visible: the runtime hands their address
    // to host code (__cudaRegisterManagedVar), which dereferences it.
    const AllocationKind kind = v.space == StateSpace::Const ? AllocationKind::Const
                                : v.managed                  ? AllocationKind::Managed
                                                             : AllocationKind::Global;
    uint64_t addr = memory_.allocate(size, kind, v.name, &f);
    if (!addr) error(v.loc, fmt::format("cannot allocate '{}': {}", v.name, describe(f)));
    return addr;
  }

  void layout_functions() {
    index_.assign(module_.functions.size(), kNoSlot);
    layouts_.resize(module_.functions.size());
    for (uint32_t i = 0; i < module_.functions.size(); ++i) {
      const ptx::Function& f = module_.functions[i];
      if (!f.has_body) continue;
      index_[i] = static_cast<uint32_t>(program_->functions.size());
      FunctionInfo info;
      info.name = std::string(f.name);
      info.ptx_function = i;
      info.is_entry = f.is_entry;
      FunctionLayout& L = layouts_[i];
      // Registers: predicates get predicate indices; others one slot per lane
      // per 64 bits per vector element.
      L.slot.resize(f.registers.size());
      L.is_pred.resize(f.registers.size());
      for (size_t r = 0; r < f.registers.size(); ++r) {
        const ptx::Register& reg = f.registers[r];
        if (reg.type == ScalarType::Pred) {
          L.is_pred[r] = true;
          L.slot[r] = info.num_preds++;
        } else {
          L.slot[r] = info.num_slots;
          uint32_t per = ptx::type_bits(reg.type) > 64 ? 2 : 1;
          info.num_slots += per * ptx::vector_lanes(reg.vec);
        }
      }
      // Frame: .local and .param variables, then parameters, then returns.
      uint64_t frame = 0;
      auto place = [&](const ptx::Variable& v) {
        frame = align_up(frame, std::max<uint64_t>(v.alignment(), 1));
        uint64_t off = frame;
        frame += std::max<uint64_t>(v.size_bytes(), 1);
        return off;
      };
      L.var_location.resize(f.variables.size());
      for (size_t k = 0; k < f.variables.size(); ++k) {
        const ptx::Variable& v = f.variables[k];
        if (is_frame_space(v.space)) L.var_location[k] = static_cast<int64_t>(place(v));
        else if (is_shared(v.space)) L.var_location[k] = static_cast<int64_t>(add_shared(v));
        else L.var_location[k] = static_cast<int64_t>(allocate(v));
      }
      if (f.is_entry) {
        ptx::KernelResources r = ptx::compute_resources(module_, f);
        for (const auto& p : r.params) L.param_location.push_back(p.offset);
      } else {
        for (const ptx::Variable& p : f.params) {
          if (p.space == StateSpace::Reg) {
            L.param_location.push_back(0);
            continue;
          }
          L.param_location.push_back(place(p));
          info.param_offsets.push_back(L.param_location.back());
          info.param_sizes.push_back(static_cast<uint32_t>(p.size_bytes()));
        }
        for (const ptx::Variable& p : f.returns) {
          if (p.space == StateSpace::Reg) {
            L.return_location.push_back(0);
            continue;
          }
          L.return_location.push_back(place(p));
          info.return_offsets.push_back(L.return_location.back());
          info.return_sizes.push_back(static_cast<uint32_t>(p.size_bytes()));
        }
      }
      info.frame_bytes = align_up(frame, 16);
      program_->functions.push_back(std::move(info));
    }
    // Dynamic shared memory starts after every static variable, 16-aligned
    // (or more, if an extern declaration asks for it).
    uint64_t dyn_align = 16;
    for (size_t g : dynamic_vars_) dyn_align = std::max(dyn_align, module_.globals[g].alignment());
    program_->shared_bytes = shared_end_;
    program_->dynamic_shared_offset = align_up(shared_end_, dyn_align);
    for (size_t g : dynamic_vars_) global_location_[g] = static_cast<int64_t>(program_->dynamic_shared_offset);
  }

  // The address a symbol stands for, and the window it lives in.
  struct Place {
    Window window;
    Operand base;  // Imm (absolute/offset) or FrameAddr
  };
  std::optional<Place> place_of(uint32_t fn, const ptx::SymbolRef& s) {
    const FunctionLayout& L = layouts_[fn];
    const ptx::Function& f = module_.functions[fn];
    auto imm = [](Window w, uint64_t v) { return Place{w, Operand{Src::Imm, false, kNoSlot, v}}; };
    auto frame = [](uint64_t v) { return Place{Window::Local, Operand{Src::FrameAddr, false, kNoSlot, v}}; };
    switch (s.kind) {
      case SymbolKind::Global: {
        const ptx::Variable& v = module_.globals[s.index];
        if (is_shared(v.space)) return imm(Window::Shared, static_cast<uint64_t>(global_location_[s.index]));
        return imm(Window::Global, static_cast<uint64_t>(global_location_[s.index]));
      }
      case SymbolKind::Local: {
        const ptx::Variable& v = f.variables[s.index];
        uint64_t loc = static_cast<uint64_t>(L.var_location[s.index]);
        if (is_frame_space(v.space)) return frame(loc);
        if (is_shared(v.space)) return imm(Window::Shared, loc);
        return imm(Window::Global, loc);
      }
      case SymbolKind::Param:
        if (f.is_entry) return imm(Window::KernelParam, L.param_location[s.index]);
        return frame(L.param_location[s.index]);
      case SymbolKind::ReturnParam: return frame(L.return_location[s.index]);
      case SymbolKind::Function:
        if (index_[s.index] == kNoSlot) return std::nullopt;
        return imm(Window::Global, function_address(index_[s.index]));
      default: return std::nullopt;
    }
  }

  // Initial values of .global/.const variables, at module and function scope.
  void write_initialisers() {
    for (size_t i = 0; i < module_.globals.size(); ++i)
      write_initialiser(module_.globals[i], program_->global_addresses[i]);
    for (uint32_t fn = 0; fn < module_.functions.size(); ++fn) {
      const ptx::Function& f = module_.functions[fn];
      if (!f.has_body) continue;
      for (size_t k = 0; k < f.variables.size(); ++k) {
        const ptx::Variable& v = f.variables[k];
        if (!is_frame_space(v.space) && !is_shared(v.space))
          write_initialiser(v, static_cast<uint64_t>(layouts_[fn].var_location[k]));
      }
    }
  }

  void write_initialiser(const ptx::Variable& v, uint64_t addr) {
    if (!v.has_init || !(v.space == StateSpace::Global || v.space == StateSpace::Const)) return;
    uint32_t elem = ptx::type_bytes(v.type);
    std::vector<uint8_t> bytes(std::max<uint64_t>(1, v.size_bytes()), 0);
    for (size_t k = 0; k < v.init.size() && (k + 1) * elem <= bytes.size(); ++k) {
      uint64_t value = init_value(v, v.init[k]);
      std::memcpy(bytes.data() + k * elem, &value, elem);
    }
    Fault f = memory_.copy_from_host(addr, bytes.data(), bytes.size());
    if (f) error(v.loc, fmt::format("cannot initialise '{}': {}", v.name, describe(f)));
  }

  uint64_t init_value(const ptx::Variable& v, const ptx::InitValue& iv) {
    using K = ptx::InitValue::Kind;
    switch (iv.kind) {
      case K::Integer: return static_cast<uint64_t>(iv.value);
      case K::Float: return float_bits(iv.fsyntax, iv.value, v.type);
      case K::Address:
      case K::GenericAddress: {
        uint64_t addr = 0;
        if (iv.sym.kind == SymbolKind::Global) {
          const ptx::Variable& t = module_.globals[iv.sym.index];
          addr = static_cast<uint64_t>(global_location_[iv.sym.index]);
          if (is_shared(t.space) && iv.kind == K::GenericAddress) addr += kSharedWindow;
        } else if (iv.sym.kind == SymbolKind::Function && index_[iv.sym.index] != kNoSlot) {
          addr = function_address(index_[iv.sym.index]);
        }
        addr += static_cast<uint64_t>(iv.value);
        if (iv.mask) addr = (addr & iv.mask) >> std::countr_zero(iv.mask);
        return addr;
      }
    }
    return 0;
  }

  // Bits of a float literal as the given type expects them.
  static uint64_t float_bits(ptx::FloatSyntax syntax, int64_t raw, ScalarType type) {
    if (type == ScalarType::F16 || type == ScalarType::BF16) {
      // A float literal given to a half-precision operand: rounded to it (.rn)
      // once, from its exact f32 (0f) or double (0d, decimal) value; going
      // through f32 first would round twice.
      if (syntax == ptx::FloatSyntax::F32Bits) {
        const auto f32 = static_cast<uint32_t>(raw);
        return type == ScalarType::F16 ? fp::f32_to_f16(f32) : fp::f32_to_bf16(f32);
      }
      const auto f64 = static_cast<uint64_t>(raw);
      return type == ScalarType::F16 ? fp::f64_to_f16(f64) : fp::f64_to_bf16(f64);
    }
    bool want64 = ptx::type_bits(type) == 64;
    double d = 0;
    switch (syntax) {
      case ptx::FloatSyntax::F32Bits:
        if (!want64) return static_cast<uint32_t>(raw);
        d = std::bit_cast<float>(static_cast<uint32_t>(raw));
        break;
      case ptx::FloatSyntax::F64Bits:
      case ptx::FloatSyntax::Decimal:
        d = std::bit_cast<double>(raw);
        if (want64) return static_cast<uint64_t>(raw);
        return std::bit_cast<uint32_t>(static_cast<float>(d));
    }
    return std::bit_cast<uint64_t>(d);
  }

  // ---- pass 2: decoding --------------------------------------------------------------

  void decode_function(uint32_t fn);
  bool decode_operands(uint32_t fn, const ptx::Instruction& inst, DecodedInst& d);
  std::optional<Operand> decode_value(uint32_t fn, const ptx::Operand& op, ScalarType type);
  // Decodes the `which`-th address operand of `inst` into `a`.
  bool decode_address(uint32_t fn, const ptx::Instruction& inst, const ptx::Operand& op,
                      Address& a, size_t which = 0);
  bool decode_call(uint32_t fn, const ptx::Instruction& inst, DecodedInst& d);
  bool decode_branch(uint32_t fn, const ptx::Instruction& inst, uint32_t index, DecodedInst& d);

  void make_kernels() {
    for (uint32_t i = 0; i < module_.functions.size(); ++i) {
      const ptx::Function& f = module_.functions[i];
      if (!f.is_entry || index_[i] == kNoSlot) continue;
      KernelInfo k;
      k.name = std::string(f.name);
      k.function = index_[i];
      k.resources = analysis_.kernels[i];
      k.static_shared_bytes = program_->shared_bytes;
      const auto& cl = f.perf.reqnctapercluster;
      for (size_t d = 0; d < cl.size() && d < 3; ++d) k.cluster_dims[d] = std::max<uint32_t>(cl[d], 1);
      program_->kernels.push_back(std::move(k));
    }
  }

  const ptx::Module& module_;
  DeviceMemory& memory_;
  DiagnosticEngine& diags_;
  std::unique_ptr<Program> program_;
  ptx::ModuleAnalysis analysis_;
  std::vector<int64_t> global_location_;
  std::vector<size_t> dynamic_vars_;
  uint64_t shared_end_ = 0;
  std::vector<uint32_t> index_;  // ptx function -> Program::functions index
  std::vector<FunctionLayout> layouts_;

};

}  // namespace warpsim::functional::detail
