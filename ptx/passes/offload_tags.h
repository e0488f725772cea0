#pragma once
// How the offload_chains pass marks instructions (ptx/annotation.h), for
// the stages that read the marks: the dynamic counts of functional and timing
// runs, `warpsim ptx offload-chains`, and a timing model of offloading.
//
// The pass owns bits 0-7 of Annotation::flags, and Annotation::group holds
// the chain's id (unique in the module, from 1) on every member.
//   bits 0-1  the chain tag of Pattnaik et al. (ISCA 2019): 01 the first
//             instruction (a load), 10 an intermediate one, 11 the last;
//             00 not in a chain
//   bits 2-5  the chain's pattern, 1-9 (the paper's Table 1)
//   bit 6     a global-memory access (ld, ldu, st, atom, red in .global),
//             tagged or not: what tagged accesses are a fraction of
//   bit 7     the chain's kernel uses more shared memory than leaves room
//             for a core's service queue: compute it at an LLC node only
#include <cstdint>

#include "ptx/annotation.h"

namespace warpsim::ptx::offload {

inline constexpr uint32_t kTagMask = 0x3;
inline constexpr uint32_t kFirst = 1;
inline constexpr uint32_t kIntermediate = 2;
inline constexpr uint32_t kLast = 3;
inline constexpr uint32_t kPatternShift = 2;
inline constexpr uint32_t kPatternMask = 0xfu << kPatternShift;
inline constexpr uint32_t kGlobalAccess = 1u << 6;
inline constexpr uint32_t kNoCoreCompute = 1u << 7;
inline constexpr uint32_t kOwnedBits = 0xff;

inline uint32_t tag(const Annotation& a) { return a.flags & kTagMask; }
inline bool tagged(const Annotation& a) { return (a.flags & kTagMask) != 0; }
inline uint32_t pattern(const Annotation& a) { return (a.flags & kPatternMask) >> kPatternShift; }
inline bool global_access(const Annotation& a) { return (a.flags & kGlobalAccess) != 0; }

}  // namespace warpsim::ptx::offload
