// Corpus execution: tests/ptx/src/texture.cu (bindless texture and surface
// objects, created through the Device's texture API as the CUDA runtime
// shim would: functional/texture.h).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(TextureExec, "texture");

constexpr int kW = 40, kH = 20;  // 3 x 2 blocks of 16 x 16, partial in both directions

std::vector<float> image(uint64_t seed) {
  Rng rng(seed);
  return rng.vec<float>(kW * kH, [&] { return rng.f32(-1e3f, 1e3f); });
}

// A 2-D float CUDA array holding `texels` (row-major, kW x kH).
uint64_t float_array(Device& dev, const std::vector<float>& texels, bool surface) {
  std::string why;
  const uint64_t arr = dev.create_array({.format = ChannelFormat::float32(1),
                                         .kind = ArrayKind::D2,
                                         .width = kW,
                                         .height = kH,
                                         .surface = surface},
                                        &why);
  EXPECT_NE(arr, 0u) << why;
  EXPECT_FALSE(dev.copy_to_array(arr, texels.data()));
  return arr;
}

uint64_t texture(Device& dev, const ResourceDesc& res, const TextureDesc& desc = {}) {
  std::string why;
  const uint64_t tex = dev.create_texture_object(res, desc, &why);
  EXPECT_NE(tex, 0u) << why;
  return tex;
}

TEST_P(TextureExec, Tex1dFetch) {
  const int n = 300;
  Rng rng(210);
  auto src = rng.vec<float>(n, [&] { return rng.f32(-1e4f, 1e4f); });
  const uint64_t buf = upload(src), out = zeros<float>(n);
  const uint64_t tex = texture(device(), {.kind = ResourceKind::Linear,
                                          .address = buf,
                                          .format = ChannelFormat::float32(1),
                                          .width = n});
  ASSERT_LAUNCH(launch("tex1d_fetch", {blocks_for(n, 128)}, {128}, {tex, out, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = src[i] * 2.0f;
  EXPECT_TRUE(exact(download<float>(out, n), want));
}

TEST_P(TextureExec, Tex2dSample) {
  // Point sampling at texel centres, unnormalised coordinates: texel (x, y).
  const auto img = image(211);
  const uint64_t tex =
      texture(device(), {.kind = ResourceKind::Array, .array = float_array(device(), img, false)});
  const uint64_t out = filled<float>(kW * kH, -1.0f);
  ASSERT_LAUNCH(launch("tex2d_sample", {blocks_for(kW, 16), blocks_for(kH, 16)}, {16, 16},
                       {tex, out, kW, kH}));
  EXPECT_TRUE(exact(download<float>(out, kW * kH), img));
}

TEST_P(TextureExec, Tex2dLod) {
  // Normalised coordinates ((x + 0.5) / w, (y + 0.5) / h), level 0: texel (x, y).
  const auto img = image(212);
  TextureDesc desc;
  desc.normalized_coords = true;
  const uint64_t tex = texture(
      device(), {.kind = ResourceKind::Array, .array = float_array(device(), img, false)}, desc);
  const uint64_t out = filled<float>(kW * kH, -1.0f);
  ASSERT_LAUNCH(
      launch("tex2d_lod", {blocks_for(kW, 16), blocks_for(kH, 16)}, {16, 16}, {tex, out, kW, kH}));
  EXPECT_TRUE(exact(download<float>(out, kW * kH), img));
}

TEST_P(TextureExec, SurfCopyScale) {
  const auto img = image(213);
  const uint64_t src_arr = float_array(device(), img, true);
  const uint64_t dst_arr = float_array(device(), std::vector<float>(kW * kH), true);
  std::string why;
  const uint64_t src =
      device().create_surface_object({.kind = ResourceKind::Array, .array = src_arr}, &why);
  const uint64_t dst =
      device().create_surface_object({.kind = ResourceKind::Array, .array = dst_arr}, &why);
  ASSERT_TRUE(src && dst) << why;
  ASSERT_LAUNCH(launch("surf_copy_scale", {blocks_for(kW, 16), blocks_for(kH, 16)}, {16, 16},
                       {src, dst, kW, kH}));
  // v * 3 + y: one fma in optimised builds, mul and add under -G.
  std::vector<float> want(kW * kH), got(kW * kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const float v = img[y * kW + x], fy = static_cast<float>(y);
      want[y * kW + x] = contracted() ? std::fma(v, 3.0f, fy) : v * 3.0f + fy;
    }
  ASSERT_FALSE(device().copy_from_array(got.data(), dst_arr));
  EXPECT_TRUE(exact(got, want));
}

TEST_P(TextureExec, Tex1dInt4) {
  const int n = 300;
  Rng rng(214);
  auto texels = rng.vec<int>(4 * n, [&] { return static_cast<int>(rng.u32()); });
  const uint64_t buf = upload(texels), out = zeros<int>(n);
  const uint64_t tex = texture(device(), {.kind = ResourceKind::Linear,
                                          .address = buf,
                                          .format = ChannelFormat::signed_int(32, 4),
                                          .width = n});
  ASSERT_LAUNCH(launch("tex1d_int4", {blocks_for(n, 128)}, {128}, {tex, out, n}));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) {
    uint32_t s = 0;  // wrapping sum
    for (int c = 0; c < 4; ++c) s += static_cast<uint32_t>(texels[4 * i + c]);
    want[i] = static_cast<int>(s);
  }
  EXPECT_TRUE(exact(download<int>(out, n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
