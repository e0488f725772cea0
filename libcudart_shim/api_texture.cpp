// Entry points: channel descriptors, CUDA arrays, texture and surface objects.
#include <cstring>
#include <string>

#include "libcudart_shim/api.h"

using namespace warpsim::cudart;
using warpsim::cudart::api::entry;
using warpsim::cudart::api::kContext;
namespace fn = warpsim::functional;

namespace {

uint64_t handle_of(const void* p) { return reinterpret_cast<uint64_t>(p); }

// cudaChannelFormatDesc -> the executor's texel format: 1, 2 or 4 channels
// of equal width, x first.
bool to_format(const cudaChannelFormatDesc& d, fn::ChannelFormat& out) {
  const int bits[4] = {d.x, d.y, d.z, d.w};
  int channels = 0;
  while (channels < 4 && bits[channels] != 0) ++channels;
  for (int i = channels; i < 4; ++i)
    if (bits[i] != 0) return false;
  if (channels == 0) return false;
  for (int i = 1; i < channels; ++i)
    if (bits[i] != bits[0]) return false;
  if (d.f != cudaChannelFormatKindSigned && d.f != cudaChannelFormatKindUnsigned &&
      d.f != cudaChannelFormatKindFloat)
    return false;
  out.channels = static_cast<uint8_t>(channels);
  out.bits = static_cast<uint8_t>(bits[0]);
  out.kind = static_cast<fn::ChannelKind>(d.f);
  return out.valid();
}

cudaChannelFormatDesc from_format(const fn::ChannelFormat& f) {
  cudaChannelFormatDesc d{};
  int* c[4] = {&d.x, &d.y, &d.z, &d.w};
  for (int i = 0; i < f.channels && i < 4; ++i) *c[i] = f.bits;
  d.f = static_cast<cudaChannelFormatKind>(f.kind);
  return d;
}

Error to_resource(Runtime& r, const cudaResourceDesc& res, fn::ResourceDesc& out) {
  switch (res.resType) {
    case cudaResourceTypeArray:
      out.kind = fn::ResourceKind::Array;
      out.array = handle_of(res.res.array.array);
      return r.array(out.array) ? Error::Success : Error::InvalidResourceHandle;
    case cudaResourceTypeLinear: {
      out.kind = fn::ResourceKind::Linear;
      out.address = handle_of(res.res.linear.devPtr);
      if (!to_format(res.res.linear.desc, out.format)) return Error::InvalidChannelDescriptor;
      out.width = res.res.linear.sizeInBytes / out.format.bytes();
      return Error::Success;
    }
    case cudaResourceTypePitch2D: {
      out.kind = fn::ResourceKind::Pitch2D;
      out.address = handle_of(res.res.pitch2D.devPtr);
      if (!to_format(res.res.pitch2D.desc, out.format)) return Error::InvalidChannelDescriptor;
      out.width = res.res.pitch2D.width;
      out.height = static_cast<uint32_t>(res.res.pitch2D.height);
      out.pitch = res.res.pitch2D.pitchInBytes;
      return Error::Success;
    }
    case cudaResourceTypeMipmappedArray:
      return Error::NotSupported;  // mipmapped arrays are not modelled
  }
  return Error::InvalidValue;
}

// The cudaTextureDesc fields every major has in common.
template <typename Desc>
Error to_texture_desc(const Desc& t, fn::TextureDesc& out) {
  for (int i = 0; i < 3; ++i) {
    if (t.addressMode[i] < cudaAddressModeWrap || t.addressMode[i] > cudaAddressModeBorder)
      return Error::InvalidValue;
    out.address[i] = static_cast<fn::AddressMode>(t.addressMode[i]);
  }
  if (t.filterMode != cudaFilterModePoint && t.filterMode != cudaFilterModeLinear)
    return Error::InvalidValue;
  if (t.readMode != cudaReadModeElementType && t.readMode != cudaReadModeNormalizedFloat)
    return Error::InvalidValue;
  if (t.sRGB) return Error::NotSupported;  // sRGB conversion is not modelled
  out.filter = static_cast<fn::FilterMode>(t.filterMode);
  out.read = static_cast<fn::ReadMode>(t.readMode);
  out.normalized_coords = t.normalizedCoords != 0;
  for (int i = 0; i < 4; ++i) out.border[i] = t.borderColor[i];
  return Error::Success;
}

// What cudaGetTextureObject*Desc return: the descriptors as given.
struct StoredDescriptors {
  cudaResourceDesc res;
  cudaResourceViewDesc view;
  unsigned char tex[sizeof(cudaTextureDesc) + 16];  // the largest texture descriptor of this major
};

template <typename Desc>
cudaError_t create_texture(cudaTextureObject_t* tex, const cudaResourceDesc* res, const Desc* desc,
                           const cudaResourceViewDesc* view) {
  return entry(kContext, [&](Runtime& r) {
    if (tex == nullptr || res == nullptr || desc == nullptr) return Error::InvalidValue;
    if (view != nullptr) return Error::NotSupported;  // resource views are not modelled
    fn::ResourceDesc rd;
    fn::TextureDesc td;
    if (Error e = to_resource(r, *res, rd); e != Error::Success) return e;
    if (Error e = to_texture_desc(*desc, td); e != Error::Success) return e;
    // Linear filtering and normalised reads need float or normalisable texels.
    uint64_t h = 0;
    if (Error e = r.create_texture(&h, rd, td); e != Error::Success) return e;
    StoredDescriptors s{};
    s.res = *res;
    std::memcpy(s.tex, desc, sizeof(Desc));
    r.object_descriptors[h] = std::string(reinterpret_cast<const char*>(&s), sizeof s);
    *tex = h;
    return Error::Success;
  });
}

const StoredDescriptors* stored(Runtime& r, uint64_t handle) {
  auto it = r.object_descriptors.find(handle);
  return it == r.object_descriptors.end()
             ? nullptr
             : reinterpret_cast<const StoredDescriptors*>(it->second.data());
}

template <typename Desc>
cudaError_t texture_desc(Desc* desc, cudaTextureObject_t tex) {
  return entry(kContext, [&](Runtime& r) {
    if (desc == nullptr) return Error::InvalidValue;
    const StoredDescriptors* s = stored(r, tex);
    if (s == nullptr || r.device().textures().find(tex) == nullptr) return Error::InvalidValue;
    std::memcpy(desc, s->tex, sizeof(Desc));
    return Error::Success;
  });
}

#if WARPSIM_CUDA_MAJOR == 11
// CUDA 11's _v2 texture descriptor: the 12.0 layout (seamlessCubemap added).
struct cudaTextureDesc_v2 {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};
static_assert(sizeof(cudaTextureDesc_v2) <= sizeof(cudaTextureDesc) + 16);
#endif

}  // namespace

extern "C" {

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  return entry(kContext, [&](Runtime& r) {
    if (desc == nullptr) return Error::InvalidValue;
    const fn::ArrayInfo* a = r.array(handle_of(array));
    if (a == nullptr) return Error::InvalidResourceHandle;
    *desc = from_format(a->desc.format);
    return Error::Success;
  });
}

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                            size_t height, unsigned flags) {
  return entry(kContext, [&](Runtime& r) {
    if (array == nullptr || desc == nullptr) return Error::InvalidValue;
    fn::ChannelFormat f;
    if (!to_format(*desc, f)) return Error::InvalidChannelDescriptor;
    if (flags & (cudaArrayLayered | cudaArrayCubemap)) return Error::InvalidValue;
    uint64_t h = 0;
    Error e = r.malloc_array(&h, f, width, height, 0, flags);
    if (e == Error::Success) *array = reinterpret_cast<cudaArray_t>(h);
    return e;
  });
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                              cudaExtent extent, unsigned flags) {
  return entry(kContext, [&](Runtime& r) {
    if (array == nullptr || desc == nullptr) return Error::InvalidValue;
    fn::ChannelFormat f;
    if (!to_format(*desc, f)) return Error::InvalidChannelDescriptor;
    uint64_t h = 0;
    Error e = r.malloc_array(&h, f, extent.width, extent.height, extent.depth, flags);
    if (e == Error::Success) *array = reinterpret_cast<cudaArray_t>(h);
    return e;
  });
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  return entry(kContext, [&](Runtime& r) { return r.free_array(handle_of(array)); });
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned* flags,
                             cudaArray_t array) {
  return entry(kContext, [&](Runtime& r) {
    const fn::ArrayInfo* a = r.array(handle_of(array));
    if (a == nullptr) return Error::InvalidResourceHandle;
    if (desc) *desc = from_format(a->desc.format);
    if (extent) *extent = cudaExtent{a->desc.width, a->desc.height, a->desc.depth};
    if (flags) {
      unsigned f = a->desc.surface ? cudaArraySurfaceLoadStore : 0u;
      switch (a->desc.kind) {
        case fn::ArrayKind::Layered1D:
        case fn::ArrayKind::Layered2D: f |= cudaArrayLayered; break;
        case fn::ArrayKind::Cubemap: f |= cudaArrayCubemap; break;
        case fn::ArrayKind::CubemapLayered: f |= cudaArrayCubemap | cudaArrayLayered; break;
        default: break;
      }
      *flags = f;
    }
    return Error::Success;
  });
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* tex, const cudaResourceDesc* res,
                                    const cudaTextureDesc* desc,
                                    const cudaResourceViewDesc* view) {
  return create_texture(tex, res, desc, view);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex) {
  return entry(kContext, [&](Runtime& r) { return r.destroy_texture(tex); });
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* res, cudaTextureObject_t tex) {
  return entry(kContext, [&](Runtime& r) {
    if (res == nullptr) return Error::InvalidValue;
    const StoredDescriptors* s = stored(r, tex);
    if (s == nullptr) return Error::InvalidValue;
    *res = s->res;
    return Error::Success;
  });
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* desc, cudaTextureObject_t tex) {
  return texture_desc(desc, tex);
}

cudaError_t cudaGetTextureObjectResourceViewDesc(cudaResourceViewDesc* view,
                                                 cudaTextureObject_t tex) {
  return entry(kContext, [&](Runtime& r) {
    if (view == nullptr) return Error::InvalidValue;
    const StoredDescriptors* s = stored(r, tex);
    if (s == nullptr) return Error::InvalidValue;
    *view = s->view;  // no view was given: all zero (cudaResViewFormatNone)
    return Error::Success;
  });
}

#if WARPSIM_CUDA_MAJOR == 11
cudaError_t cudaCreateTextureObject_v2(cudaTextureObject_t* tex, const cudaResourceDesc* res,
                                       const cudaTextureDesc_v2* desc,
                                       const cudaResourceViewDesc* view) {
  return create_texture(tex, res, desc, view);
}
cudaError_t cudaGetTextureObjectTextureDesc_v2(cudaTextureDesc_v2* desc, cudaTextureObject_t tex) {
  return texture_desc(desc, tex);
}
#endif

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* surf, const cudaResourceDesc* res) {
  return entry(kContext, [&](Runtime& r) {
    if (surf == nullptr || res == nullptr) return Error::InvalidValue;
    if (res->resType != cudaResourceTypeArray) return Error::InvalidValue;
    fn::ResourceDesc rd;
    if (Error e = to_resource(r, *res, rd); e != Error::Success) return e;
    uint64_t h = 0;
    if (Error e = r.create_surface(&h, rd); e != Error::Success) return e;
    StoredDescriptors s{};
    s.res = *res;
    r.object_descriptors[h] = std::string(reinterpret_cast<const char*>(&s), sizeof s);
    *surf = h;
    return Error::Success;
  });
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf) {
  return entry(kContext, [&](Runtime& r) { return r.destroy_surface(surf); });
}

cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* res, cudaSurfaceObject_t surf) {
  return entry(kContext, [&](Runtime& r) {
    if (res == nullptr) return Error::InvalidValue;
    const StoredDescriptors* s = stored(r, surf);
    if (s == nullptr) return Error::InvalidValue;
    *res = s->res;
    return Error::Success;
  });
}

}  // extern "C"
