// Handler family: textures and surfaces — tex (.1d .2d .3d .a1d .a2d .cube
// .acube; .base/.level/.grad sample level 0, the only one modelled), tld4
// (.2d .a2d), txq, suq, and suld.b / sust.b (.1d .2d .3d .a1d .a2d with
// .trap/.clamp/.zero). Semantics: docs/functional-textures.md.
//
// Decoding (lower_decode.cpp): inst.addr yields the object handle (the value
// of a register or immediate when its window is Generic, else the address of
// a .texref/.surfref/.param variable holding it); coordinate k is
// Program::addresses[inst.more_addrs + k].base, for k < inst.target; src[]
// holds the operands after the `[...]` (tex.level / txq.level's lod, sust's
// values). The handle is looked up per lane in the launch's TextureTable.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "functional/exec.h"
#include "functional/fp/half.h"
#include "functional/texture.h"

namespace warpsim::functional {

namespace {

using ptx::Flag;
using ptx::Geometry;
using ptx::Opcode;
using ptx::ScalarType;

constexpr uint32_t kOneF = 0x3f800000u;  // 1.0f

// ---- objects and coordinates -------------------------------------------------------------

std::string_view geometry_name(Geometry g) {
  switch (g) {
    case Geometry::D1: return "1d";
    case Geometry::D2: return "2d";
    case Geometry::D3: return "3d";
    case Geometry::A1d: return "a1d";
    case Geometry::A2d: return "a2d";
    case Geometry::Cube: return "cube";
    case Geometry::ACube: return "acube";
    default: return "?";
  }
}

// Coordinates a geometry reads (the vector may carry an ignored extra one).
uint32_t coords_needed(Geometry g) {
  switch (g) {
    case Geometry::D1: return 1;
    case Geometry::D2:
    case Geometry::A1d: return 2;
    case Geometry::D3:
    case Geometry::A2d:
    case Geometry::Cube: return 3;
    case Geometry::ACube: return 4;
    default: return 0;
  }
}

bool geometry_fits(Geometry g, Shape s, bool surface) {
  switch (g) {
    case Geometry::D1: return s == Shape::Linear || s == Shape::D1;
    case Geometry::D2: return s == Shape::Pitch2D || s == Shape::D2;
    case Geometry::D3: return s == Shape::D3;
    case Geometry::A1d: return s == Shape::Layered1D;
    // surfCubemap*/surfCubemapLayered* address faces as layers of a2d.
    case Geometry::A2d:
      return s == Shape::Layered2D ||
             (surface && (s == Shape::Cubemap || s == Shape::CubemapLayered));
    case Geometry::Cube: return s == Shape::Cubemap;
    case Geometry::ACube: return s == Shape::CubemapLayered;
    default: return false;
  }
}

// The object the instruction names for `lane`, or null with the warp faulted.
const TextureObject* object_of(Warp& w, const DecodedInst& inst, uint32_t lane, bool surface) {
  uint64_t h = w.address(inst, lane);
  if (inst.addr.window != Window::Generic) {  // a variable holding the handle
    const uint8_t* p = w.translate(inst.addr.window, h, 8, lane, AccessKind::Read);
    if (!p) return nullptr;
    std::memcpy(&h, p, 8);
  }
  const TextureTable* table = w.launch().textures;
  const TextureObject* o = table ? table->find(h) : nullptr;
  const char* want = surface ? "surface" : "texture";
  if (o && o->is_surface == surface) {
    const Geometry g = inst.mods->geom;  // None for txq / suq
    if (g == Geometry::None || geometry_fits(g, o->shape, surface)) return o;
    w.raise(FaultKind::InvalidValue, lane,
            fmt::format(".{} access to {} object {:#x}, which is {} ({} wide)",
                        geometry_name(inst.mods->geom), want, h, to_string(o->shape), o->width));
    return nullptr;
  }
  std::string why;
  if (o)
    why = fmt::format("{:#x} is a {} object, not a {} object", h,
                      o->is_surface ? "surface" : "texture", want);
  else if (h == 0)
    why = fmt::format("the {} handle is 0 (an unbound reference or an object never created)", want);
  else
    why = fmt::format("{:#x} is not a live {} object (never created, or destroyed)", h, want);
  w.raise(FaultKind::InvalidValue, lane, std::move(why));
  return nullptr;
}

// The instruction's coordinate operands (at most 4).
struct Coords {
  Warp::Lanes v[4];
  Coords(Warp& w, const DecodedInst& inst) : v{} {
    const Address* a = w.launch().program->addresses.data() + inst.more_addrs;
    for (uint32_t k = 0; k < inst.target && k < 4; ++k) v[k] = w.read(a[k].base, k);
  }
  int32_t i(uint32_t k, uint32_t lane) const { return static_cast<int32_t>(v[k][lane]); }
  float f(uint32_t k, uint32_t lane) const { return as_f32(v[k][lane]); }
};

// ---- texels -------------------------------------------------------------------------------

// A texel's four channels as a fetch returns them: f32 bits (float formats
// and normalized-float reads) or 32-bit integers.
struct Texel {
  uint32_t c[4] = {0, 0, 0, 0};
};

bool returns_float(const TextureObject& t) {
  return t.format.kind == ChannelKind::Float ||
         (!t.is_surface && t.desc.read == ReadMode::NormalizedFloat);
}

uint32_t channel_value(const TextureObject& t, uint64_t raw) {
  const ChannelFormat& f = t.format;
  const bool normalized = t.desc.read == ReadMode::NormalizedFloat;
  switch (f.kind) {
    case ChannelKind::Float:
      return f.bits == 16 ? fp::f16_to_f32(static_cast<uint16_t>(raw)) : static_cast<uint32_t>(raw);
    case ChannelKind::Unsigned:
      if (!normalized) return static_cast<uint32_t>(raw);
      return static_cast<uint32_t>(bits_of(static_cast<float>(raw) / (f.bits == 8 ? 255.0f : 65535.0f)));
    case ChannelKind::Signed: {
      const int64_t v = sign_extend(raw, f.bits);
      if (!normalized) return static_cast<uint32_t>(v);
      const float q = static_cast<float>(v) / (f.bits == 8 ? 127.0f : 32767.0f);
      return static_cast<uint32_t>(bits_of(std::max(q, -1.0f)));  // -128 and -32768 map to -1
    }
  }
  return 0;
}

// Texel (x, y) of slice s (all in range). Missing channels read 0, alpha 1.
bool load_texel(Warp& w, const TextureObject& t, uint64_t x, uint64_t y, uint64_t s, uint32_t lane,
                Texel& out) {
  const uint64_t addr = t.address + s * t.slice_pitch + y * t.pitch + x * t.element_bytes;
  const uint8_t* p = w.translate(Window::Global, addr, t.element_bytes, lane, AccessKind::Read);
  if (!p) return false;
  const uint32_t cb = t.format.bits / 8;
  for (uint32_t c = 0; c < 4; ++c) {
    if (c < t.format.channels) {
      uint64_t raw = 0;
      std::memcpy(&raw, p + c * cb, cb);
      out.c[c] = channel_value(t, raw);
    } else {
      out.c[c] = c < 3 ? 0 : returns_float(t) ? kOneF : 1;
    }
  }
  return true;
}

// The border colour (its bits: integer colours come reinterpreted as float);
// linear memory reads zeros out of range.
Texel border_texel(const TextureObject& t) {
  Texel b;
  if (t.shape != Shape::Linear)
    for (uint32_t c = 0; c < 4; ++c) b.c[c] = std::bit_cast<uint32_t>(t.desc.border[c]);
  return b;
}

// ---- addressing and filtering --------------------------------------------------------------

// One sampled dimension: texel index i (and i + 1 with weight w when
// filtering), n texels, its address mode.
struct Axis {
  int64_t i = 0;
  float w = 0;
  uint32_t n = 1;
  AddressMode mode = AddressMode::Clamp;
};

// Index i mapped into [0, n) by the address mode, or -1 for a border texel.
int64_t address_index(int64_t i, uint32_t n, AddressMode mode) {
  const int64_t N = n;
  switch (mode) {
    case AddressMode::Wrap: {
      const int64_t r = i % N;
      return r < 0 ? r + N : r;
    }
    case AddressMode::Mirror: {
      int64_t r = i % (2 * N);
      if (r < 0) r += 2 * N;
      return r < N ? r : 2 * N - 1 - r;
    }
    case AddressMode::Border: return i < 0 || i >= N ? -1 : i;
    case AddressMode::Clamp: break;
  }
  return std::clamp<int64_t>(i, 0, N - 1);
}

// The mode dimension `dim` uses: linear memory has no address modes (its
// out-of-range reads are border reads of zeros); Wrap and Mirror need
// normalized coordinates and act as Clamp without them.
AddressMode mode_of(const TextureObject& t, uint32_t dim, bool normalized) {
  if (t.shape == Shape::Linear) return AddressMode::Border;
  const AddressMode m = t.desc.address[dim];
  if (!normalized && (m == AddressMode::Wrap || m == AddressMode::Mirror)) return AddressMode::Clamp;
  return m;
}

// A float coordinate u on an axis of n texels. Linear filtering takes the
// texels around x - 0.5 with the fraction as a 9-bit fixed-point weight
// (8 fractional bits, rounded to nearest, ties up: 1.0 is representable).
Axis float_axis(float u, uint32_t n, AddressMode mode, bool normalized, bool linear) {
  double x = normalized ? static_cast<double>(u) * n : static_cast<double>(u);
  if (linear) x -= 0.5;
  if (x != x) x = 0;  // NaN samples texel 0
  x = std::clamp(x, -0x1p40, 0x1p40);  // keeps the integer conversion defined
  const double fl = std::floor(x);
  Axis a{static_cast<int64_t>(fl), 0.0f, n, mode};
  if (linear) a.w = static_cast<float>(std::floor((x - fl) * 256.0 + 0.5) / 256.0);
  return a;
}

// Samples `dims` axes of slice `slice` (3D: axis 2 is the slice). Point
// sampling returns the texel's bits unchanged; linear filtering blends the
// 2^dims taps in double and rounds once to f32.
bool sample(Warp& w, const TextureObject& t, const Axis* ax, uint32_t dims, uint64_t slice,
            bool linear, uint32_t lane, Texel& out) {
  double acc[4] = {0, 0, 0, 0};
  const uint32_t taps = linear ? 1u << dims : 1u;
  for (uint32_t tap = 0; tap < taps; ++tap) {
    double weight = 1;
    int64_t idx[3] = {0, 0, 0};
    bool border = false;
    for (uint32_t d = 0; d < dims; ++d) {
      const uint32_t bit = tap >> d & 1;
      if (linear) weight *= bit ? ax[d].w : 1.0 - ax[d].w;
      idx[d] = address_index(ax[d].i + bit, ax[d].n, ax[d].mode);
      border |= idx[d] < 0;
    }
    if (weight == 0) continue;  // a tap that contributes nothing is not fetched
    Texel v;
    if (border) v = border_texel(t);
    else if (!load_texel(w, t, static_cast<uint64_t>(idx[0]), static_cast<uint64_t>(idx[1]),
                         slice + static_cast<uint64_t>(idx[2]), lane, v))
      return false;
    if (!linear) {
      out = v;
      return true;
    }
    for (uint32_t c = 0; c < 4; ++c) acc[c] += weight * as_f32(v.c[c]);
  }
  for (uint32_t c = 0; c < 4; ++c) out.c[c] = static_cast<uint32_t>(bits_of(static_cast<float>(acc[c])));
  return true;
}

// Cubemap face selection (CUDA programming guide, cubemap textures): the
// major axis picks the face, the other two give normalized face coordinates.
struct Face {
  uint32_t face;
  float u, v;
};
Face cube_face(float x, float y, float z) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  float s, t, m;
  uint32_t face;
  if (ax >= ay && ax >= az) {
    m = ax, face = x >= 0 ? 0 : 1, s = x >= 0 ? -z : z, t = -y;
  } else if (ay >= az) {
    m = ay, face = y >= 0 ? 2 : 3, s = x, t = y >= 0 ? z : -z;
  } else {
    m = az, face = z >= 0 ? 4 : 5, s = z >= 0 ? x : -x, t = -y;
  }
  if (m == 0) return {0, 0.5f, 0.5f};
  return {face, (s / m + 1) * 0.5f, (t / m + 1) * 0.5f};
}

uint64_t layer_of(const Coords& c, uint32_t k, uint32_t lane, uint32_t layers) {
  return std::min<uint64_t>(static_cast<uint32_t>(c.i(k, lane)), layers ? layers - 1 : 0);
}

// ---- tex ------------------------------------------------------------------------------------

// Writes a fetched texel to the destinations in the instruction's type:
// 32-bit results as they are, .f16 converted, .v2.f16x2 packed (rg, ba).
void write_texel(Warp& w, const DecodedInst& inst, uint32_t lane, const Texel& v, bool is_float) {
  auto f16 = [&](uint32_t c) -> uint64_t {
    const float value = is_float ? as_f32(v.c[c]) : static_cast<float>(static_cast<int32_t>(v.c[c]));
    return fp::f32_to_f16(static_cast<uint32_t>(bits_of(value)));
  };
  for (uint32_t k = 0; k < inst.num_dst; ++k) {
    if (inst.dst[k] == kNoSlot) continue;
    uint64_t r = v.c[k];
    if (inst.type == ScalarType::F16) r = f16(k);
    else if (inst.type == ScalarType::F16x2) r = f16(2 * k) | f16(2 * k + 1) << 16;
    w.reg(inst.dst[k])[lane] = r;
  }
}

// tex{.base,.level,.grad}.geom.v4.dtype.ctype d{|p}, [t, c]{, lod | dPdx, dPdy}
void exec_tex(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Geometry g = inst.mods->geom;
  const bool int_coords = inst.type2 == ScalarType::S32;
  const Coords c(w, inst);
  for_each_lane(active, [&](uint32_t l) {
    if (w.faulted()) return;
    const TextureObject* t = object_of(w, inst, l, false);
    if (!t) return;
    const bool linear = !int_coords && t->desc.filter == FilterMode::Linear && t->shape != Shape::Linear;
    Axis ax[3];
    uint32_t dims = 1;
    uint64_t slice = 0;
    // Coordinate k of the lookup, after any leading array index.
    auto axis = [&](uint32_t dim, uint32_t k, uint32_t n) {
      if (int_coords) return Axis{c.i(k, l), 0.0f, n, mode_of(*t, dim, false)};
      const bool norm = t->desc.normalized_coords;
      return float_axis(c.f(k, l), n, mode_of(*t, dim, norm), norm, linear);
    };
    switch (g) {
      case Geometry::D1: ax[0] = axis(0, 0, t->width); break;
      case Geometry::D2:
      case Geometry::D3:
        dims = g == Geometry::D2 ? 2 : 3;
        ax[0] = axis(0, 0, t->width);
        ax[1] = axis(1, 1, t->height);
        if (dims == 3) ax[2] = axis(2, 2, t->depth);
        break;
      case Geometry::A1d:
        slice = layer_of(c, 0, l, t->layers);
        ax[0] = axis(0, 1, t->width);
        break;
      case Geometry::A2d:
        dims = 2;
        slice = layer_of(c, 0, l, t->layers);
        ax[0] = axis(0, 1, t->width);
        ax[1] = axis(1, 2, t->height);
        break;
      default: {  // cube, acube: a direction; face coordinates are normalized
        const uint32_t k = g == Geometry::ACube ? 1 : 0;
        const Face f = cube_face(c.f(k, l), c.f(k + 1, l), c.f(k + 2, l));
        slice = (g == Geometry::ACube ? layer_of(c, 0, l, t->layers) * 6 : 0) + f.face;
        dims = 2;
        ax[0] = float_axis(f.u, t->width, mode_of(*t, 0, true), true, linear);
        ax[1] = float_axis(f.v, t->height, mode_of(*t, 1, true), true, linear);
        break;
      }
    }
    Texel v;
    if (!sample(w, *t, ax, dims, slice, linear, l, v)) return;
    write_texel(w, inst, l, v, returns_float(*t));
  });
  if (inst.dst_pred != kNoSlot) w.write_pred(inst.dst_pred, active, active);  // always resident
}

// tld4.comp.{2d,a2d}.v4.dtype.f32 d{|p}, [t, c]: component `comp` of the four
// texels bilinear filtering would use, counter-clockwise from lower left:
// (i, j+1), (i+1, j+1), (i+1, j), (i, j).
void exec_tld4(Warp& w, const DecodedInst& inst, LaneMask active) {
  const ptx::Modifiers& m = *inst.mods;
  const uint32_t comp = m.has(Flag::G) ? 1 : m.has(Flag::B) ? 2 : m.has(Flag::A) ? 3 : 0;
  const bool layered = m.geom == Geometry::A2d;
  const Coords c(w, inst);
  for_each_lane(active, [&](uint32_t l) {
    if (w.faulted()) return;
    const TextureObject* t = object_of(w, inst, l, false);
    if (!t) return;
    const uint32_t k = layered ? 1 : 0;
    const bool norm = t->desc.normalized_coords;
    const uint64_t slice = layered ? layer_of(c, 0, l, t->layers) : 0;
    const Axis ax[2] = {float_axis(c.f(k, l), t->width, mode_of(*t, 0, norm), norm, true),
                        float_axis(c.f(k + 1, l), t->height, mode_of(*t, 1, norm), norm, true)};
    static constexpr uint32_t kOrder[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    Texel out;
    for (uint32_t q = 0; q < 4; ++q) {
      const int64_t x = address_index(ax[0].i + kOrder[q][0], ax[0].n, ax[0].mode);
      const int64_t y = address_index(ax[1].i + kOrder[q][1], ax[1].n, ax[1].mode);
      Texel v;
      if (x < 0 || y < 0) v = border_texel(*t);
      else if (!load_texel(w, *t, static_cast<uint64_t>(x), static_cast<uint64_t>(y), slice, l, v))
        return;
      out.c[q] = v.c[comp];
    }
    write_texel(w, inst, l, out, returns_float(*t));
  });
  if (inst.dst_pred != kNoSlot) w.write_pred(inst.dst_pred, active, active);
}

// ---- txq / suq --------------------------------------------------------------------------------

constexpr Flag kQueries[] = {
    Flag::Width,       Flag::Height,           Flag::Depth,     Flag::ChannelDataType,
    Flag::ChannelOrder, Flag::NormalizedCoords, Flag::FilterMode, Flag::AddrMode0,
    Flag::AddrMode1,   Flag::AddrMode2,        Flag::ArraySize, Flag::NumMipmapLevels,
    Flag::NumSamples,  Flag::ForceUnnormalizedCoords};

Flag query_of(const ptx::Modifiers& m) {
  for (Flag f : kQueries)
    if (m.has(f)) return f;
  return Flag::kCount;
}

// CUarray_format codes, the CUDA driver's channel format enumeration.
uint32_t channel_data_type(const ChannelFormat& f) {
  const uint32_t log = f.bits == 8 ? 0 : f.bits == 16 ? 1 : 2;
  switch (f.kind) {
    case ChannelKind::Unsigned: return 0x01 + log;
    case ChannelKind::Signed: return 0x08 + log;
    case ChannelKind::Float: return f.bits == 16 ? 0x10 : 0x20;
  }
  return 0;
}

// Extents follow cudaExtent: 0 for dimensions the object does not have.
uint32_t query(const TextureObject& t, Flag q) {
  const bool has_height = t.shape != Shape::Linear && t.shape != Shape::D1 && t.shape != Shape::Layered1D;
  switch (q) {
    case Flag::Width: return t.width;
    case Flag::Height: return has_height ? t.height : 0;
    case Flag::Depth: return t.shape == Shape::D3 ? t.depth : 0;
    case Flag::ChannelDataType: return channel_data_type(t.format);
    case Flag::ChannelOrder: return t.format.channels;
    case Flag::NormalizedCoords: return t.desc.normalized_coords && !t.is_surface;
    case Flag::FilterMode: return static_cast<uint32_t>(t.desc.filter);
    case Flag::AddrMode0: return static_cast<uint32_t>(t.desc.address[0]);
    case Flag::AddrMode1: return static_cast<uint32_t>(t.desc.address[1]);
    case Flag::AddrMode2: return static_cast<uint32_t>(t.desc.address[2]);
    case Flag::ArraySize: return t.layers;
    case Flag::NumMipmapLevels: return 1;
    default: return 0;  // num_samples (no multisampling), force_unnormalized_coords
  }
}

// txq{.level}.query.b32 d, [t]{, lod} and suq.query.b32 d, [s]. Mip levels
// other than 0 do not exist: their extents read 0.
template <bool kSurface>
void exec_query(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Flag q = query_of(*inst.mods);
  const bool level = inst.mods->has(Flag::Level);
  static constexpr Operand kLevel0{Src::Imm, false, kNoSlot, 0};
  const auto lod = w.read(level ? inst.src[0] : kLevel0, 0);  // Lanes may point into the operand
  for_each_lane(active, [&](uint32_t l) {
    if (w.faulted()) return;
    const TextureObject* t = object_of(w, inst, l, kSurface);
    if (!t) return;
    const uint32_t v = level && static_cast<uint32_t>(lod[l]) != 0 ? 0 : query(*t, q);
    if (inst.dst[0] != kNoSlot) w.reg(inst.dst[0])[l] = v;
  });
}

// ---- suld.b / sust.b --------------------------------------------------------------------------

// suld.b.geom.vec.dtype.mode d, [s, c] and sust.b.geom.vec.ctype.mode [s, c], b.
// x is a byte offset in the row; y and z (or the layer) count rows and
// slices. An access outside the surface traps (.trap, the default), goes to
// the nearest location (.clamp), or reads zeros / is dropped (.zero).
template <bool kStore>
void exec_surface(Warp& w, const DecodedInst& inst, LaneMask active) {
  const ptx::Modifiers& m = *inst.mods;
  const Geometry g = m.geom;
  const uint32_t cb = ptx::type_bytes(inst.type);
  const uint32_t bytes = cb * inst.lanes;
  const bool clamp = m.has(Flag::Clamp), zero = m.has(Flag::Zero);
  const Coords c(w, inst);
  const bool layered = g == Geometry::A1d || g == Geometry::A2d;
  const uint32_t k = layered ? 1 : 0;  // the x coordinate
  for_each_lane(active, [&](uint32_t l) {
    if (w.faulted()) return;
    const TextureObject* t = object_of(w, inst, l, true);
    if (!t) return;
    int64_t x = c.i(k, l);
    int64_t y = g == Geometry::D2 || g == Geometry::D3 || g == Geometry::A2d ? c.i(k + 1, l) : 0;
    int64_t s = g == Geometry::D3 ? c.i(2, l) : layered ? c.i(0, l) : 0;
    const int64_t row = int64_t{t->width} * t->element_bytes;
    const bool cube = t->shape == Shape::Cubemap || t->shape == Shape::CubemapLayered;
    const int64_t slices = g == Geometry::D3 ? t->depth
                           : cube            ? t->layers * 6
                                             : std::max<uint32_t>(t->layers, 1);
    if (x % bytes != 0) {
      Fault f;
      f.kind = FaultKind::Misaligned;
      f.address = t->address + static_cast<uint64_t>(x);
      f.size = bytes;
      f.access = kStore ? AccessKind::Write : AccessKind::Read;
      f.detail = fmt::format(
          "surface byte coordinate x = {} is not a multiple of the {}-byte access", x, bytes);
      w.raise(f, l);
      return;
    }
    const bool out = x < 0 || x + bytes > row || y < 0 || y >= t->height || s < 0 || s >= slices;
    if (out) {
      if (zero || (clamp && bytes > row)) {
        if (!kStore)
          for (uint32_t e = 0; e < inst.num_dst; ++e)
            if (inst.dst[e] != kNoSlot) w.reg(inst.dst[e])[l] = 0;
        return;
      }
      if (!clamp) {
        w.raise(FaultKind::Trap, l,
                fmt::format("surface {} out of range with .trap: byte x = {}, y = {}, slice = {} "
                            "({}-byte access; the {} surface has rows of {} bytes, {} rows, {} slices)",
                            kStore ? "store" : "load", x, y, s, bytes, to_string(t->shape), row,
                            t->height, slices));
        return;
      }
      x = std::clamp<int64_t>(x, 0, row - bytes) / bytes * bytes;
      y = std::clamp<int64_t>(y, 0, t->height - 1);
      s = std::clamp<int64_t>(s, 0, slices - 1);
    }
    const uint64_t addr = t->address + static_cast<uint64_t>(s) * t->slice_pitch +
                          static_cast<uint64_t>(y) * t->pitch + static_cast<uint64_t>(x);
    uint8_t* p = w.translate(Window::Global, addr, bytes, l, kStore ? AccessKind::Write : AccessKind::Read);
    if (!p) return;
    for (uint32_t e = 0; e < inst.lanes; ++e) {
      if constexpr (kStore) {
        const uint64_t v = w.read(inst.src[e], e)[l];
        std::memcpy(p + e * cb, &v, cb);
      } else {
        uint64_t v = 0;
        std::memcpy(&v, p + e * cb, cb);
        if (inst.dst[e] != kNoSlot) w.reg(inst.dst[e])[l] = v;
      }
    }
  });
}

// ---- selection -------------------------------------------------------------------------------

bool one_of(ScalarType t, std::initializer_list<ScalarType> ts) {
  return std::find(ts.begin(), ts.end(), t) != ts.end();
}

Handler select_tex(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  const uint32_t need = coords_needed(m.geom);
  if (need == 0 || d.more_addrs == kNoSlot || d.target < need) return nullptr;
  if (!one_of(d.type2, {ScalarType::S32, ScalarType::F32})) return nullptr;
  const bool cube = m.geom == Geometry::Cube || m.geom == Geometry::ACube;
  if (cube && d.type2 != ScalarType::F32) return nullptr;
  const bool v4 = m.vec == ptx::VectorWidth::V4 &&
                  one_of(d.type, {ScalarType::U32, ScalarType::S32, ScalarType::F32, ScalarType::F16});
  const bool v2 = m.vec == ptx::VectorWidth::V2 && d.type == ScalarType::F16x2;
  if (!(v4 || v2) || d.num_dst != d.lanes || d.dst_is_pred) return nullptr;
  const bool level = m.has(Flag::Level), grad = m.has(Flag::Grad);
  // Texel offsets and depth-compare operands are not modelled.
  if (inst.num_operands != 2u + (level ? 1 : 0) + (grad ? 2 : 0)) return nullptr;
  if (d.num_src != (level ? 1 : 0)) return nullptr;
  return exec_tex;
}

Handler select_tld4(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  if (m.geom != Geometry::D2 && m.geom != Geometry::A2d) return nullptr;
  if (d.more_addrs == kNoSlot || d.target < coords_needed(m.geom) || d.type2 != ScalarType::F32)
    return nullptr;
  if (m.vec != ptx::VectorWidth::V4 || !one_of(d.type, {ScalarType::U32, ScalarType::S32, ScalarType::F32}))
    return nullptr;
  const int comps = m.has(Flag::R) + m.has(Flag::G) + m.has(Flag::B) + m.has(Flag::A);
  if (comps != 1 || d.num_dst != 4 || d.dst_is_pred || inst.num_operands != 2) return nullptr;
  return exec_tld4;
}

Handler select_query(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  const bool surface = inst.opcode == Opcode::Suq;
  const Flag q = query_of(m);
  if (q == Flag::kCount || d.num_dst != 1 || d.dst_is_pred || d.more_addrs != kNoSlot) return nullptr;
  if (surface && q != Flag::Width && q != Flag::Height && q != Flag::Depth &&
      q != Flag::ChannelDataType && q != Flag::ChannelOrder && q != Flag::ArraySize)
    return nullptr;
  const bool level = m.has(Flag::Level);
  if (level && (surface || (q != Flag::Width && q != Flag::Height && q != Flag::Depth)))
    return nullptr;
  if (d.num_src != (level ? 1 : 0)) return nullptr;
  return surface ? exec_query<true> : exec_query<false>;
}

Handler select_surface(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  const bool store = inst.opcode == Opcode::Sust;
  // Formatted (.p) accesses and cubemap geometries other than a2d are not modelled.
  if (!m.has(Flag::B) || m.has(Flag::P)) return nullptr;
  if (m.geom != Geometry::D1 && m.geom != Geometry::D2 && m.geom != Geometry::D3 &&
      m.geom != Geometry::A1d && m.geom != Geometry::A2d)
    return nullptr;
  if (d.more_addrs == kNoSlot || d.target < coords_needed(m.geom)) return nullptr;
  if (!one_of(d.type, {ScalarType::B8, ScalarType::B16, ScalarType::B32, ScalarType::B64})) return nullptr;
  if (m.vec == ptx::VectorWidth::V4 && d.type == ScalarType::B64) return nullptr;
  if (m.vec != ptx::VectorWidth::None && m.vec != ptx::VectorWidth::V2 && m.vec != ptx::VectorWidth::V4)
    return nullptr;
  if (m.has(Flag::Trap) + m.has(Flag::Clamp) + m.has(Flag::Zero) > 1) return nullptr;
  if (store) return d.num_dst == 0 && d.num_src == d.lanes ? exec_surface<true> : nullptr;
  return d.num_dst == d.lanes && !d.dst_is_pred && d.num_src == 0 ? exec_surface<false> : nullptr;
}

}  // namespace

Handler select_texture(const ptx::Instruction& inst, const DecodedInst& d) {
  switch (inst.opcode) {
    case Opcode::Tex: return select_tex(inst, d);
    case Opcode::Tld4: return select_tld4(inst, d);
    case Opcode::Txq:
    case Opcode::Suq: return select_query(inst, d);
    case Opcode::Suld:
    case Opcode::Sust: return select_surface(inst, d);
    default: return nullptr;  // sured, istypep
  }
}

}  // namespace warpsim::functional
