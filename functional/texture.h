#pragma once
// Texture and surface objects of the functional simulator: what the CUDA
// runtime shim builds from cudaMallocArray / cudaMalloc3DArray,
// cudaCreateTextureObject and cudaCreateSurfaceObject, and what the tex,
// tld4, txq, suld, sust and suq handlers (exec_texture.cpp) read.
// docs/functional-textures.md describes the model and the sampling rules.
//
// Three kinds of thing live in a TextureTable (one per functional::Device):
//  - CUDA arrays: texel storage of their own, one DeviceMemory allocation
//    each, laid out row-major: texel (x, y, s) of an array is at
//        address + s * slice_pitch + y * pitch + x * element_bytes
//    where `pitch` is the row size rounded up to kArrayPitchAlignment bytes,
//    slice_pitch = pitch * rows, and the slice s is the z coordinate of a 3D
//    array, the layer of a layered one, the face of a cubemap, and
//    layer * 6 + face of a layered cubemap. 1D kinds have one row.
//  - texture objects: a resource (linear memory, pitched 2D memory, or an
//    array) plus sampling state (TextureDesc);
//  - surface objects: an array created with `surface` set.
// Every array and object is named by a 64-bit handle (cudaArray_t,
// cudaTextureObject_t, cudaSurfaceObject_t): never 0, never reused while the
// thing is live, and a destroyed handle stays invalid (the slot it named gets
// a new generation), so a kernel using it stops with a clear fault instead
// of reading someone else's texture.
//
// Objects snapshot their resource (address, extent, format) at creation:
// destroying the array under a live texture makes later fetches fault as a
// use-after-free of the array's allocation, which is what CUDA calls
// undefined behaviour. Mipmapped arrays are not modelled: every resource has
// exactly one level, so tex.level / tex.grad sample level 0 (which is what
// CUDA does for a texture without mipmaps).
//
// Creating objects for the nvcc corpus (tests/ptx/gen/texture.*.ptx), as
// the TextureCorpus test in tests/functional/texture_test.cpp does, with the
// Device wrappers (device.h) of the calls below:
//   // tex1d_fetch: a linear buffer of n floats, element-type reads
//   uint64_t tex = dev.create_texture_object(
//       {.kind = ResourceKind::Linear, .address = buf,
//        .format = ChannelFormat::float32(1), .width = n}, TextureDesc{});
//   // tex2d_sample: a w x h float array; TextureDesc{} is point sampling,
//   // clamp, unnormalized coordinates (tex2d_lod: set normalized_coords)
//   uint64_t arr = dev.create_array({.format = ChannelFormat::float32(1),
//                                    .kind = ArrayKind::D2, .width = w, .height = h});
//   dev.copy_to_array(arr, host_texels.data());
//   uint64_t tex2 = dev.create_texture_object({.kind = ResourceKind::Array, .array = arr}, {});
//   // surf_copy_scale: two such arrays created with .surface = true
//   uint64_t surf = dev.create_surface_object({.kind = ResourceKind::Array, .array = arr2});
//   // tex1d_int4: a linear buffer of int4, ChannelFormat::signed_int(32, 4)
// and pass each handle as the kernel's .u64 parameter (param_bytes(tex)).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "functional/device_memory.h"

namespace warpsim::functional {

// ---- formats --------------------------------------------------------------------------

// cudaChannelFormatKind: how a channel's bits are interpreted.
enum class ChannelKind : uint8_t { Signed = 0, Unsigned = 1, Float = 2 };

// One texel: 1, 2 or 4 channels of 8, 16 or 32 bits each, packed in channel
// order (x first), little-endian. Float channels are 16 (half) or 32 bits.
struct ChannelFormat {
  uint8_t channels = 1;
  uint8_t bits = 32;
  ChannelKind kind = ChannelKind::Float;

  uint32_t bytes() const { return uint32_t{channels} * bits / 8; }  // element size
  bool valid() const;
  static ChannelFormat float32(uint8_t channels) { return {channels, 32, ChannelKind::Float}; }
  static ChannelFormat half(uint8_t channels) { return {channels, 16, ChannelKind::Float}; }
  static ChannelFormat unsigned_int(uint8_t bits, uint8_t channels) {
    return {channels, bits, ChannelKind::Unsigned};
  }
  static ChannelFormat signed_int(uint8_t bits, uint8_t channels) {
    return {channels, bits, ChannelKind::Signed};
  }
  friend bool operator==(const ChannelFormat&, const ChannelFormat&) = default;
};

// ---- arrays ---------------------------------------------------------------------------

enum class ArrayKind : uint8_t { D1, D2, D3, Layered1D, Layered2D, Cubemap, CubemapLayered };

// An array's shape, with cudaExtent's conventions (what cudaMalloc3DArray
// gets): height is 0 for the 1D kinds; depth is 0 for 1D and 2D, the depth
// of a 3D array, the layer count of a layered one, 6 for a cubemap and
// 6 * layers for a layered cubemap (whose width must equal its height).
struct ArrayDesc {
  ChannelFormat format = {};
  ArrayKind kind = ArrayKind::D2;
  uint32_t width = 0, height = 0, depth = 0;
  bool surface = false;  // cudaArraySurfaceLoadStore: may back a surface object
};

inline constexpr uint64_t kArrayPitchAlignment = 64;  // row pitch of array storage
inline constexpr uint32_t kMaxTextureExtent = 1u << 20;  // per dimension, a sanity bound

struct ArrayInfo {
  ArrayDesc desc;
  uint64_t address = 0;      // device address of texel (0, 0, 0)
  uint64_t pitch = 0;        // bytes between rows
  uint64_t slice_pitch = 0;  // bytes between slices (z, layers, faces)
  uint32_t rows = 1;         // rows per slice (1 for the 1D kinds)
  uint32_t slices = 1;       // 1 for 1D/2D, else depth
  uint64_t bytes() const { return slice_pitch * slices; }
};

// ---- texture and surface objects -------------------------------------------------------

enum class ResourceKind : uint8_t { Array = 0, Linear = 2, Pitch2D = 3 };  // cudaResourceType

// cudaResourceDesc. Array: `array` only. Linear: address, format, width in
// elements (cudaResourceDesc's sizeInBytes / element size). Pitch2D: address,
// format, width and height in elements, pitch in bytes.
struct ResourceDesc {
  ResourceKind kind = ResourceKind::Array;
  uint64_t array = 0;
  uint64_t address = 0;
  ChannelFormat format = {};
  uint64_t width = 0;
  uint32_t height = 0;
  uint64_t pitch = 0;
};

// The CUDA enumerators' values, so the shim can cast.
enum class AddressMode : uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };
enum class FilterMode : uint8_t { Point = 0, Linear = 1 };
enum class ReadMode : uint8_t { ElementType = 0, NormalizedFloat = 1 };

// cudaTextureDesc without the mipmap, anisotropy and sRGB fields (the shim
// rejects or ignores those). With unnormalized coordinates Wrap and Mirror
// act as Clamp (as cudaCreateTextureObject documents); linear resources
// ignore address and filter modes (out-of-range fetches return zeros).
// Integer border colours are given as their bits reinterpreted as float,
// as CUDA asks.
struct TextureDesc {
  std::array<AddressMode, 3> address{AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  FilterMode filter = FilterMode::Point;
  ReadMode read = ReadMode::ElementType;
  bool normalized_coords = false;
  std::array<float, 4> border{};
};

// What a texture or surface object resolves to: the handlers' view.
enum class Shape : uint8_t {
  Linear, Pitch2D, D1, D2, D3, Layered1D, Layered2D, Cubemap, CubemapLayered
};

struct TextureObject {
  bool is_surface = false;
  Shape shape = Shape::D2;
  ChannelFormat format;
  uint32_t element_bytes = 4;
  uint64_t address = 0, pitch = 0, slice_pitch = 0;
  uint32_t width = 1, height = 1, depth = 1;  // texels per dimension, 1 where absent
  uint32_t layers = 0;                        // layered kinds (cubemaps: cubes), else 0
  TextureDesc desc;                           // textures only
  uint64_t array = 0;                         // the array viewed, 0 for memory resources
};

std::string_view to_string(Shape s);

// ---- the table ------------------------------------------------------------------------

// Handles: (generation << 32) | (slot + 1), generation >= 1.
template <typename T>
class HandleTable {
 public:
  uint64_t add(T value);
  bool remove(uint64_t handle);
  const T* find(uint64_t handle) const {
    const uint64_t slot = (handle & 0xffffffffu) - 1;
    if (slot >= slots_.size()) return nullptr;
    const Slot& s = slots_[slot];
    return s.live && s.generation == handle >> 32 ? &s.value : nullptr;
  }
  size_t live() const { return slots_.size() - free_.size(); }

 private:
  struct Slot {
    T value{};
    uint32_t generation = 0;
    bool live = false;
  };
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
};

// Not thread-safe for creation and destruction; handlers only call find(),
// concurrently, while no launch-time mutation happens (the Device's API is
// single-threaded). Every failing call returns 0 / false and says why.
class TextureTable {
 public:
  // cudaMallocArray / cudaMalloc3DArray: zero-filled storage in `mem`.
  uint64_t create_array(DeviceMemory& mem, const ArrayDesc& desc, std::string* why = nullptr);
  bool destroy_array(DeviceMemory& mem, uint64_t array);  // cudaFreeArray
  const ArrayInfo* array(uint64_t array) const { return arrays_.find(array); }
  // Whole-array copies from / to tightly packed host texels (row after row,
  // slice after slice). Partial copies (cudaMemcpy2DToArray and the 3D
  // forms) use ArrayInfo's address and pitches with DeviceMemory::copy2d_*.
  Fault copy_to_array(DeviceMemory& mem, uint64_t array, const void* src) const;
  Fault copy_from_array(const DeviceMemory& mem, void* dst, uint64_t array) const;

  // cudaCreateTextureObject / cudaCreateSurfaceObject (surfaces need an
  // array created with `surface`) and their destroy calls.
  uint64_t create_texture(const ResourceDesc& res, const TextureDesc& desc, std::string* why = nullptr);
  uint64_t create_surface(const ResourceDesc& res, std::string* why = nullptr);
  bool destroy_texture(uint64_t handle) { return destroy_object(handle, false); }
  bool destroy_surface(uint64_t handle) { return destroy_object(handle, true); }

  // The live texture or surface object `handle` names, else nullptr.
  const TextureObject* find(uint64_t handle) const { return objects_.find(handle); }
  size_t live_arrays() const { return arrays_.live(); }
  size_t live_objects() const { return objects_.live(); }

 private:
  bool resolve(const ResourceDesc& res, TextureObject& obj, std::string* why) const;
  bool destroy_object(uint64_t handle, bool surface);

  HandleTable<ArrayInfo> arrays_;
  HandleTable<TextureObject> objects_;
};

}  // namespace warpsim::functional
