// Handler family: convert (being written; until then its instructions fault as unsupported).
#include "functional/exec.h"

namespace warpsim::functional {

Handler select_convert(const ptx::Instruction&, const DecodedInst&) { return nullptr; }

}  // namespace warpsim::functional
