#pragma once
// The record of one failed device-memory operation: what was accessed, how,
// why it failed, and the allocation nearest to the address. Plain types only,
// so every layer above (executor, timing, CUDA shim) can carry and extend the
// report; the executor adds kernel / CTA / thread / PTX-line context itself.
//
// describe() is defined in functional/device_memory.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpsim::functional {

// Which API created an allocation. Const is read-only for device writes;
// HostPinned and HostRegistered do not count against the device capacity;
// Managed, HostPinned and HostRegistered are host-visible (DeviceMemory
// places them at an address equal to their host pointer when configured to).
enum class AllocationKind : uint8_t {
  Device,          // cudaMalloc
  Managed,         // cudaMallocManaged, __managed__ variables
  HostPinned,      // cudaMallocHost / cudaHostAlloc
  Global,          // module .global variables
  Const,           // module .const variables
  Heap,            // the device-side malloc() arena
  HostRegistered,  // cudaHostRegister: the program's own host memory
};

enum class AccessKind : uint8_t { Read, Write, Atomic };

enum class FaultKind : uint8_t {
  None,
  OutOfBounds,   // no allocation at the address, or the access crosses its end
  Misaligned,    // address not a multiple of the (power-of-two) access size
  UseAfterFree,  // the address lies in a freed allocation
  ReadOnly,      // device write or atomic to a Const allocation
  InvalidFree,   // free() of something that is not the start of a live allocation
  OutOfMemory,   // capacity, address space or host memory exhausted
  Overlap,       // a host range to register overlaps memory already known
  InvalidValue,  // bad arguments (zero access size, 2D width > pitch, size overflow)
  // Faults of a running kernel that are not about one memory access:
  StackOverflow,    // a call needs more local memory than cudaLimitStackSize allows
  Trap,             // `trap` (or brkpt) executed
  BarrierDeadlock,  // live threads wait at a barrier that can never complete
  Unsupported,      // an instruction warpsim parses but cannot execute yet
  IllegalInstruction,  // e.g. an indirect call to something that is not a function
  Timeout,          // a CTA ran past the executor's watchdog limit (a hang)
  AssertFailed,     // device-side assert() failed (__assertfail)
  Interrupted,      // the user stopped the run (a signal) while the launch ran
};

struct AllocationInfo {
  uint64_t start = 0;
  uint64_t size = 0;
  AllocationKind kind = AllocationKind::Device;
  std::string label;
  bool live = true;
  uint64_t id = 0;  // 0, 1, 2... in allocation order
};

struct Fault {
  FaultKind kind = FaultKind::None;
  uint64_t address = 0;
  uint64_t size = 0;  // bytes accessed (64-bit: host copies can exceed 4 GiB)
  AccessKind access = AccessKind::Read;
  std::optional<AllocationInfo> nearest;  // the allocation involved, or nearest to `address`
  std::string detail;                     // extra context (which host helper, errno text...)

  explicit operator bool() const { return kind != FaultKind::None; }
};

constexpr std::string_view to_string(AllocationKind k) {
  switch (k) {
    case AllocationKind::Device: return "device";
    case AllocationKind::Managed: return "managed";
    case AllocationKind::HostPinned: return "host-pinned";
    case AllocationKind::Global: return "global";
    case AllocationKind::Const: return "const";
    case AllocationKind::Heap: return "heap";
    case AllocationKind::HostRegistered: return "host-registered";
  }
  return "?";
}

constexpr std::string_view to_string(AccessKind k) {
  switch (k) {
    case AccessKind::Read: return "read";
    case AccessKind::Write: return "write";
    case AccessKind::Atomic: return "atomic";
  }
  return "?";
}

constexpr std::string_view to_string(FaultKind k) {
  switch (k) {
    case FaultKind::None: return "none";
    case FaultKind::OutOfBounds: return "out-of-bounds";
    case FaultKind::Misaligned: return "misaligned";
    case FaultKind::UseAfterFree: return "use-after-free";
    case FaultKind::ReadOnly: return "read-only";
    case FaultKind::InvalidFree: return "invalid-free";
    case FaultKind::OutOfMemory: return "out-of-memory";
    case FaultKind::Overlap: return "overlap";
    case FaultKind::InvalidValue: return "invalid-value";
    case FaultKind::StackOverflow: return "stack-overflow";
    case FaultKind::Trap: return "trap";
    case FaultKind::BarrierDeadlock: return "barrier-deadlock";
    case FaultKind::Timeout: return "timeout";
    case FaultKind::AssertFailed: return "assertion-failed";
    case FaultKind::Interrupted: return "interrupted";
    case FaultKind::Unsupported: return "unsupported-instruction";
    case FaultKind::IllegalInstruction: return "illegal-instruction";
  }
  return "?";
}

// A one-paragraph human report, e.g. "out-of-bounds write of 4 bytes at
// 0x7f0000000400: 0 bytes past the end of allocation 'd_out'
// [0x7f0000000000, +1024) (device)". Empty for FaultKind::None.
std::string describe(const Fault& fault);

}  // namespace warpsim::functional
