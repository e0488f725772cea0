// Entry points: stream attributes (cudaStreamSetAttribute, cudaStreamGetAttribute,
// cudaStreamCopyAttributes), kept per stream (stream_attributes.h).
#include <cstring>

#include "libcudart_shim/api.h"

using namespace warpsim::cudart;
using warpsim::cudart::api::entry;
using warpsim::cudart::api::kContext;

namespace {

// The size of the value union a program passes: cudaLaunchAttributeValue since
// CUDA 12, CUDA 11's cudaStreamAttrValue (an access policy window or a policy).
constexpr size_t kValueBytes = WARPSIM_CUDA_MAJOR >= 12 ? 64 : 32;
static_assert(kValueBytes <= StreamAttributes::kValueBytes);

constexpr uint64_t kMaxAccessPolicyWindow = 134213632;  // cudaDevAttrMaxAccessPolicyWindowSize

// CUDA 11 knows only the access policy window and the synchronisation policy.
bool known(int id) {
  switch (static_cast<StreamAttribute>(id)) {
    case StreamAttribute::AccessPolicyWindow:
    case StreamAttribute::SynchronizationPolicy: return true;
    case StreamAttribute::Priority:
    case StreamAttribute::MemSyncDomainMap:
    case StreamAttribute::MemSyncDomain: return WARPSIM_CUDA_MAJOR >= 12;
  }
  return false;
}

// The checks the CUDA runtime makes on a value before taking it.
bool valid(StreamAttribute a, const uint8_t* v) {
  switch (a) {
    case StreamAttribute::AccessPolicyWindow: {
      uint64_t bytes;
      float hit_ratio;
      int hit_prop, miss_prop;  // cudaAccessPropertyNormal/Streaming/Persisting = 0/1/2
      std::memcpy(&bytes, v + 8, 8);
      std::memcpy(&hit_ratio, v + 16, 4);
      std::memcpy(&hit_prop, v + 20, 4);
      std::memcpy(&miss_prop, v + 24, 4);
      return bytes <= kMaxAccessPolicyWindow && hit_ratio >= 0.0f && hit_ratio <= 1.0f &&
             hit_prop >= 0 && hit_prop <= 2 && miss_prop >= 0 && miss_prop <= 1;
    }
    case StreamAttribute::SynchronizationPolicy: {
      int policy;  // cudaSyncPolicyAuto, Spin, Yield, BlockingSync = 1..4
      std::memcpy(&policy, v, 4);
      return policy >= 1 && policy <= 4;
    }
    case StreamAttribute::MemSyncDomain: {
      int domain;  // cudaLaunchMemSyncDomainDefault / Remote
      std::memcpy(&domain, v, 4);
      return domain == 0 || domain == 1;
    }
    case StreamAttribute::MemSyncDomainMap:
    case StreamAttribute::Priority: return true;
  }
  return false;
}

cudaError_t set_attribute(cudaStream_t stream, int id, const void* value, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    Stream* s = r.stream(stream, pt);
    if (s == nullptr) return Error::InvalidResourceHandle;
    if (value == nullptr || !known(id)) return Error::InvalidValue;
    auto a = static_cast<StreamAttribute>(id);
    uint8_t v[StreamAttributes::kValueBytes] = {};
    std::memcpy(v, value, kValueBytes);
    if (!valid(a, v)) return Error::InvalidValue;
    if (a == StreamAttribute::Priority) {
      int priority;
      std::memcpy(&priority, v, sizeof priority);
      s->priority = clamp_stream_priority(priority);
    } else {
      std::memcpy(s->attributes.value(a), v, kValueBytes);
    }
    return Error::Success;
  });
}

cudaError_t get_attribute(cudaStream_t stream, int id, void* value, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    Stream* s = r.stream(stream, pt);
    if (s == nullptr) return Error::InvalidResourceHandle;
    if (value == nullptr || !known(id)) return Error::InvalidValue;
    auto a = static_cast<StreamAttribute>(id);
    std::memset(value, 0, kValueBytes);
    if (a == StreamAttribute::Priority) std::memcpy(value, &s->priority, sizeof s->priority);
    else std::memcpy(value, s->attributes.value(a), kValueBytes);
    return Error::Success;
  });
}

cudaError_t copy_attributes(cudaStream_t dst, cudaStream_t src, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    Stream* d = r.stream(dst, pt);
    Stream* s = r.stream(src, pt);
    if (d == nullptr || s == nullptr) return Error::InvalidResourceHandle;
    d->attributes = s->attributes;
    d->priority = s->priority;
    return Error::Success;
  });
}

}  // namespace

extern "C" {

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, int attr, const void* value) {
  return set_attribute(stream, attr, value, false);
}
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t stream, int attr, const void* value) {
  return set_attribute(stream, attr, value, true);
}
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, int attr, void* value) {
  return get_attribute(stream, attr, value, false);
}
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t stream, int attr, void* value) {
  return get_attribute(stream, attr, value, true);
}
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  return copy_attributes(dst, src, false);
}
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) {
  return copy_attributes(dst, src, true);
}

}  // extern "C"
