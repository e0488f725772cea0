// Handler family: warp (being written; until then its instructions fault as unsupported).
#include "functional/exec.h"

namespace warpsim::functional {

Handler select_warp(const ptx::Instruction&, const DecodedInst&) { return nullptr; }

}  // namespace warpsim::functional
