// CUDA arrays, texture objects and surface objects: the runtime side of
// functional/texture.h.
#include <string>

#include "libcudart_shim/runtime.h"

namespace warpsim::cudart {

using functional::ArrayKind;

namespace {

constexpr unsigned kArrayLayered = 0x01;
constexpr unsigned kArraySurfaceLoadStore = 0x02;
constexpr unsigned kArrayCubemap = 0x04;
constexpr unsigned kArrayTextureGather = 0x08;
constexpr unsigned kArrayKnownFlags = 0x0F | 0x20 | 0x40;  // + ColorAttachment, Sparse

}  // namespace

Error Runtime::malloc_array(uint64_t* array, const functional::ChannelFormat& format,
                            uint64_t width, uint64_t height, uint64_t depth, unsigned flags) {
  if (array == nullptr || (flags & ~kArrayKnownFlags) != 0 || !format.valid())
    return format.valid() ? Error::InvalidValue : Error::InvalidChannelDescriptor;
  functional::ArrayDesc d;
  d.format = format;
  d.surface = (flags & kArraySurfaceLoadStore) != 0;
  const bool layered = flags & kArrayLayered;
  const bool cubemap = flags & kArrayCubemap;
  if ((flags & kArrayTextureGather) && (depth != 0 || height == 0)) return Error::InvalidValue;
  if (cubemap)
    d.kind = layered ? ArrayKind::CubemapLayered : ArrayKind::Cubemap;
  else if (layered)
    d.kind = height == 0 ? ArrayKind::Layered1D : ArrayKind::Layered2D;
  else if (depth != 0)
    d.kind = ArrayKind::D3;
  else
    d.kind = height == 0 ? ArrayKind::D1 : ArrayKind::D2;
  if (width == 0 || width > functional::kMaxTextureExtent || height > functional::kMaxTextureExtent ||
      depth > functional::kMaxTextureExtent)
    return Error::InvalidValue;
  d.width = static_cast<uint32_t>(width);
  d.height = static_cast<uint32_t>(height);
  d.depth = static_cast<uint32_t>(depth);
  std::string why;
  const uint64_t handle = device_->create_array(d, &why);
  if (handle == 0)
    return why.find("memory") != std::string::npos ? Error::MemoryAllocation : Error::InvalidValue;
  *array = handle;
  stats_.add("runtime.arrays_created");
  return Error::Success;
}

Error Runtime::free_array(uint64_t handle) {
  if (handle == 0) return Error::Success;
  synchronize();
  return device_->destroy_array(handle) ? Error::Success : Error::InvalidValue;
}

const functional::ArrayInfo* Runtime::array(uint64_t handle) const {
  return device_->textures().array(handle);
}

Error Runtime::create_texture(uint64_t* handle, const functional::ResourceDesc& res,
                              const functional::TextureDesc& desc) {
  if (handle == nullptr) return Error::InvalidValue;
  std::string why;
  const uint64_t h = device_->create_texture_object(res, desc, &why);
  if (h == 0) return Error::InvalidValue;
  *handle = h;
  return Error::Success;
}

Error Runtime::destroy_texture(uint64_t handle) {
  object_descriptors.erase(handle);
  return device_->destroy_texture_object(handle) ? Error::Success : Error::InvalidValue;
}

Error Runtime::create_surface(uint64_t* handle, const functional::ResourceDesc& res) {
  if (handle == nullptr) return Error::InvalidValue;
  std::string why;
  const uint64_t h = device_->create_surface_object(res, &why);
  if (h == 0) return Error::InvalidValue;
  *handle = h;
  return Error::Success;
}

Error Runtime::destroy_surface(uint64_t handle) {
  object_descriptors.erase(handle);
  return device_->destroy_surface_object(handle) ? Error::Success : Error::InvalidValue;
}

}  // namespace warpsim::cudart
