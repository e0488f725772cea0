// The registry of handler families: adding a family is one line here.
#include "functional/exec.h"

namespace warpsim::functional {

namespace {
constexpr HandlerSelector kFamilies[] = {
    select_control, select_memory, select_integer, select_float, select_convert, select_warp,
    select_async,
    select_texture,
    select_tensor,
};
}  // namespace

Handler select_handler(const ptx::Instruction& inst, const DecodedInst& decoded) {
  for (HandlerSelector select : kFamilies)
    if (Handler h = select(inst, decoded)) return h;
  return nullptr;
}

void exec_unsupported(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (active == 0) return;  // never executed by any lane: nothing is wrong yet
  w.raise(FaultKind::Unsupported, static_cast<uint32_t>(std::countr_zero(active)),
          "unsupported instruction");
}

void exec_function_end(Warp& w, const DecodedInst&, LaneMask active) { w.ret(active); }

}  // namespace warpsim::functional
