// TextureTable: arrays, texture objects and surface objects (see texture.h).
#include "functional/texture.h"

#include <fmt/format.h>

#include <cstring>

namespace warpsim::functional {

namespace {

// Records why a call failed; returns false, which is also the 0 handle.
bool fail(std::string* why, std::string text) {
  if (why) *why = std::move(text);
  return false;
}

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

bool in_range(uint64_t v) { return v >= 1 && v <= kMaxTextureExtent; }

}  // namespace

bool ChannelFormat::valid() const {
  if (channels != 1 && channels != 2 && channels != 4) return false;
  if (kind == ChannelKind::Float) return bits == 16 || bits == 32;
  return (bits == 8 || bits == 16 || bits == 32) && kind <= ChannelKind::Float;
}

std::string_view to_string(Shape s) {
  switch (s) {
    case Shape::Linear: return "linear-memory";
    case Shape::Pitch2D: return "pitched 2D";
    case Shape::D1: return "1D";
    case Shape::D2: return "2D";
    case Shape::D3: return "3D";
    case Shape::Layered1D: return "1D layered";
    case Shape::Layered2D: return "2D layered";
    case Shape::Cubemap: return "cubemap";
    case Shape::CubemapLayered: return "layered cubemap";
  }
  return "?";
}

// ---- HandleTable ----------------------------------------------------------------------

template <typename T>
uint64_t HandleTable<T>::add(T value) {
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  if (++s.generation == 0) s.generation = 1;  // 0 would make handle 0 + slot valid forever
  s.live = true;
  s.value = std::move(value);
  return uint64_t{s.generation} << 32 | (uint64_t{slot} + 1);
}

template <typename T>
bool HandleTable<T>::remove(uint64_t handle) {
  if (!find(handle)) return false;
  const auto slot = static_cast<uint32_t>((handle & 0xffffffffu) - 1);
  slots_[slot].live = false;
  slots_[slot].value = T{};
  free_.push_back(slot);
  return true;
}

template class HandleTable<ArrayInfo>;
template class HandleTable<TextureObject>;

// ---- arrays ---------------------------------------------------------------------------

uint64_t TextureTable::create_array(DeviceMemory& mem, const ArrayDesc& d, std::string* why) {
  if (!d.format.valid()) return fail(why, "unsupported channel format (1, 2 or 4 channels of 8/16/32 bits)");
  ArrayInfo a;
  a.desc = d;
  bool ok = in_range(d.width);
  switch (d.kind) {
    case ArrayKind::D1: ok = ok && d.height == 0 && d.depth == 0; break;
    case ArrayKind::D2: ok = ok && in_range(d.height) && d.depth == 0; break;
    case ArrayKind::D3: ok = ok && in_range(d.height) && in_range(d.depth); break;
    case ArrayKind::Layered1D: ok = ok && d.height == 0 && in_range(d.depth); break;
    case ArrayKind::Layered2D: ok = ok && in_range(d.height) && in_range(d.depth); break;
    case ArrayKind::Cubemap: ok = ok && d.height == d.width && d.depth == 6; break;
    case ArrayKind::CubemapLayered:
      ok = ok && d.height == d.width && in_range(d.depth) && d.depth % 6 == 0;
      break;
  }
  if (!ok)
    return fail(why, fmt::format("invalid extent {}x{}x{} for this kind of array", d.width,
                                 d.height, d.depth));
  a.rows = d.height ? d.height : 1;
  a.slices = d.depth ? d.depth : 1;
  a.pitch = round_up(uint64_t{d.width} * d.format.bytes(), kArrayPitchAlignment);
  a.slice_pitch = a.pitch * a.rows;
  Fault f;
  a.address = mem.allocate(a.bytes(), AllocationKind::Device, "cudaArray", &f);
  if (!a.address) return fail(why, describe(f));
  return arrays_.add(a);
}

bool TextureTable::destroy_array(DeviceMemory& mem, uint64_t array) {
  const ArrayInfo* a = arrays_.find(array);
  if (!a) return false;
  (void)mem.free(a->address);
  return arrays_.remove(array);
}

Fault TextureTable::copy_to_array(DeviceMemory& mem, uint64_t array, const void* src) const {
  const ArrayInfo* a = arrays_.find(array);
  Fault f;
  if (!a) {
    f.kind = FaultKind::InvalidValue;
    f.detail = fmt::format("copy to array: {:#x} is not a live array", array);
    return f;
  }
  const uint64_t row = uint64_t{a->desc.width} * a->desc.format.bytes();
  // Slices are contiguous (slice_pitch = pitch * rows): one 2D copy of all rows.
  return mem.copy2d_from_host(a->address, a->pitch, src, row, row, uint64_t{a->rows} * a->slices);
}

Fault TextureTable::copy_from_array(const DeviceMemory& mem, void* dst, uint64_t array) const {
  const ArrayInfo* a = arrays_.find(array);
  Fault f;
  if (!a) {
    f.kind = FaultKind::InvalidValue;
    f.detail = fmt::format("copy from array: {:#x} is not a live array", array);
    return f;
  }
  const uint64_t row = uint64_t{a->desc.width} * a->desc.format.bytes();
  return mem.copy2d_to_host(dst, row, a->address, a->pitch, row, uint64_t{a->rows} * a->slices);
}

// ---- objects --------------------------------------------------------------------------

bool TextureTable::resolve(const ResourceDesc& r, TextureObject& o, std::string* why) const {
  if (r.kind == ResourceKind::Array) {
    const ArrayInfo* a = arrays_.find(r.array);
    if (!a) return fail(why, fmt::format("{:#x} is not a live array", r.array));
    static constexpr Shape kShapes[] = {Shape::D1,        Shape::D2,      Shape::D3,
                                        Shape::Layered1D, Shape::Layered2D, Shape::Cubemap,
                                        Shape::CubemapLayered};
    const ArrayDesc& d = a->desc;
    o.shape = kShapes[static_cast<size_t>(d.kind)];
    o.format = d.format;
    o.address = a->address;
    o.pitch = a->pitch;
    o.slice_pitch = a->slice_pitch;
    o.width = d.width;
    o.height = a->rows;
    o.depth = d.kind == ArrayKind::D3 ? d.depth : 1;
    if (d.kind == ArrayKind::Layered1D || d.kind == ArrayKind::Layered2D) o.layers = d.depth;
    if (d.kind == ArrayKind::Cubemap || d.kind == ArrayKind::CubemapLayered) o.layers = d.depth / 6;
    o.array = r.array;
    o.element_bytes = d.format.bytes();
    return true;
  }
  if (r.kind != ResourceKind::Linear && r.kind != ResourceKind::Pitch2D)
    return fail(why, "unknown resource kind");
  if (!r.format.valid()) return fail(why, "unsupported channel format");
  const uint32_t elem = r.format.bytes();
  if (r.address == 0 || r.address % elem)
    return fail(why, fmt::format("address {:#x} is null or not aligned to the {}-byte element",
                                 r.address, elem));
  o.format = r.format;
  o.element_bytes = elem;
  o.address = r.address;
  if (r.kind == ResourceKind::Linear) {
    if (r.width == 0 || r.width > (uint64_t{1} << 32) - 1)
      return fail(why, fmt::format("invalid linear width {}", r.width));
    o.shape = Shape::Linear;
    o.width = static_cast<uint32_t>(r.width);
    o.pitch = o.slice_pitch = r.width * elem;
    return true;
  }
  if (!in_range(r.width) || !in_range(r.height) || r.pitch < r.width * elem || r.pitch % elem)
    return fail(why, fmt::format("invalid pitched extent {}x{} with pitch {}", r.width, r.height,
                                 r.pitch));
  o.shape = Shape::Pitch2D;
  o.width = static_cast<uint32_t>(r.width);
  o.height = r.height;
  o.pitch = r.pitch;
  o.slice_pitch = r.pitch * r.height;
  return true;
}

uint64_t TextureTable::create_texture(const ResourceDesc& res, const TextureDesc& desc,
                                      std::string* why) {
  TextureObject o;
  if (!resolve(res, o, why)) return 0;
  for (AddressMode m : desc.address)
    if (m > AddressMode::Border) return fail(why, "invalid address mode");
  if (desc.filter > FilterMode::Linear || desc.read > ReadMode::NormalizedFloat)
    return fail(why, "invalid filter or read mode");
  const bool integer = o.format.kind != ChannelKind::Float;
  if (integer && desc.read == ReadMode::NormalizedFloat && o.format.bits == 32)
    return fail(why, "normalized-float reads need 8- or 16-bit integer channels");
  // Linear filtering needs float results; linear memory ignores the filter.
  if (integer && desc.read == ReadMode::ElementType && desc.filter == FilterMode::Linear &&
      o.shape != Shape::Linear)
    return fail(why, "linear filtering needs float results (a float format or normalized-float reads)");
  o.desc = desc;
  return objects_.add(o);
}

uint64_t TextureTable::create_surface(const ResourceDesc& res, std::string* why) {
  if (res.kind != ResourceKind::Array) return fail(why, "a surface object needs an array resource");
  TextureObject o;
  if (!resolve(res, o, why)) return 0;
  if (!arrays_.find(res.array)->desc.surface)
    return fail(why, "the array was not created for surface load/store");
  o.is_surface = true;
  return objects_.add(o);
}

bool TextureTable::destroy_object(uint64_t handle, bool surface) {
  const TextureObject* o = objects_.find(handle);
  if (!o || o->is_surface != surface) return false;
  return objects_.remove(handle);
}

}  // namespace warpsim::functional
