// Control-flow handlers: bra, brx.idx, call (direct, indirect, builtins),
// ret, exit, trap, CTA barriers, and the memory-ordering instructions that
// functional execution only records.
#include <fmt/format.h>

#include <algorithm>

#include "functional/cta.h"
#include "functional/device_launch.h"
#include "functional/device_printf.h"
#include "functional/exec.h"

namespace warpsim::functional {

namespace {

using ptx::Opcode;

void exec_bra(Warp& w, const DecodedInst& inst, LaneMask active) { w.branch(inst, active, active); }

// brx.idx: each lane picks its target; lanes are grouped by target and every
// group but the first is left for later, as for a divergent branch.
void exec_brx(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Program& prog = *w.launch().program;
  auto idx = w.read(inst.src[0], 0);
  uint64_t count = inst.src[1].imm;
  LaneMask remaining = active;
  for_each_lane(active, [&](uint32_t l) {
    if (idx[l] >= count) {
      w.raise(FaultKind::IllegalInstruction, l,
              fmt::format("brx.idx index {} is outside its {}-entry target list", idx[l], count));
      remaining = 0;
    }
  });
  if (!remaining) return;
  // Collect (target, lanes) groups in lane order.
  uint32_t targets[kWarpSize];
  LaneMask masks[kWarpSize];
  uint32_t groups = 0;
  for_each_lane(active, [&](uint32_t l) {
    uint32_t t = prog.branch_tables[inst.target + idx[l]];
    uint32_t g = 0;
    while (g < groups && targets[g] != t) ++g;
    if (g == groups) {
      targets[groups] = t;
      masks[groups++] = 0;
    }
    masks[g] |= 1u << l;
  });
  w.branch_groups(inst, targets, masks, groups);
}

// Indirect calls: lanes are grouped by target address; each group calls in turn.
uint32_t function_of_address(const Program& prog, uint64_t addr) {
  if (addr <= kCodeWindow || (addr - kCodeWindow) % 16 != 0) return kNoSlot;
  uint64_t idx = (addr - kCodeWindow) / 16 - 1;
  return idx < prog.functions.size() ? static_cast<uint32_t>(idx) : kNoSlot;
}

void exec_builtin(Warp& w, const DecodedInst& inst, const CallSite& site, LaneMask active);

void exec_call(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Program& prog = *w.launch().program;
  const CallSite& site = prog.call_sites[inst.target];
  if (site.builtin != Builtin::None) {
    exec_builtin(w, inst, site, active);
    return;
  }
  if (site.callee != kNoSlot) {
    w.call(inst, site.callee, active);
    return;
  }
  if (active == 0) {  // nobody calls: just move on
    w.call(inst, 0, 0);
    return;
  }
  auto ptr = w.read(site.pointer, 0);
  uint32_t first = static_cast<uint32_t>(std::countr_zero(active));
  uint64_t target = ptr[first];
  uint32_t callee = function_of_address(prog, target);
  if (callee == kNoSlot || prog.functions[callee].is_entry) {
    w.raise(FaultKind::IllegalInstruction, first,
            fmt::format("indirect call to 0x{:x}, which is not the address of a device function",
                        target));
    return;
  }
  LaneMask group = 0;
  for_each_lane(active, [&](uint32_t l) {
    if (ptr[l] == target) group |= 1u << l;
  });
  w.call_group(inst, callee, group, active & ~group);
}

// ---- builtins: the extern functions the CUDA device runtime provides ------------

uint64_t frame_u64(Warp& w, uint32_t lane, const Operand& where) {
  uint64_t v = 0;
  if (where.kind == Src::FrameAddr) {
    uint8_t* p = w.cta().local(w.warp_in_cta() * kWarpSize + lane) + w.local_base() + where.imm;
    std::memcpy(&v, p, 8);
  } else if (where.kind == Src::Reg) {
    v = w.reg(where.index)[lane];
  } else if (where.kind == Src::Imm) {
    v = where.imm;
  }
  return v;
}

void frame_store(Warp& w, uint32_t lane, const Operand& where, uint64_t v, uint32_t size) {
  if (where.kind == Src::FrameAddr) {
    uint8_t* p = w.cta().local(w.warp_in_cta() * kWarpSize + lane) + w.local_base() + where.imm;
    std::memcpy(p, &v, size);
  } else if (where.kind == Src::Reg) {
    w.reg(where.index)[lane] = v;
  }
}

// Reads device memory through any generic address a kernel can hold.
bool read_generic(Warp& w, uint32_t lane, uint64_t addr, void* dst, size_t size) {
  auto* out = static_cast<uint8_t*>(dst);
  for (size_t i = 0; i < size; ++i) {
    uint8_t* p = w.translate(Window::Generic, addr + i, 1, lane, AccessKind::Read, /*quiet=*/true);
    if (!p) return false;
    out[i] = *p;
  }
  return true;
}

// Reads a NUL-terminated device string (at most 4 KiB), as the CUDA runtime
// does for assert messages.
std::string read_device_string(Warp& w, uint32_t lane, uint64_t addr) {
  std::string s;
  char c;
  while (s.size() < 4096 && read_generic(w, lane, addr + s.size(), &c, 1) && c != 0) s += c;
  return s;
}

// __assertfail(message, file, line, function, charSize): each failing thread
// of the warp gets CUDA's line,
//   file.cu:12: void kern(int *): block: [0,0,0], thread: [3,0,0] Assertion `x > 0` failed.
// and the launch stops with cudaErrorAssert. A GPU prints these lines on
// stderr; here they travel in the fault's detail, one per line after a
// heading, so that the runtime's report on stderr carries them verbatim (and
// only the reported fault's, which keeps runs deterministic).
void exec_assertfail(Warp& w, const CallSite& site, LaneMask active) {
  if (!active || site.args.size() < 4) return;
  const Dim3& b = w.launch().config.block;
  const Dim3 cta = w.cta().ctaid();
  std::string lines;
  for_each_lane(active, [&](uint32_t l) {
    const std::string msg = read_device_string(w, l, frame_u64(w, l, site.args[0]));
    const std::string file = read_device_string(w, l, frame_u64(w, l, site.args[1]));
    const uint32_t line = static_cast<uint32_t>(frame_u64(w, l, site.args[2]));
    const std::string func = read_device_string(w, l, frame_u64(w, l, site.args[3]));
    const uint32_t t = w.warp_in_cta() * kWarpSize + l;
    lines += fmt::format(
        "\n{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.", file, line,
        func, cta.x, cta.y, cta.z, t % b.x, t / b.x % b.y, t / (b.x * b.y), msg);
  });
  const int threads = std::popcount(active);
  Fault f;
  f.kind = FaultKind::AssertFailed;
  f.detail = fmt::format("device assert() failed in {} thread{}:{}", threads,
                         threads == 1 ? "" : "s", lines);
  w.raise(f, static_cast<uint32_t>(std::countr_zero(active)));
}

// vprintf(format, args) of one lane: the record goes into the printf FIFO
// (device_printf.h) and printf returns the number of arguments it parsed.
int exec_vprintf_lane(Warp& w, uint32_t lane, const CallSite& site) {
  const uint64_t fmt_addr = site.args.size() > 0 ? frame_u64(w, lane, site.args[0]) : 0;
  const uint64_t args_addr = site.args.size() > 1 ? frame_u64(w, lane, site.args[1]) : 0;
  // A failed read inside the formatter is not a kernel fault: the formatter
  // reports it in its output, like the CUDA runtime does.
  DeviceReader reader = [&](uint64_t a, void* d, size_t n) {
    return read_generic(w, lane, a, d, n);
  };
  PrintfResult r = format_device_printf(fmt_addr, args_addr, reader);
  if (r.returned < 0) return r.returned;  // no format: nothing is recorded
  w.cta().print(r.text, r.record_bytes);
  return r.returned;
}

// free(p) of one lane; a pointer that is not a live heap block is ignored, as
// a GPU ignores it, and counted (DeviceHeap::note_invalid_free).
void exec_free_lane(Warp& w, uint32_t lane, const CallSite& site) {
  const uint64_t p = site.args.empty() ? 0 : frame_u64(w, lane, site.args[0]);
  DeviceHeap* heap = w.launch().heap;
  if (p == 0 || heap == nullptr || heap->free(p)) return;
  heap->note_invalid_free(p);
}

void exec_builtin(Warp& w, const DecodedInst& inst, const CallSite& site, LaneMask active) {
  w.set_next_pc(w.pc() + 1);
  switch (site.builtin) {
    case Builtin::Vprintf:
      for_each_lane(active, [&](uint32_t l) {
        const int returned = exec_vprintf_lane(w, l, site);
        if (!site.rets.empty())
          frame_store(w, l, site.rets[0], static_cast<uint32_t>(returned), 4);
      });
      break;
    case Builtin::Malloc:
      // Lane order is the allocation order: deterministic addresses.
      for_each_lane(active, [&](uint32_t l) {
        const uint64_t size = site.args.empty() ? 0 : frame_u64(w, l, site.args[0]);
        const uint64_t p = w.launch().heap ? w.launch().heap->malloc(size) : 0;
        if (!site.rets.empty()) frame_store(w, l, site.rets[0], p, 8);
      });
      break;
    case Builtin::Free:
      for_each_lane(active, [&](uint32_t l) {
        if (!w.faulted()) exec_free_lane(w, l, site);
      });
      break;
    case Builtin::AssertFail:
      exec_assertfail(w, site, active);
      break;
    case Builtin::DeviceRuntime:  // dynamic parallelism (device_launch.h)
      exec_device_runtime(w, site, active);
      break;
    case Builtin::Unprovided:
      exec_unprovided_extern(w, site, active);
      break;
    case Builtin::None: break;
  }
}

// ---- ret / exit / trap ---------------------------------------------------------------

void exec_ret(Warp& w, const DecodedInst&, LaneMask active) { w.ret(active); }
void exec_exit(Warp& w, const DecodedInst&, LaneMask active) { w.exit(active); }
void exec_trap(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!active) return;
  w.raise(FaultKind::Trap, static_cast<uint32_t>(std::countr_zero(active)),
          inst.opcode == Opcode::Brkpt ? "breakpoint (brkpt) executed" : "trap executed");
}

// ---- barriers --------------------------------------------------------------------------

// bar.sync a{, b} / bar.arrive a, b / bar.red.op d, a{, b}, {!}c
// (and the barrier.* spellings). A barrier with no active lanes is skipped,
// as a guarded-off instruction is.
void exec_bar(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!active) return;
  const ptx::Modifiers& m = *inst.mods;
  bool red = m.has(ptx::Flag::Red);
  bool arrive = m.has(ptx::Flag::Arrive);
  size_t first = 0;  // sources: barrier id, [count], [predicate for red]
  auto id_v = inst.num_src > first ? w.read(inst.src[first], 0)[0] : 0;
  uint32_t id = static_cast<uint32_t>(id_v);
  uint32_t expected = 0;
  size_t count_index = 1;
  size_t nvalues = inst.num_src - (red ? 1 : 0);
  if (nvalues > count_index) expected = static_cast<uint32_t>(w.read(inst.src[count_index], 1)[0]);
  if (id >= 16) {
    w.raise(FaultKind::IllegalInstruction, static_cast<uint32_t>(std::countr_zero(active)),
            fmt::format("barrier id {} is out of range (0..15)", id));
    return;
  }
  LaneMask predicate = 0;
  if (red) {
    const Operand& p = inst.src[inst.num_src - 1];
    predicate = w.read_pred(p);
    w.pending_reduction = &inst;
    w.pending_reduction_lanes = active;
  }
  w.cta().arrive(w, id, expected, !arrive, active, predicate);
}

void exec_nop(Warp&, const DecodedInst&, LaneMask) {}

// bar.warp.sync membermask: every executing lane names the same members.
void exec_warp_sync(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!w.independent_threads() || active == 0) return;  // lockstep: nothing to wait for
  auto members = w.read(inst.src[0], 0);
  w.warp_sync(static_cast<LaneMask>(members[static_cast<uint32_t>(std::countr_zero(active))]), active);
}
void exec_yield(Warp& w, const DecodedInst&, LaneMask) { w.yield_requested = true; }

}  // namespace

Handler select_control(const ptx::Instruction& inst, const DecodedInst& d) {
  switch (inst.opcode) {
    case Opcode::Bra: return exec_bra;
    case Opcode::Brx: return exec_brx;
    case Opcode::Call: return exec_call;
    case Opcode::Ret: return exec_ret;
    case Opcode::Exit: return exec_exit;
    case Opcode::Trap:
    case Opcode::Brkpt: return exec_trap;
    case Opcode::Bar:
    case Opcode::Barrier:
      if (inst.mods.has(ptx::Flag::Warp)) return exec_warp_sync;
      if (inst.mods.scope == ptx::Scope::Cluster) return nullptr;
      if (inst.mods.has(ptx::Flag::Red) && d.num_dst != 1) return nullptr;
      return exec_bar;
    // Ordering only matters to the timing model; functional execution is
    // sequentially consistent already.
    case Opcode::Nanosleep: return exec_yield;  // the thread waits for someone: let others run
    case Opcode::Membar:
    case Opcode::Fence:
    case Opcode::Pmevent:
    case Opcode::Griddepcontrol:
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
    case Opcode::Applypriority:
      return exec_nop;
    default: return nullptr;
  }
}

}  // namespace warpsim::functional
