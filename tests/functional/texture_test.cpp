// Textures and surfaces in the functional executor: the object model
// (functional/texture.h) and the tex / tld4 / txq / suq / suld / sust
// handlers, checked against hand-computed texels; then every kernel of the
// nvcc corpus file tests/ptx/gen/texture.sm80.ptx.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "functional/device.h"
#include "functional/fp/half.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

using V4 = std::array<uint32_t, 4>;
uint32_t u(float f) { return std::bit_cast<uint32_t>(f); }
float f(uint32_t v) { return std::bit_cast<float>(v); }
uint32_t s(int32_t v) { return static_cast<uint32_t>(v); }

// One kernel per instruction form: thread t reads four b32 words from
// in[t] (coordinates, lod...), runs BODY with them in %r10..%r13, and
// stores %r20..%r23 to out[t]. The object handle is %rd1.
std::string kernel(const std::string& name, const std::string& body) {
  return ".visible .entry " + name + R"((.param .u64 obj, .param .u64 in, .param .u64 out)
{
  .reg .pred %p<4>; .reg .b16 %h<8>; .reg .b32 %r<32>; .reg .f32 %f<8>; .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [obj]; ld.param.u64 %rd2, [in]; ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd2, %rd4;
  add.s64 %rd6, %rd3, %rd4;
  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd5];
  mov.b32 %r20, 0; mov.b32 %r21, 0; mov.b32 %r22, 0; mov.b32 %r23, 0;
  )" + body + R"(
  st.global.v4.b32 [%rd6], {%r20, %r21, %r22, %r23};
  ret;
}
)";
}

const std::string kD = "{%r20, %r21, %r22, %r23}";

std::string kernels() {
  std::string m;
  auto tex = [&](const std::string& name, const std::string& form, const std::string& coords,
                 const std::string& tail = "") {
    m += kernel(name, form + " " + kD + ", [%rd1, " + coords + "]" + tail + ";");
  };
  tex("tex1d_f", "tex.1d.v4.f32.f32", "{%r10}");
  tex("tex1d_i", "tex.1d.v4.f32.s32", "{%r10}");
  tex("tex1d_i_u32", "tex.1d.v4.u32.s32", "{%r10}");
  tex("tex1d_f_s32", "tex.1d.v4.s32.f32", "{%r10}");
  tex("tex2d_f", "tex.2d.v4.f32.f32", "{%r10, %r11}");
  tex("tex2d_i", "tex.2d.v4.f32.s32", "{%r10, %r11}");
  tex("tex3d_f", "tex.3d.v4.f32.f32", "{%r10, %r11, %r12, %r12}");
  tex("tex3d_i", "tex.3d.v4.f32.s32", "{%r10, %r11, %r12, %r12}");
  tex("texa1d_f", "tex.a1d.v4.f32.f32", "{%r10, %r11}");
  tex("texa1d_i", "tex.a1d.v4.f32.s32", "{%r10, %r11}");
  tex("texa2d_f", "tex.a2d.v4.f32.f32", "{%r10, %r11, %r12, %r12}");
  tex("texcube", "tex.cube.v4.f32.f32", "{%r10, %r11, %r12, %r12}");
  tex("texacube", "tex.acube.v4.f32.f32", "{%r13, %r10, %r11, %r12}");
  tex("tex2d_level", "tex.level.2d.v4.f32.f32", "{%r10, %r11}", ", %r12");
  tex("tex2d_base", "tex.base.2d.v4.f32.f32", "{%r10, %r11}");
  tex("tex2d_grad", "tex.grad.2d.v4.f32.f32", "{%r10, %r11}", ", {%r12, %r12}, {%r13, %r13}");
  tex("tex3d_grad", "tex.grad.3d.v4.f32.f32", "{%r10, %r11, %r12, %r12}",
      ", {%r13, %r13, %r13, %r13}, {%r13, %r13, %r13, %r13}");
  m += kernel("tex2d_pred", "tex.2d.v4.f32.f32 " + kD + "|%p1, [%rd1, {%r10, %r11}];\n"
              "  selp.b32 %r23, 7, 9, %p1;");
  m += kernel("tex2d_f16", "tex.2d.v4.f16.f32 {%h1, %h2, %h3, %h4}, [%rd1, {%r10, %r11}];\n"
              "  mov.b32 %r20, {%h1, %h2}; mov.b32 %r21, {%h3, %h4};");
  m += kernel("tex2d_f16x2", "tex.2d.v2.f16x2.f32 {%r20, %r21}, [%rd1, {%r10, %r11}];");
  for (const char* c : {"r", "g", "b", "a"})
    tex(std::string("tld4_") + c, std::string("tld4.") + c + ".2d.v4.f32.f32", "{%r10, %r11}");
  tex("tld4_a2d", "tld4.g.a2d.v4.f32.f32", "{%r12, %r10, %r11, %r11}");
  // Queries: out[t] = query, with txq.level's lod in %r10.
  auto query = [&](const std::string& name, const std::string& form, const std::string& tail = "") {
    m += kernel(name, form + " %r20, [%rd1]" + tail + ";");
  };
  for (const char* q : {"width", "height", "depth", "channel_data_type", "channel_order",
                        "normalized_coords", "filter_mode", "addr_mode_0", "addr_mode_1",
                        "addr_mode_2", "array_size", "num_mipmap_levels", "num_samples"})
    query(std::string("txq_") + q, std::string("txq.") + q + ".b32");
  for (const char* q : {"width", "height", "depth"})
    query(std::string("txq_level_") + q, std::string("txq.level.") + q + ".b32", ", %r10");
  for (const char* q : {"width", "height", "depth", "channel_data_type", "channel_order", "array_size"})
    query(std::string("suq_") + q, std::string("suq.") + q + ".b32");
  // Surfaces: loads into %r20.., stores of %r12/%r13 (or a constant pattern).
  auto suld = [&](const std::string& name, const std::string& form, const std::string& dst,
                  const std::string& coords) {
    m += kernel(name, form + " " + dst + ", [%rd1, " + coords + "];");
  };
  for (const char* mode : {"trap", "clamp", "zero"}) {
    const std::string md = mode;
    suld("suld2d_b32_" + md, "suld.b.2d.b32." + md, "{%r20}", "{%r10, %r11}");
    m += kernel("sust2d_b32_" + md, "sust.b.2d.b32." + md + " [%rd1, {%r10, %r11}], {%r12};");
  }
  suld("suld2d_b32", "suld.b.2d.b32", "{%r20}", "{%r10, %r11}");  // .trap by default
  suld("suld2d_v2b32", "suld.b.2d.v2.b32.trap", "{%r20, %r21}", "{%r10, %r11}");
  suld("suld2d_v4b32", "suld.b.2d.v4.b32.trap", kD, "{%r10, %r11}");
  m += kernel("suld1d_b8x", "suld.b.1d.b8.zero {%h1}, [%rd1, {%r10}];\n  cvt.u32.u16 %r20, %h1;");
  m += kernel("suld1d_v2b16", "suld.b.1d.v2.b16.clamp {%h1, %h2}, [%rd1, {%r10}];\n"
              "  cvt.u32.u16 %r20, %h1; cvt.u32.u16 %r21, %h2;");
  m += kernel("suld1d_b64", "suld.b.1d.b64.trap {%rd7}, [%rd1, {%r10}];\n  mov.b64 {%r20, %r21}, %rd7;");
  suld("suld3d_b32", "suld.b.3d.b32.trap", "{%r20}", "{%r10, %r11, %r12, %r12}");
  suld("sulda1d_b32", "suld.b.a1d.b32.clamp", "{%r20}", "{%r12, %r10}");
  suld("sulda2d_b32", "suld.b.a2d.b32.zero", "{%r20}", "{%r12, %r10, %r11, %r11}");
  m += kernel("sust2d_v4b32", "sust.b.2d.v4.b32.trap [%rd1, {%r10, %r11}], {%r12, %r13, %r12, %r13};");
  m += kernel("sust1d_b16", "cvt.u16.u32 %h1, %r12;\n  sust.b.1d.b16.trap [%rd1, {%r10}], {%h1};");
  m += kernel("sust3d_b32", "sust.b.3d.b32.trap [%rd1, {%r10, %r11, %r13, %r13}], {%r12};");
  m += kernel("susta2d_b32", "sust.b.a2d.b32.clamp [%rd1, {%r13, %r10, %r11, %r11}], {%r12};");
  return m;
}

// A device with the test kernels loaded, and helpers to make objects and
// run one thread per coordinate vector.
struct Tex {
  std::unique_ptr<testing::Loaded> l = load(kernels());
  Device& dev() { return l->device; }
  LaunchResult last;

  template <typename T>
  uint64_t array(ArrayDesc d, const std::vector<T>& texels) {
    std::string why;
    const uint64_t a = dev().create_array(d, &why);
    EXPECT_NE(a, 0u) << why;
    if (a && !texels.empty()) {
      EXPECT_FALSE(dev().copy_to_array(a, texels.data()));
    }
    return a;
  }
  uint64_t texture(uint64_t array, TextureDesc desc = {}) {
    std::string why;
    const uint64_t t = dev().create_texture_object({.kind = ResourceKind::Array, .array = array}, desc, &why);
    EXPECT_NE(t, 0u) << why;
    return t;
  }
  uint64_t texture(const ResourceDesc& res, TextureDesc desc = {}) {
    std::string why;
    const uint64_t t = dev().create_texture_object(res, desc, &why);
    EXPECT_NE(t, 0u) << why;
    return t;
  }
  uint64_t surface(uint64_t array) {
    std::string why;
    const uint64_t t = dev().create_surface_object({.kind = ResourceKind::Array, .array = array}, &why);
    EXPECT_NE(t, 0u) << why;
    return t;
  }
  // Runs `name` with one thread per input vector; the outputs (empty on a fault: see last).
  std::vector<V4> go(const std::string& name, uint64_t obj, const std::vector<V4>& in) {
    const uint64_t din = upload(dev(), in);
    const uint64_t dout = upload(dev(), std::vector<V4>(in.size()));
    last = run(*l, name, {1}, {static_cast<uint32_t>(in.size())},
               {param_bytes(obj), param_bytes(din), param_bytes(dout)});
    if (!last.ok()) return {};
    return download<V4>(dev(), dout, in.size());
  }
  std::vector<V4> ok(const std::string& name, uint64_t obj, const std::vector<V4>& in) {
    auto out = go(name, obj, in);
    EXPECT_TRUE(last.ok()) << name << ": " << (last.fault ? last.fault->message : "");
    return out;
  }
  // Channel 0 of each result, as floats.
  std::vector<float> red(const std::string& name, uint64_t obj, const std::vector<V4>& in) {
    std::vector<float> r;
    for (const V4& v : ok(name, obj, in)) r.push_back(f(v[0]));
    return r;
  }
  std::string fault_text() const { return last.fault ? last.fault->message : std::string("no fault"); }
};

std::vector<V4> coords1(std::initializer_list<float> xs) {
  std::vector<V4> v;
  for (float x : xs) v.push_back({u(x), 0, 0, 0});
  return v;
}
std::vector<V4> icoords1(std::initializer_list<int32_t> xs) {
  std::vector<V4> v;
  for (int32_t x : xs) v.push_back({s(x), 0, 0, 0});
  return v;
}

// ---- object model -------------------------------------------------------------------------

TEST(TextureObjects, HandlesAreNonZeroUniqueAndNotReused) {
  Device dev;
  const uint64_t a = dev.create_array({.format = ChannelFormat::float32(1), .kind = ArrayKind::D1, .width = 8});
  ASSERT_NE(a, 0u);
  const uint64_t t1 = dev.create_texture_object({.kind = ResourceKind::Array, .array = a}, {});
  const uint64_t t2 = dev.create_texture_object({.kind = ResourceKind::Array, .array = a}, {});
  EXPECT_NE(t1, 0u);
  EXPECT_NE(t2, 0u);
  EXPECT_NE(t1, t2);
  EXPECT_TRUE(dev.destroy_texture_object(t1));
  EXPECT_FALSE(dev.destroy_texture_object(t1));  // already destroyed
  EXPECT_EQ(dev.textures().find(t1), nullptr);
  const uint64_t t3 = dev.create_texture_object({.kind = ResourceKind::Array, .array = a}, {});
  EXPECT_NE(t3, t1);  // the slot is reused with a new generation
  EXPECT_NE(dev.textures().find(t3), nullptr);
  EXPECT_EQ(dev.textures().find(t1), nullptr);
  EXPECT_EQ(dev.textures().find(0), nullptr);
  EXPECT_FALSE(dev.destroy_surface_object(t3));  // a texture, not a surface
  EXPECT_EQ(dev.textures().live_objects(), 2u);
  EXPECT_TRUE(dev.destroy_array(a));
  EXPECT_FALSE(dev.destroy_array(a));
}

TEST(TextureObjects, ArrayLayoutAndCopies) {
  Device dev;
  const uint64_t a = dev.create_array(
      {.format = ChannelFormat::unsigned_int(8, 4), .kind = ArrayKind::Layered2D, .width = 3, .height = 2, .depth = 2});
  ASSERT_NE(a, 0u);
  const ArrayInfo* info = dev.textures().array(a);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->pitch, kArrayPitchAlignment);  // 12-byte rows padded
  EXPECT_EQ(info->rows, 2u);
  EXPECT_EQ(info->slices, 2u);
  EXPECT_EQ(info->slice_pitch, 2 * kArrayPitchAlignment);
  std::vector<uint32_t> in(12), out(12);
  for (uint32_t i = 0; i < 12; ++i) in[i] = 0x01010101u * i;
  EXPECT_FALSE(dev.copy_to_array(a, in.data()));
  EXPECT_FALSE(dev.copy_from_array(out.data(), a));
  EXPECT_EQ(in, out);
  // Texel (x=1, y=1, layer=1) is at address + slice_pitch + pitch + 4.
  uint32_t t = 0;
  EXPECT_FALSE(dev.memory().copy_to_host(&t, info->address + info->slice_pitch + info->pitch + 4, 4));
  EXPECT_EQ(t, in[6 + 3 + 1]);
}

TEST(TextureObjects, InvalidDescriptionsAreRejectedWithAReason) {
  Device dev;
  std::string why;
  EXPECT_EQ(dev.create_array({.format = {3, 32, ChannelKind::Float}, .kind = ArrayKind::D1, .width = 4}, &why), 0u);
  EXPECT_NE(why, "");
  EXPECT_EQ(dev.create_array({.format = ChannelFormat::float32(1), .kind = ArrayKind::D2, .width = 4}, &why), 0u);
  EXPECT_EQ(dev.create_array({.format = ChannelFormat::float32(1), .kind = ArrayKind::Cubemap,
                              .width = 4, .height = 2, .depth = 6}, &why), 0u);
  const uint64_t ai = dev.create_array({.format = ChannelFormat::signed_int(32, 1), .kind = ArrayKind::D1, .width = 4});
  const uint64_t au8 = dev.create_array({.format = ChannelFormat::unsigned_int(8, 1), .kind = ArrayKind::D1, .width = 4});
  TextureDesc lin;
  lin.filter = FilterMode::Linear;
  EXPECT_EQ(dev.create_texture_object({.kind = ResourceKind::Array, .array = ai}, lin, &why), 0u);
  EXPECT_NE(why.find("linear filtering"), std::string::npos) << why;
  TextureDesc norm;
  norm.read = ReadMode::NormalizedFloat;
  EXPECT_EQ(dev.create_texture_object({.kind = ResourceKind::Array, .array = ai}, norm, &why), 0u);
  norm.filter = FilterMode::Linear;  // u8 read as normalized float may be filtered
  EXPECT_NE(dev.create_texture_object({.kind = ResourceKind::Array, .array = au8}, norm, &why), 0u) << why;
  EXPECT_EQ(dev.create_surface_object({.kind = ResourceKind::Array, .array = au8}, &why), 0u);
  EXPECT_NE(why.find("surface"), std::string::npos) << why;
  EXPECT_EQ(dev.create_texture_object({.kind = ResourceKind::Array, .array = 12345}, {}, &why), 0u);
  EXPECT_EQ(dev.create_texture_object({.kind = ResourceKind::Linear, .address = 0,
                                       .format = ChannelFormat::float32(1), .width = 4}, {}, &why), 0u);
  EXPECT_EQ(dev.create_texture_object({.kind = ResourceKind::Pitch2D, .address = 0x7f0000000000,
                                       .format = ChannelFormat::float32(1), .width = 8,
                                       .height = 2, .pitch = 16}, {}, &why), 0u);  // pitch < row
}

// ---- addressing ----------------------------------------------------------------------------

// A 1D float array {1, 2, 3, 4}, border colour 99: point sampling with each
// address mode, for unnormalized (wrap and mirror act as clamp) and
// normalized coordinates. Expected texel indices worked out by hand (-1:
// border).
TEST(TextureAddressing, EveryModeNormalizedAndNot) {
  Tex t;
  const uint64_t a = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::D1, .width = 4}, {1, 2, 3, 4});
  struct Case {
    AddressMode mode;
    bool normalized;
    std::vector<int> texel;
  };
  // Unnormalized x: -1.5 -0.5 0.25 3.5 4.5 5.5 7.2 -> floor -2 -1 0 3 4 5 7.
  const auto xs = coords1({-1.5f, -0.5f, 0.25f, 3.5f, 4.5f, 5.5f, 7.2f});
  // Normalized u: x = 4u = -1.5 -0.5 0.4 3.5 4.5 5.5 7.6 9.2 -> floor -2 -1 0 3 4 5 7 9.
  const auto us = coords1({-0.375f, -0.125f, 0.1f, 0.875f, 1.125f, 1.375f, 1.9f, 2.3f});
  const Case cases[] = {
      {AddressMode::Clamp, false, {0, 0, 0, 3, 3, 3, 3}},
      {AddressMode::Border, false, {-1, -1, 0, 3, -1, -1, -1}},
      {AddressMode::Wrap, false, {0, 0, 0, 3, 3, 3, 3}},
      {AddressMode::Mirror, false, {0, 0, 0, 3, 3, 3, 3}},
      {AddressMode::Clamp, true, {0, 0, 0, 3, 3, 3, 3, 3}},
      {AddressMode::Border, true, {-1, -1, 0, 3, -1, -1, -1, -1}},
      {AddressMode::Wrap, true, {2, 3, 0, 3, 0, 1, 3, 1}},
      {AddressMode::Mirror, true, {1, 0, 0, 3, 3, 2, 0, 1}},
  };
  for (const Case& c : cases) {
    TextureDesc d;
    d.address = {c.mode, c.mode, c.mode};
    d.normalized_coords = c.normalized;
    d.border = {99, 98, 97, 96};
    const uint64_t tex = t.texture(a, d);
    auto out = t.ok("tex1d_f", tex, c.normalized ? us : xs);
    ASSERT_EQ(out.size(), c.texel.size());
    for (size_t i = 0; i < out.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "mode " << int(c.mode) << " normalized " << c.normalized << " #" << i);
      if (c.texel[i] < 0) {
        EXPECT_EQ(out[i], (V4{u(99), u(98), u(97), u(96)}));
      } else {
        EXPECT_EQ(out[i], (V4{u(static_cast<float>(c.texel[i] + 1)), 0, 0, u(1.0f)}));  // g, b = 0, a = 1
      }
    }
  }
}

TEST(TextureAddressing, ModesPerDimensionAndIntegerCoordinates) {
  Tex t;
  // 3x2: texel (x, y) = 10 y + x.
  const uint64_t a = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::D2, .width = 3, .height = 2},
                                     {0, 1, 2, 10, 11, 12});
  TextureDesc d;
  d.address = {AddressMode::Wrap, AddressMode::Border, AddressMode::Clamp};
  d.normalized_coords = true;
  d.border = {-1, -1, -1, -1};
  const uint64_t tex = t.texture(a, d);
  // x: u = 1.5 -> 4.5 -> 4 wraps to 1; y: v = 0.75 -> 1.5 -> 1; v = 1.25 -> border.
  auto r = t.red("tex2d_f", tex, {{u(1.5f), u(0.75f), 0, 0}, {u(-0.2f), u(0.25f), 0, 0}, {u(0.5f), u(1.25f), 0, 0}});
  EXPECT_EQ(r, (std::vector<float>{11, 2, -1}));
  // Integer coordinates are texel indices (never normalized, never filtered);
  // out of range they use the unnormalized rules: wrap acts as clamp.
  auto ri = t.red("tex2d_i", tex, {{s(2), s(1), 0, 0}, {s(7), s(0), 0, 0}, {s(-3), s(1), 0, 0}, {s(0), s(2), 0, 0}});
  EXPECT_EQ(ri, (std::vector<float>{12, 2, 10, -1}));
}

// ---- filtering -----------------------------------------------------------------------------

TEST(TextureFiltering, LinearOneDimensionWithNineBitWeights) {
  Tex t;
  const uint64_t a = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::D1, .width = 4}, {10, 20, 40, 80});
  TextureDesc d;
  d.filter = FilterMode::Linear;
  const uint64_t tex = t.texture(a, d);
  // tex(x) = (1 - a) T[i] + a T[i + 1], i = floor(x - 0.5), a = frac(x - 0.5)
  // in 1.8 fixed point.
  auto r = t.red("tex1d_f", tex, coords1({1.0f, 0.5f, 2.25f, 0.0f, 4.0f, 1.5f + 1.0f / 1024,
                                          1.5f + 3.0f / 1024, 1.5f + 1.0f / 512, 2.5f - 1.0f / 1024}));
  EXPECT_EQ(r[0], 15.0f);       // a = 0.5
  EXPECT_EQ(r[1], 10.0f);       // a = 0
  EXPECT_EQ(r[2], 35.0f);       // 20 * 0.25 + 40 * 0.75
  EXPECT_EQ(r[3], 10.0f);       // i = -1 clamps to 0 on both taps
  EXPECT_EQ(r[4], 80.0f);       // i = 3, i + 1 clamps to 3
  EXPECT_EQ(r[5], 20.0f);       // a = 1/1024 -> 0.25/256 rounds to 0
  EXPECT_EQ(r[6], 20.078125f);  // a = 3/1024 -> 0.75/256 rounds to 1/256
  EXPECT_EQ(r[7], 20.078125f);  // a = 0.5/256 rounds (ties up) to 1/256
  EXPECT_EQ(r[8], 40.0f);       // a = 255.75/256 rounds to 256/256: the 9th bit
  // Linear filtering against the border colour.
  d.address = {AddressMode::Border, AddressMode::Border, AddressMode::Border};
  d.border = {100, 0, 0, 0};
  EXPECT_EQ(t.red("tex1d_f", t.texture(a, d), coords1({0.25f}))[0], 32.5f);  // 0.25 * 100 + 0.75 * 10
}

TEST(TextureFiltering, BilinearAndTrilinear) {
  Tex t;
  const uint64_t a2 = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::D2, .width = 2, .height = 2}, {1, 2, 3, 4});
  TextureDesc d;
  d.filter = FilterMode::Linear;
  const uint64_t t2 = t.texture(a2, d);
  auto r = t.red("tex2d_f", t2, {{u(1.0f), u(1.0f), 0, 0}, {u(1.25f), u(0.75f), 0, 0}, {u(0.5f), u(1.5f), 0, 0}});
  EXPECT_EQ(r[0], 2.5f);
  // a = 0.75, b = 0.25: .25*.75*1 + .75*.75*2 + .25*.25*3 + .75*.25*4
  EXPECT_EQ(r[1], 2.25f);
  EXPECT_EQ(r[2], 3.0f);  // texel (0, 1) exactly
  // Normalized coordinates scale before the half-texel shift: u = 0.5 -> x = 1.
  d.normalized_coords = true;
  EXPECT_EQ(t.red("tex2d_f", t.texture(a2, d), {{u(0.5f), u(0.5f), 0, 0}})[0], 2.5f);
  // 2x2x2, texel = x + 2y + 4z: the centre averages all eight.
  std::vector<float> v(8);
  for (int i = 0; i < 8; ++i) v[i] = static_cast<float>(i);
  const uint64_t a3 = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::D3, .width = 2, .height = 2, .depth = 2}, v);
  d.normalized_coords = false;
  auto r3 = t.red("tex3d_f", t.texture(a3, d), {{u(1.0f), u(1.0f), u(1.0f), 0}, {u(1.5f), u(0.5f), u(1.25f), 0}});
  EXPECT_EQ(r3[0], 3.5f);
  EXPECT_EQ(r3[1], 1 + 4 * 0.75f);  // x = 1 exactly, y = 0 exactly, z between 0 and 1 at 0.75
}

TEST(TextureFiltering, PointSamplingOfFourChannels) {
  Tex t;
  std::vector<float> v = {1, 2, 3, 4, 5, 6, 7, 8};
  const uint64_t a = t.array<float>({.format = ChannelFormat::float32(4), .kind = ArrayKind::D1, .width = 2}, v);
  auto out = t.ok("tex1d_f", t.texture(a), coords1({1.99f, 0.0f}));
  EXPECT_EQ(out[0], (V4{u(5), u(6), u(7), u(8)}));
  EXPECT_EQ(out[1], (V4{u(1), u(2), u(3), u(4)}));
}

// ---- read modes and formats -----------------------------------------------------------------

TEST(TextureReadMode, NormalizedFloatFromIntegerChannels) {
  Tex t;
  TextureDesc norm;
  norm.read = ReadMode::NormalizedFloat;
  const auto xs = icoords1({0, 1, 2, 3});
  const uint64_t u8 = t.array<uint8_t>({.format = ChannelFormat::unsigned_int(8, 1), .kind = ArrayKind::D1, .width = 4}, {0, 1, 128, 255});
  EXPECT_EQ(t.red("tex1d_i", t.texture(u8, norm), xs), (std::vector<float>{0, 1 / 255.0f, 128 / 255.0f, 1}));
  const uint64_t s8 = t.array<int8_t>({.format = ChannelFormat::signed_int(8, 1), .kind = ArrayKind::D1, .width = 4}, {-128, -127, 0, 64});
  EXPECT_EQ(t.red("tex1d_i", t.texture(s8, norm), xs), (std::vector<float>{-1, -1, 0, 64 / 127.0f}));
  const uint64_t u16 = t.array<uint16_t>({.format = ChannelFormat::unsigned_int(16, 1), .kind = ArrayKind::D1, .width = 4}, {0, 65535, 32768, 1});
  EXPECT_EQ(t.red("tex1d_i", t.texture(u16, norm), xs), (std::vector<float>{0, 1, 32768 / 65535.0f, 1 / 65535.0f}));
  const uint64_t s16 = t.array<int16_t>({.format = ChannelFormat::signed_int(16, 1), .kind = ArrayKind::D1, .width = 4}, {-32768, 16384, 32767, -1});
  EXPECT_EQ(t.red("tex1d_i", t.texture(s16, norm), xs), (std::vector<float>{-1, 16384 / 32767.0f, 1, -1 / 32767.0f}));
  // Two u8 channels: (r, g) normalized, b = 0, a = 1.0.
  const uint64_t rg = t.array<uint8_t>({.format = ChannelFormat::unsigned_int(8, 2), .kind = ArrayKind::D1, .width = 1}, {51, 255});
  EXPECT_EQ(t.ok("tex1d_i", t.texture(rg, norm), icoords1({0}))[0], (V4{u(0.2f), u(1), 0, u(1)}));
  // Normalized u8 may be filtered: halfway between 0 and 255.
  norm.filter = FilterMode::Linear;
  const uint64_t ramp = t.array<uint8_t>({.format = ChannelFormat::unsigned_int(8, 1), .kind = ArrayKind::D1, .width = 2}, {0, 255});
  EXPECT_EQ(t.red("tex1d_f", t.texture(ramp, norm), coords1({1.0f}))[0], 0.5f);
}

TEST(TextureReadMode, ElementTypeIntegersAndHalfChannels) {
  Tex t;
  const uint64_t s8 = t.array<int8_t>({.format = ChannelFormat::signed_int(8, 4), .kind = ArrayKind::D1, .width = 1}, {-128, -1, 5, 127});
  EXPECT_EQ(t.ok("tex1d_i_u32", t.texture(s8), icoords1({0}))[0], (V4{s(-128), s(-1), 5, 127}));
  const uint64_t u16 = t.array<uint16_t>({.format = ChannelFormat::unsigned_int(16, 1), .kind = ArrayKind::D1, .width = 1}, {65535});
  EXPECT_EQ(t.ok("tex1d_f_s32", t.texture(u16), coords1({0.5f}))[0], (V4{65535, 0, 0, 1}));  // integer alpha 1
  // Half channels read as f32 (subnormal, max, negative, one).
  const uint64_t h = t.array<uint16_t>({.format = ChannelFormat::half(4), .kind = ArrayKind::D1, .width = 1},
                                       {0x0001, 0x7bff, 0xc000, 0x3c00});
  EXPECT_EQ(t.ok("tex1d_i", t.texture(h), icoords1({0}))[0],
            (V4{u(fp::f16_value(0x0001)), u(65504.0f), u(-2.0f), u(1.0f)}));
  // Half results: .v4.f16 and .v2.f16x2 destinations.
  const uint64_t h2 = t.array<uint16_t>({.format = ChannelFormat::half(2), .kind = ArrayKind::D2, .width = 1, .height = 1},
                                        {0x3e00, 0xbc00});  // 1.5, -1
  EXPECT_EQ(t.ok("tex2d_f16", t.texture(h2), {{u(0.5f), u(0.5f), 0, 0}})[0],
            (V4{0xbc003e00u, 0x3c000000u, 0, 0}));  // {1.5, -1}, {0, 1}
  EXPECT_EQ(t.ok("tex2d_f16x2", t.texture(h2), {{u(0.5f), u(0.5f), 0, 0}})[0],
            (V4{0xbc003e00u, 0x3c000000u, 0, 0}));
}

// ---- resources and geometries -----------------------------------------------------------------

TEST(TextureResources, LinearMemoryFetch) {
  Tex t;
  const uint64_t buf = upload(t.dev(), std::vector<float>{1.5f, 2.5f, 3.5f});
  const uint64_t tex = t.texture({.kind = ResourceKind::Linear, .address = buf, .format = ChannelFormat::float32(1), .width = 3});
  auto out = t.ok("tex1d_i", tex, icoords1({0, 2, -1, 3, 1000000}));
  EXPECT_EQ(out[0], (V4{u(1.5f), 0, 0, u(1)}));
  EXPECT_EQ(out[1], (V4{u(3.5f), 0, 0, u(1)}));
  for (int i = 2; i < 5; ++i) EXPECT_EQ(out[i], (V4{0, 0, 0, 0})) << i;  // out of range reads zeros
  // Address and filter modes do not apply to linear memory.
  TextureDesc d;
  d.address = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  d.filter = FilterMode::Linear;
  auto r = t.red("tex1d_f", t.texture({.kind = ResourceKind::Linear, .address = buf, .format = ChannelFormat::float32(1), .width = 3}, d),
                 coords1({1.0f, 5.0f}));
  EXPECT_EQ(r, (std::vector<float>{2.5f, 0}));
}

TEST(TextureResources, Pitch2D) {
  Tex t;
  // 5x3 floats in rows of 32 bytes (8 floats): texel (x, y) = 10 y + x.
  std::vector<float> mem(8 * 3, -7.0f);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) mem[y * 8 + x] = static_cast<float>(10 * y + x);
  const uint64_t buf = upload(t.dev(), mem);
  const uint64_t tex = t.texture({.kind = ResourceKind::Pitch2D, .address = buf, .format = ChannelFormat::float32(1),
                                  .width = 5, .height = 3, .pitch = 32});
  EXPECT_EQ(t.red("tex2d_i", tex, {{s(4), s(2), 0, 0}, {s(5), s(1), 0, 0}, {s(0), s(-1), 0, 0}}),
            (std::vector<float>{24, 14, 0}));  // clamped: never the row padding
  EXPECT_EQ(t.red("tex2d_f", tex, {{u(3.5f), u(1.5f), 0, 0}}), (std::vector<float>{13}));
}

TEST(TextureResources, ThreeDimensionalArray) {
  Tex t;
  // 3x2x2: texel = 100 z + 10 y + x.
  std::vector<float> v;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) v.push_back(static_cast<float>(100 * z + 10 * y + x));
  const uint64_t a = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::D3, .width = 3, .height = 2, .depth = 2}, v);
  EXPECT_EQ(t.red("tex3d_i", t.texture(a), {{s(2), s(1), s(1), 0}, {s(1), s(0), s(5), 0}}),
            (std::vector<float>{112, 101}));
  TextureDesc d;
  d.normalized_coords = true;
  d.address = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Wrap};
  // z: w = 1.25 -> 2.5 -> 2 wraps to 0.
  EXPECT_EQ(t.red("tex3d_f", t.texture(a, d), {{u(0.5f), u(0.75f), u(1.25f), 0}}), (std::vector<float>{11}));
}

TEST(TextureResources, LayeredArrays) {
  Tex t;
  // 1D layered: 3 wide, 2 layers; texel = 10 layer + x.
  const uint64_t a1 = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::Layered1D, .width = 3, .depth = 2},
                                      {0, 1, 2, 10, 11, 12});
  const uint64_t t1 = t.texture(a1);
  EXPECT_EQ(t.red("texa1d_f", t1, {{1, u(2.5f), 0, 0}, {0, u(0.5f), 0, 0}, {9, u(1.5f), 0, 0}}),
            (std::vector<float>{12, 0, 11}));  // layer 9 clamps to the last
  EXPECT_EQ(t.red("texa1d_i", t1, {{1, s(1), 0, 0}}), (std::vector<float>{11}));
  // 2D layered: 2x2, 3 layers; texel = 100 layer + 10 y + x; bilinear within a layer.
  std::vector<float> v;
  for (int l = 0; l < 3; ++l)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) v.push_back(static_cast<float>(100 * l + 10 * y + x));
  const uint64_t a2 = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::Layered2D, .width = 2, .height = 2, .depth = 3}, v);
  TextureDesc d;
  d.filter = FilterMode::Linear;
  EXPECT_EQ(t.red("texa2d_f", t.texture(a2, d), {{2, u(1.0f), u(1.0f), 0}, {1, u(0.5f), u(1.5f), 0}}),
            (std::vector<float>{205.5f, 110}));
}

TEST(TextureResources, Cubemaps) {
  Tex t;
  // 2x2 faces; texel = 10 face + 2 y + x; layered: + 60 per cube.
  std::vector<float> v;
  for (int face = 0; face < 12; ++face)
    for (int i = 0; i < 4; ++i) v.push_back(static_cast<float>(10 * face + i));
  const uint64_t cube = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::Cubemap, .width = 2, .height = 2, .depth = 6},
                                        std::vector<float>(v.begin(), v.begin() + 24));
  // (1, -.5, .5): face +x, s = -z, t = -y -> (0.25, 0.75) -> texel (0, 1);
  // (0, 1, .5): face +y, (x, z) -> (0.5, 0.75) -> texel (1, 1);
  // (0, -1, .5): face -y, (x, -z) -> texel (1, 0); (0, 0, -2): face -z centre.
  auto in = std::vector<V4>{{u(1), u(-0.5f), u(0.5f), 0}, {0, u(1), u(0.5f), 0}, {0, u(-1), u(0.5f), 0}, {0, 0, u(-2), 0}};
  EXPECT_EQ(t.red("texcube", t.texture(cube), in), (std::vector<float>{2, 23, 31, 53}));
  const uint64_t cubes = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::CubemapLayered, .width = 2, .height = 2, .depth = 12}, v);
  for (V4& c : in) c[3] = 1;  // cube 1
  EXPECT_EQ(t.red("texacube", t.texture(cubes), in), (std::vector<float>{62, 83, 91, 113}));
}

TEST(TextureLevelOfDetail, LevelBaseAndGradSampleLevelZero) {
  Tex t;
  const uint64_t a = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::D2, .width = 2, .height = 2}, {1, 2, 3, 4});
  const uint64_t tex = t.texture(a);
  const std::vector<V4> in = {{u(1.5f), u(0.5f), u(3.0f), u(8.0f)}};
  EXPECT_EQ(t.red("tex2d_level", tex, in)[0], 2.0f);
  EXPECT_EQ(t.red("tex2d_base", tex, in)[0], 2.0f);
  EXPECT_EQ(t.red("tex2d_grad", tex, in)[0], 2.0f);
  const uint64_t a3 = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::D3, .width = 1, .height = 1, .depth = 1}, {9});
  EXPECT_EQ(t.red("tex3d_grad", t.texture(a3), in)[0], 9.0f);
  auto p = t.ok("tex2d_pred", tex, in);  // the residency predicate is true
  EXPECT_EQ(p[0][3], 7u);
}

// ---- tld4 and queries ---------------------------------------------------------------------------

TEST(TextureGather, Tld4ComponentsAndOrder) {
  Tex t;
  // 3x3 float4 texels: (x + 10 y, 100 + .., 200 + .., 300 + ..).
  std::vector<float> v;
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 4; ++c) v.push_back(static_cast<float>(100 * c + 10 * y + x));
  const uint64_t a = t.array<float>({.format = ChannelFormat::float32(4), .kind = ArrayKind::D2, .width = 3, .height = 3}, v);
  TextureDesc d;
  d.address = {AddressMode::Border, AddressMode::Border, AddressMode::Border};
  d.border = {-1, -2, -3, -4};
  const uint64_t tex = t.texture(a, d);
  // (1.0, 1.0): footprint i = 0, j = 0: (0,1) (1,1) (1,0) (0,0).
  const std::vector<V4> in = {{u(1.0f), u(1.0f), 0, 0}, {u(0.2f), u(0.2f), 0, 0}};
  const char* names[] = {"tld4_r", "tld4_g", "tld4_b", "tld4_a"};
  for (int c = 0; c < 4; ++c) {
    auto out = t.ok(names[c], tex, in);
    const float o = 100.0f * c;
    EXPECT_EQ(out[0], (V4{u(o + 10), u(o + 11), u(o + 1), u(o + 0)})) << names[c];
    // (0.2, 0.2): i = j = -1: only (0, 0) is inside, the rest is border.
    const uint32_t b = u(-1.0f - c);
    EXPECT_EQ(out[1], (V4{b, u(o), b, b})) << names[c];
  }
  // a2d: layer 1 of a 2x2x2 layered texture, component g.
  std::vector<float> lv;
  for (int l = 0; l < 2; ++l)
    for (int i = 0; i < 4; ++i)
      for (int c = 0; c < 4; ++c) lv.push_back(static_cast<float>(1000 * l + 100 * c + i));
  const uint64_t la = t.array<float>({.format = ChannelFormat::float32(4), .kind = ArrayKind::Layered2D, .width = 2, .height = 2, .depth = 2}, lv);
  EXPECT_EQ(t.ok("tld4_a2d", t.texture(la), {{u(1.0f), u(1.0f), 1, 0}})[0],
            (V4{u(1102), u(1103), u(1101), u(1100)}));
}

TEST(TextureQuery, TxqAndSuq) {
  Tex t;
  const uint64_t a = t.array<uint16_t>({.format = ChannelFormat::signed_int(16, 2), .kind = ArrayKind::Layered2D, .width = 5, .height = 3, .depth = 4, .surface = true}, {});
  TextureDesc d;
  d.address = {AddressMode::Wrap, AddressMode::Mirror, AddressMode::Border};
  d.filter = FilterMode::Linear;
  d.read = ReadMode::NormalizedFloat;
  d.normalized_coords = true;
  const uint64_t tex = t.texture(a, d);
  auto q = [&](const std::string& name, uint64_t obj, uint32_t lod = 0) { return t.ok(name, obj, {{lod, 0, 0, 0}})[0][0]; };
  EXPECT_EQ(q("txq_width", tex), 5u);
  EXPECT_EQ(q("txq_height", tex), 3u);
  EXPECT_EQ(q("txq_depth", tex), 0u);
  EXPECT_EQ(q("txq_array_size", tex), 4u);
  EXPECT_EQ(q("txq_channel_data_type", tex), 0x09u);  // CU_AD_FORMAT_SIGNED_INT16
  EXPECT_EQ(q("txq_channel_order", tex), 2u);
  EXPECT_EQ(q("txq_normalized_coords", tex), 1u);
  EXPECT_EQ(q("txq_filter_mode", tex), 1u);
  EXPECT_EQ(q("txq_addr_mode_0", tex), 0u);
  EXPECT_EQ(q("txq_addr_mode_1", tex), 2u);
  EXPECT_EQ(q("txq_addr_mode_2", tex), 3u);
  EXPECT_EQ(q("txq_num_mipmap_levels", tex), 1u);
  EXPECT_EQ(q("txq_num_samples", tex), 0u);
  // txq.level: level 0 is the texture itself; a texture without mipmaps has no other level.
  EXPECT_EQ(q("txq_level_width", tex, 0), 5u);
  EXPECT_EQ(q("txq_level_height", tex, 0), 3u);
  EXPECT_EQ(q("txq_level_depth", tex, 0), 0u);
  EXPECT_EQ(q("txq_level_width", tex, 1), 0u);
  const uint64_t a3 = t.array<float>({.format = ChannelFormat::half(4), .kind = ArrayKind::D3, .width = 2, .height = 3, .depth = 4}, {});
  EXPECT_EQ(q("txq_depth", t.texture(a3)), 4u);
  EXPECT_EQ(q("txq_channel_data_type", t.texture(a3)), 0x10u);
  const uint64_t surf = t.surface(a);
  EXPECT_EQ(q("suq_width", surf), 5u);
  EXPECT_EQ(q("suq_height", surf), 3u);
  EXPECT_EQ(q("suq_depth", surf), 0u);
  EXPECT_EQ(q("suq_array_size", surf), 4u);
  EXPECT_EQ(q("suq_channel_order", surf), 2u);
  EXPECT_EQ(q("suq_channel_data_type", surf), 0x09u);
  const uint64_t lin = t.texture({.kind = ResourceKind::Linear, .address = upload(t.dev(), std::vector<uint8_t>(64)),
                                  .format = ChannelFormat::unsigned_int(8, 4), .width = 16});
  EXPECT_EQ(q("txq_width", lin), 16u);
  EXPECT_EQ(q("txq_height", lin), 0u);
  EXPECT_EQ(q("txq_channel_data_type", lin), 0x01u);
}

// ---- surfaces ---------------------------------------------------------------------------------

// A 4x3 u32 surface, texel (x, y) = 100 y + x; x coordinates are bytes.
struct Surf : Tex {
  uint64_t arr = 0, surf = 0;
  Surf() {
    std::vector<uint32_t> v;
    for (uint32_t y = 0; y < 3; ++y)
      for (uint32_t x = 0; x < 4; ++x) v.push_back(100 * y + x);
    arr = array<uint32_t>({.format = ChannelFormat::unsigned_int(32, 1), .kind = ArrayKind::D2, .width = 4, .height = 3, .surface = true}, v);
    surf = surface(arr);
  }
  std::vector<uint32_t> contents() {
    std::vector<uint32_t> v(12);
    EXPECT_FALSE(dev().copy_from_array(v.data(), arr));
    return v;
  }
};

TEST(TextureSurface, LoadsInRangeAndEachOutOfRangeMode) {
  Surf t;
  const std::vector<V4> in = {{4, 2, 0, 0}, {12, 0, 0, 0}};
  EXPECT_EQ(t.ok("suld2d_b32_trap", t.surf, in), (std::vector<V4>{{201, 0, 0, 0}, {3, 0, 0, 0}}));
  // Out of range: x past the row, negative y, and a y past the last row.
  const std::vector<V4> out = {{16, 1, 0, 0}, {s(-4), s(-1), 0, 0}, {8, 7, 0, 0}};
  EXPECT_EQ(t.ok("suld2d_b32_zero", t.surf, out), (std::vector<V4>{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}));
  EXPECT_EQ(t.ok("suld2d_b32_clamp", t.surf, out), (std::vector<V4>{{103, 0, 0, 0}, {0, 0, 0, 0}, {202, 0, 0, 0}}));
  for (const char* k : {"suld2d_b32_trap", "suld2d_b32"}) {
    EXPECT_TRUE(t.go(k, t.surf, {{0, 0, 0, 0}, {16, 1, 0, 0}}).empty());
    EXPECT_EQ(t.last.error, LaunchError::LaunchFailure);
    EXPECT_NE(t.fault_text().find("surface load out of range with .trap: byte x = 16, y = 1"), std::string::npos)
        << t.fault_text();
    EXPECT_NE(t.fault_text().find("thread (1, 0, 0)"), std::string::npos) << t.fault_text();
  }
}

TEST(TextureSurface, StoresInRangeAndEachOutOfRangeMode) {
  Surf t;
  auto base = t.contents();
  t.ok("sust2d_b32_trap", t.surf, {{8, 1, 7777, 0}});
  auto v = t.contents();
  EXPECT_EQ(v[4 + 2], 7777u);
  t.ok("sust2d_b32_zero", t.surf, {{16, 1, 5, 0}, {0, s(-1), 5, 0}});  // dropped
  EXPECT_EQ(t.contents(), v);
  t.ok("sust2d_b32_clamp", t.surf, {{40, 1, 5, 0}, {s(-8), 9, 6, 0}});  // to (3, 1) and (0, 2)
  v[4 + 3] = 5;
  v[8 + 0] = 6;
  EXPECT_EQ(t.contents(), v);
  EXPECT_TRUE(t.go("sust2d_b32_trap", t.surf, {{0, 3, 1, 0}}).empty());
  EXPECT_NE(t.fault_text().find("surface store out of range with .trap: byte x = 0, y = 3"), std::string::npos)
      << t.fault_text();
  EXPECT_EQ(t.contents(), v);
  // Misaligned byte coordinates fault as misaligned accesses.
  EXPECT_TRUE(t.go("suld2d_b32_clamp", t.surf, {{6, 0, 0, 0}}).empty());
  EXPECT_EQ(t.last.error, LaunchError::MisalignedAddress);
  EXPECT_NE(t.fault_text().find("x = 6 is not a multiple of the 4-byte access"), std::string::npos) << t.fault_text();
  (void)base;
}

TEST(TextureSurface, VectorsWidthsAndGeometries) {
  Surf t;
  EXPECT_EQ(t.ok("suld2d_v2b32", t.surf, {{8, 2, 0, 0}})[0], (V4{202, 203, 0, 0}));
  EXPECT_EQ(t.ok("suld2d_v4b32", t.surf, {{0, 1, 0, 0}})[0], (V4{100, 101, 102, 103}));
  t.ok("sust2d_v4b32", t.surf, {{0, 2, 11, 22}});
  EXPECT_EQ(t.ok("suld2d_v4b32", t.surf, {{0, 2, 0, 0}})[0], (V4{11, 22, 11, 22}));
  // 1D u8x4 surface: b8, v2.b16 (clamped), b64 on a u32x2 one.
  const uint64_t a8 = t.array<uint8_t>({.format = ChannelFormat::unsigned_int(8, 4), .kind = ArrayKind::D1, .width = 2, .surface = true},
                                       {1, 2, 3, 4, 5, 6, 7, 8});
  const uint64_t s8 = t.surface(a8);
  EXPECT_EQ(t.ok("suld1d_b8x", s8, {{5, 0, 0, 0}, {8, 0, 0, 0}})[0][0], 6u);
  EXPECT_EQ(t.ok("suld1d_b8x", s8, {{8, 0, 0, 0}})[0][0], 0u);
  EXPECT_EQ(t.ok("suld1d_v2b16", s8, {{4, 0, 0, 0}})[0], (V4{0x0605, 0x0807, 0, 0}));
  EXPECT_EQ(t.ok("suld1d_v2b16", s8, {{100, 0, 0, 0}})[0], (V4{0x0605, 0x0807, 0, 0}));
  t.ok("sust1d_b16", s8, {{2, 0, 0xabcd, 0}});
  EXPECT_EQ(t.ok("suld1d_b8x", s8, {{3, 0, 0, 0}})[0][0], 0xabu);
  const uint64_t a64 = t.array<uint32_t>({.format = ChannelFormat::unsigned_int(32, 2), .kind = ArrayKind::D1, .width = 2, .surface = true},
                                         {1, 2, 3, 4});
  EXPECT_EQ(t.ok("suld1d_b64", t.surface(a64), {{8, 0, 0, 0}})[0], (V4{3, 4, 0, 0}));
  // 3D: 2x2x2, texel = 100 z + 10 y + x.
  std::vector<uint32_t> v3;
  for (uint32_t i = 0; i < 8; ++i) v3.push_back(100 * (i / 4) + 10 * (i / 2 % 2) + i % 2);
  const uint64_t s3 = t.surface(t.array<uint32_t>({.format = ChannelFormat::unsigned_int(32, 1), .kind = ArrayKind::D3, .width = 2, .height = 2, .depth = 2, .surface = true}, v3));
  EXPECT_EQ(t.ok("suld3d_b32", s3, {{4, 1, 1, 0}})[0][0], 111u);
  t.ok("sust3d_b32", s3, {{0, 1, 42, 1}});  // z in %r13
  EXPECT_EQ(t.ok("suld3d_b32", s3, {{0, 1, 1, 0}})[0][0], 42u);
  // Layered: 1D (clamped layer and x) and 2D (zero outside).
  const uint64_t sa1 = t.surface(t.array<uint32_t>({.format = ChannelFormat::unsigned_int(32, 1), .kind = ArrayKind::Layered1D, .width = 2, .depth = 3, .surface = true},
                                                   {0, 1, 10, 11, 20, 21}));
  EXPECT_EQ(t.ok("sulda1d_b32", sa1, {{4, 0, 1, 0}, {12, 0, 7, 0}}), (std::vector<V4>{{11, 0, 0, 0}, {21, 0, 0, 0}}));
  std::vector<uint32_t> v2l;
  for (uint32_t i = 0; i < 8; ++i) v2l.push_back(100 * (i / 4) + i % 4);
  const uint64_t sa2 = t.surface(t.array<uint32_t>({.format = ChannelFormat::unsigned_int(32, 1), .kind = ArrayKind::Layered2D, .width = 2, .height = 2, .depth = 2, .surface = true}, v2l));
  EXPECT_EQ(t.ok("sulda2d_b32", sa2, {{4, 1, 1, 0}, {4, 1, 2, 0}}), (std::vector<V4>{{103, 0, 0, 0}, {0, 0, 0, 0}}));
  t.ok("susta2d_b32", sa2, {{0, 0, 55, 9}});  // layer 9 clamps to 1
  EXPECT_EQ(t.ok("sulda2d_b32", sa2, {{0, 0, 1, 0}})[0][0], 55u);
}

// ---- bad handles -----------------------------------------------------------------------------

TEST(TextureFaults, InvalidDestroyedAndMismatchedHandles) {
  Tex t;
  const uint64_t a = t.array<float>({.format = ChannelFormat::float32(1), .kind = ArrayKind::D2, .width = 2, .height = 2, .surface = true}, {1, 2, 3, 4});
  const std::vector<V4> in = {{0, 0, 0, 0}};
  EXPECT_TRUE(t.go("tex2d_f", 0x42, in).empty());
  EXPECT_EQ(t.last.error, LaunchError::LaunchFailure);
  EXPECT_NE(t.fault_text().find("0x42 is not a live texture object"), std::string::npos) << t.fault_text();
  EXPECT_NE(t.fault_text().find("tex.2d.v4.f32.f32"), std::string::npos) << t.fault_text();
  EXPECT_TRUE(t.go("tex2d_f", 0, in).empty());
  EXPECT_NE(t.fault_text().find("handle is 0"), std::string::npos) << t.fault_text();
  const uint64_t tex = t.texture(a);
  EXPECT_EQ(t.red("tex2d_i", tex, in)[0], 1.0f);
  ASSERT_TRUE(t.dev().destroy_texture_object(tex));
  EXPECT_TRUE(t.go("tex2d_i", tex, in).empty());
  EXPECT_NE(t.fault_text().find("is not a live texture object (never created, or destroyed)"), std::string::npos)
      << t.fault_text();
  const uint64_t surf = t.surface(a);
  EXPECT_TRUE(t.go("tex2d_i", surf, in).empty());
  EXPECT_NE(t.fault_text().find("is a surface object, not a texture object"), std::string::npos) << t.fault_text();
  EXPECT_TRUE(t.go("suld2d_b32", t.texture(a), in).empty());
  EXPECT_NE(t.fault_text().find("is a texture object, not a surface object"), std::string::npos) << t.fault_text();
  EXPECT_TRUE(t.go("tex3d_i", t.texture(a), in).empty());
  EXPECT_NE(t.fault_text().find(".3d access to texture object"), std::string::npos) << t.fault_text();
  EXPECT_NE(t.fault_text().find("which is 2D"), std::string::npos) << t.fault_text();
  // The array freed under a live texture: a use-after-free of its storage.
  const uint64_t tex2 = t.texture(a);
  ASSERT_TRUE(t.dev().destroy_array(a));
  EXPECT_TRUE(t.go("tex2d_i", tex2, in).empty());
  EXPECT_EQ(t.last.error, LaunchError::IllegalAddress);
  EXPECT_NE(t.fault_text().find("use-after-free"), std::string::npos) << t.fault_text();
  EXPECT_NE(t.fault_text().find("cudaArray"), std::string::npos) << t.fault_text();
}

// ---- handles in variables ----------------------------------------------------------------------

// Texture references (.texref module variables) hold a handle the runtime
// writes when it binds them; .param operands are read from the parameter
// buffer.
TEST(TextureReferences, TexrefVariablesAndParamOperands) {
  auto l = load(R"(
.global .texref tref;
.visible .entry by_ref(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 1;
  tex.1d.v4.f32.s32 {%r2, %r3, %r4, %r5}, [tref, {%r1}];
  txq.width.b32 %r6, [tref];
  st.global.v2.b32 [%rd1], {%r2, %r6};
  ret;
}
.visible .entry by_param(.param .u64 t, .param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 2;
  tex.1d.v4.f32.s32 {%r2, %r3, %r4, %r5}, [t, {%r1}];
  st.global.b32 [%rd1], %r2;
  ret;
}
)");
  ASSERT_TRUE(l->program);
  Device& dev = l->device;
  const uint64_t a = dev.create_array({.format = ChannelFormat::float32(1), .kind = ArrayKind::D1, .width = 3});
  const std::vector<float> texels = {5, 6, 7};
  ASSERT_FALSE(dev.copy_to_array(a, texels.data()));
  const uint64_t tex = dev.create_texture_object({.kind = ResourceKind::Array, .array = a}, {});
  const uint64_t out = upload(dev, std::vector<uint32_t>(2));
  // Unbound: the variable holds 0.
  auto r = run(*l, "by_ref", {1}, {1}, {param_bytes(out)});
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->message.find("the texture handle is 0"), std::string::npos) << r.fault->message;
  // Binding = writing the handle into the variable's 8 bytes.
  const ptx::Module& m = *l->program->module;
  size_t g = 0;
  while (g < m.globals.size() && m.globals[g].name != "tref") ++g;
  ASSERT_LT(g, m.globals.size());
  ASSERT_FALSE(dev.memory().copy_from_host(l->program->global_addresses[g], &tex, 8));
  r = run(*l, "by_ref", {1}, {1}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  EXPECT_EQ(download<uint32_t>(dev, out, 2), (std::vector<uint32_t>{u(6), 3}));
  r = run(*l, "by_param", {1}, {1}, {param_bytes(tex), param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  EXPECT_EQ(download<uint32_t>(dev, out, 1)[0], u(7));
}

TEST(TextureReferences, SurfrefAndTexrefParameters) {
  auto l = load(R"(
.global .surfref sref;
.visible .entry by_surfref(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 4;
  suld.b.1d.b32.trap {%r2}, [sref, {%r1}];
  st.global.b32 [%rd1], %r2;
  ret;
}
.visible .entry by_texref_param(.param .texref t, .param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 0;
  tex.1d.v4.f32.s32 {%r2, %r3, %r4, %r5}, [t, {%r1}];
  st.global.b32 [%rd1], %r2;
  ret;
}
)");
  ASSERT_TRUE(l->program);
  Device& dev = l->device;
  const uint64_t a = dev.create_array({.format = ChannelFormat::unsigned_int(32, 1), .kind = ArrayKind::D1, .width = 2, .surface = true});
  const std::vector<uint32_t> texels = {31, 32};
  ASSERT_FALSE(dev.copy_to_array(a, texels.data()));
  const uint64_t surf = dev.create_surface_object({.kind = ResourceKind::Array, .array = a});
  const uint64_t tex = dev.create_texture_object({.kind = ResourceKind::Array, .array = a}, {});
  const ptx::Module& m = *l->program->module;
  ASSERT_EQ(m.globals.size(), 1u);
  ASSERT_FALSE(dev.memory().copy_from_host(l->program->global_addresses[0], &surf, 8));
  const uint64_t out = upload(dev, std::vector<uint32_t>(1));
  auto r = run(*l, "by_surfref", {1}, {1}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  EXPECT_EQ(download<uint32_t>(dev, out, 1)[0], 32u);
  r = run(*l, "by_texref_param", {1}, {1}, {param_bytes(tex), param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  EXPECT_EQ(download<uint32_t>(dev, out, 1)[0], 31u);
}

// Forms warpsim does not model decode to "unsupported instruction", which
// stops the kernel only when executed.
TEST(TextureUnsupported, FormsFaultWhenExecuted) {
  const char* forms[] = {
      "sust.p.1d.b32.trap [%rd1, {%r1}], {%r1};",
      "sured.b.add.1d.u32.trap [%rd1, {%r1}], %r1;",
      "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f1}], {%r1, %r1};",  // texel offset
      "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, smp, {%f1, %f1}];",  // independent sampler
      "tex.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1, %r1, %r1}];",
  };
  for (const char* form : forms) {
    auto l = load(std::string(R"(
.global .samplerref smp;
.visible .entry k(.param .u64 obj)
{
  .reg .b32 %r<4>; .reg .f32 %f<8>; .reg .b64 %rd<4>; .reg .pred %p1;
  ld.param.u64 %rd1, [obj];
  mov.b32 %r1, 0; mov.f32 %f1, 0f00000000;
  setp.ne.u64 %p1, %rd1, 0;
  @%p1 )") + form + R"(
  ret;
}
)");
    ASSERT_TRUE(l->program) << form;
    EXPECT_TRUE(run(*l, "k", {1}, {1}, {param_bytes(uint64_t{0})}).ok()) << form;  // never executed
    auto r = run(*l, "k", {1}, {1}, {param_bytes(uint64_t{1})});
    ASSERT_TRUE(r.fault) << form;
    EXPECT_EQ(r.fault->fault.kind, FaultKind::Unsupported) << form << "\n" << r.fault->message;
  }
}

// ---- the nvcc corpus -----------------------------------------------------------------------------

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TextureCorpus, EveryKernelOfTextureSm80) {
  const std::string text = read_text(WARPSIM_SOURCE_DIR "/tests/ptx/gen/texture.sm80.ptx");
  ASSERT_FALSE(text.empty());
  auto l = load(text, false);
  ASSERT_TRUE(l->program);
  Device& dev = l->device;
  EXPECT_EQ(l->program->kernels.size(), 5u);
  auto check = [](const LaunchResult& r) { return r.ok() ? std::string() : r.fault ? r.fault->message : "error"; };

  // tex1d_fetch: out[i] = tex1Dfetch<float>(linear float buffer, i) * 2.
  const int n = 300;
  std::vector<float> src(n);
  for (int i = 0; i < n; ++i) src[i] = 0.25f * i - 7;
  const uint64_t dsrc = upload(dev, src), dout = upload(dev, std::vector<float>(n));
  const uint64_t lin = dev.create_texture_object(
      {.kind = ResourceKind::Linear, .address = dsrc, .format = ChannelFormat::float32(1), .width = n}, {});
  auto r = run(*l, "tex1d_fetch", {3}, {128}, {param_bytes(lin), param_bytes(dout), param_bytes(n)});
  ASSERT_TRUE(r.ok()) << check(r);
  auto out = download<float>(dev, dout, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], src[i] * 2) << i;

  // tex2d_sample / tex2d_lod: a 40x20 float array, point, clamp; tex2d_lod
  // with normalized coordinates.
  const int w = 40, h = 20;
  std::vector<float> img(w * h);
  for (int i = 0; i < w * h; ++i) img[i] = static_cast<float>(i % 97) * 1.5f;
  const uint64_t arr = dev.create_array({.format = ChannelFormat::float32(1), .kind = ArrayKind::D2, .width = w, .height = h});
  ASSERT_FALSE(dev.copy_to_array(arr, img.data()));
  const uint64_t t2 = dev.create_texture_object({.kind = ResourceKind::Array, .array = arr}, {});
  TextureDesc nd;
  nd.normalized_coords = true;
  const uint64_t t2n = dev.create_texture_object({.kind = ResourceKind::Array, .array = arr}, nd);
  for (auto [name, tex] : {std::pair{"tex2d_sample", t2}, std::pair{"tex2d_lod", t2n}}) {
    const uint64_t o = upload(dev, std::vector<float>(w * h, -1));
    r = run(*l, name, {3, 2}, {16, 16}, {param_bytes(tex), param_bytes(o), param_bytes(w), param_bytes(h)});
    ASSERT_TRUE(r.ok()) << name << ": " << check(r);
    EXPECT_EQ(download<float>(dev, o, w * h), img) << name;
  }

  // surf_copy_scale: dst(x, y) = src(x, y) * 3 + y on float surfaces.
  const uint64_t sa = dev.create_array({.format = ChannelFormat::float32(1), .kind = ArrayKind::D2, .width = w, .height = h, .surface = true});
  const uint64_t da = dev.create_array({.format = ChannelFormat::float32(1), .kind = ArrayKind::D2, .width = w, .height = h, .surface = true});
  ASSERT_FALSE(dev.copy_to_array(sa, img.data()));
  const uint64_t ss = dev.create_surface_object({.kind = ResourceKind::Array, .array = sa});
  const uint64_t ds = dev.create_surface_object({.kind = ResourceKind::Array, .array = da});
  r = run(*l, "surf_copy_scale", {3, 2}, {16, 16}, {param_bytes(ss), param_bytes(ds), param_bytes(w), param_bytes(h)});
  ASSERT_TRUE(r.ok()) << check(r);
  std::vector<float> res(w * h);
  ASSERT_FALSE(dev.copy_from_array(res.data(), da));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      ASSERT_EQ(res[y * w + x], std::fma(img[y * w + x], 3.0f, static_cast<float>(y))) << x << "," << y;

  // tex1d_int4: out[i] = x + y + z + w of tex1Dfetch<int4>.
  std::vector<int32_t> iv(4 * n);
  for (int i = 0; i < 4 * n; ++i) iv[i] = (i * 7919) % 1000 - 500;
  const uint64_t dint = upload(dev, iv), dsum = upload(dev, std::vector<int32_t>(n));
  const uint64_t t4 = dev.create_texture_object(
      {.kind = ResourceKind::Linear, .address = dint, .format = ChannelFormat::signed_int(32, 4), .width = n}, {});
  r = run(*l, "tex1d_int4", {3}, {128}, {param_bytes(t4), param_bytes(dsum), param_bytes(n)});
  ASSERT_TRUE(r.ok()) << check(r);
  auto sums = download<int32_t>(dev, dsum, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(sums[i], iv[4 * i] + iv[4 * i + 1] + iv[4 * i + 2] + iv[4 * i + 3]) << i;
}

}  // namespace
}  // namespace warpsim::functional
