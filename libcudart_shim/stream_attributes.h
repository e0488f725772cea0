#pragma once
// The attributes a stream keeps for cudaStreamSetAttribute / GetAttribute /
// CopyAttributes: the value of every attribute CUDA lets a stream hold, as
// the bytes of its cudaLaunchAttributeValue (cudaStreamAttrValue in CUDA 11).
//
// None of them changes what a kernel computes: the access policy window and
// the memory synchronisation domains are hints to the L2 and to fences, the
// synchronisation policy says how a host thread waits. The priority is the
// stream's own (Stream::priority), so it is not kept here.
#include <array>
#include <cstdint>
#include <cstring>

namespace warpsim::cudart {

// cudaLaunchAttributeID values a stream accepts (the same numbers in CUDA 11's
// cudaStreamAttrID for the first two).
enum class StreamAttribute : int {
  AccessPolicyWindow = 1,
  SynchronizationPolicy = 3,
  Priority = 8,
  MemSyncDomainMap = 9,
  MemSyncDomain = 10,
};

class StreamAttributes {
 public:
  static constexpr size_t kValueBytes = 64;  // the largest value union (CUDA 12 and later)

  StreamAttributes() {
    for (auto& v : values_) v.fill(0);
    // Defaults as the CUDA runtime reports them for a new stream: automatic
    // synchronisation policy (cudaSyncPolicyAuto), the default memory
    // synchronisation domain mapped to domain 0 and the remote one to 1.
    int auto_policy = 1;
    std::memcpy(value(StreamAttribute::SynchronizationPolicy), &auto_policy, sizeof auto_policy);
    value(StreamAttribute::MemSyncDomainMap)[1] = 1;
  }
  uint8_t* value(StreamAttribute a) { return values_[slot(a)].data(); }
  const uint8_t* value(StreamAttribute a) const { return values_[slot(a)].data(); }

 private:
  static size_t slot(StreamAttribute a) {
    switch (a) {
      case StreamAttribute::AccessPolicyWindow: return 0;
      case StreamAttribute::SynchronizationPolicy: return 1;
      case StreamAttribute::MemSyncDomainMap: return 2;
      case StreamAttribute::MemSyncDomain: return 3;
      case StreamAttribute::Priority: break;  // Stream::priority
    }
    return 0;
  }
  std::array<std::array<uint8_t, kValueBytes>, 4> values_;
};

}  // namespace warpsim::cudart
