// ispass/nn - neural-network digit recognition, the GPGPU-Sim ISPASS'09 "NN" benchmark (a GPU
// port of the LeNet-like convolutional network of Simard et al. 2003 / O'Neill): the forward pass
// of a 4-layer network over a batch of 29 x 29 images, with synthetic deterministic weights.
//   layer 1: 6 feature maps of 13 x 13, each a 5 x 5 convolution of the image at stride 2
//   layer 2: 50 feature maps of 5 x 5, each a 5 x 5 convolution over all 6 layer-1 maps, stride 2
//   layer 3: 100 neurons fully connected to the 1250 layer-2 outputs
//   layer 4: 10 outputs (one per digit) fully connected to layer 3
// Every neuron is b + sum w * x through the scaled tanh 1.7159 tanh(2/3 s).
// Four kernels, one per layer, one thread per neuron, grid.y = image (28 images at the paper
// scale); no shared memory: inputs and weights are read from global memory by every neuron.
//   k1 grid (6, images) block (13, 13);  k2 grid (50, images) block (5, 5);
//   k3 grid (100, images) block (1, 1);  k4 grid (10, images) block (1, 1).
// Checked layer by layer against a CPU evaluation in double of that layer on the GPU's own input
// to it, with a per-neuron tolerance from the size of the dot product (see check_layer).
#include <algorithm>
#include <cmath>
#include <vector>

#include "workload.h"

namespace {

constexpr int kIn = 29;                         // input image side
constexpr int kMaps1 = 6, kSide1 = 13;          // layer 1
constexpr int kMaps2 = 50, kSide2 = 5;          // layer 2
constexpr int kN3 = 100, kN4 = 10;              // layers 3 and 4
constexpr int kK = 5;                           // convolution kernel side
constexpr int kW1 = kK * kK + 1;                // weights per layer-1 map (the last is the bias)
constexpr int kW2 = kMaps1 * kK * kK + 1;       // per layer-2 map
constexpr int kIn3 = kMaps2 * kSide2 * kSide2;  // 1250 inputs of layer 3

__device__ inline float activation(float s) { return 1.7159f * tanhf(0.66666667f * s); }

__global__ void layer1(const float* __restrict__ images, const float* __restrict__ w,
                       float* __restrict__ out) {
  const int map = blockIdx.x, img = blockIdx.y, x = threadIdx.x, y = threadIdx.y;
  const float* in = images + img * kIn * kIn + (2 * y) * kIn + 2 * x;
  const float* wm = w + map * kW1;
  float s = wm[kK * kK];
  for (int ky = 0; ky < kK; ++ky)
    for (int kx = 0; kx < kK; ++kx) s += wm[ky * kK + kx] * in[ky * kIn + kx];
  out[(img * kMaps1 + map) * kSide1 * kSide1 + y * kSide1 + x] = activation(s);
}

__global__ void layer2(const float* __restrict__ l1, const float* __restrict__ w,
                       float* __restrict__ out) {
  const int map = blockIdx.x, img = blockIdx.y, x = threadIdx.x, y = threadIdx.y;
  const float* wm = w + map * kW2;
  float s = wm[kMaps1 * kK * kK];
  for (int c = 0; c < kMaps1; ++c) {
    const float* in = l1 + (img * kMaps1 + c) * kSide1 * kSide1 + (2 * y) * kSide1 + 2 * x;
    for (int ky = 0; ky < kK; ++ky)
      for (int kx = 0; kx < kK; ++kx) s += wm[(c * kK + ky) * kK + kx] * in[ky * kSide1 + kx];
  }
  out[(img * kMaps2 + map) * kSide2 * kSide2 + y * kSide2 + x] = activation(s);
}

// A fully connected neuron per single-thread CTA: neuron blockIdx.x of image blockIdx.y.
__global__ void fully_connected(const float* __restrict__ in, int nin, const float* __restrict__ w,
                                float* __restrict__ out) {
  const int neuron = blockIdx.x, img = blockIdx.y;
  const float* x = in + img * nin;
  const float* wn = w + neuron * (nin + 1);
  float s = wn[nin];
  for (int i = 0; i < nin; ++i) s += wn[i] * x[i];
  out[img * gridDim.x + neuron] = activation(s);
}

// One layer on the CPU in double: neuron j of image i is activation(w[j][.] . x[i][conn(j)]).
// `terms(img, neuron, f)` calls f(weight, input) for every connection, then the bias with 1.
// Each GPU neuron sums n + 1 float products (contracted to multiply-adds) in order: a rounding per
// step, growing like sqrt(n) in practice, relative to sum |w x|; then tanhf (2 ulp) and two
// multiplies, and the activation's slope is at most 1.7159 * 2/3. So the tolerance is
// 1.15 * 2 sqrt(n + 1) eps sum |w x| + 1e-6 (the last few ulp of an output of size <= 1.72).
template <class Terms>
void check_layer(const workload::Run& run, const char* name, const std::vector<float>& got,
                 int images, int neurons, int n, const Terms& terms) {
  const double eps = std::ldexp(1.0, -24);
  double worst = 0;
  for (int img = 0; img < images; ++img)
    for (int j = 0; j < neurons; ++j) {
      double s = 0, mag = 0;
      terms(img, j, [&](double w, double x) {
        s += w * x;
        mag += std::fabs(w * x);
      });
      const double want = 1.7159 * std::tanh(2.0 / 3.0 * s);
      const double tol = 1.15 * 2.0 * std::sqrt(n + 1.0) * eps * mag + 1e-6;
      const double g = got[static_cast<size_t>(img) * neurons + j];
      const double err = std::fabs(g - want);
      worst = std::max(worst, err / tol);
      if (!(err <= tol))
        workload::fail("%s, image %d neuron %d: got %.9g, expected %.9g (tolerance %.2e)", name,
                       img, j, g, want, tol);
    }
  run.info("%s: worst error %.2f of the tolerance", name, worst);
}

// A synthetic handwritten-like digit: a few thick anti-aliased pen strokes on a blank page,
// scaled like the original's inputs (background -1, ink +1).
void draw_digit(workload::Rng& rng, float* img) {
  std::vector<float> ink(kIn * kIn, 0.0f);
  float px = rng.uniform(8.0f, 20.0f), py = rng.uniform(6.0f, 12.0f);
  const int strokes = 2 + rng.below(3);
  for (int s = 0; s < strokes; ++s) {
    const float qx = rng.uniform(6.0f, 22.0f), qy = rng.uniform(6.0f, 23.0f);
    const float width = rng.uniform(1.2f, 2.2f);
    for (int y = 0; y < kIn; ++y)
      for (int x = 0; x < kIn; ++x) {  // distance from the pixel centre to the segment
        const float dx = qx - px, dy = qy - py;
        float t = ((x - px) * dx + (y - py) * dy) / (dx * dx + dy * dy + 1e-6f);
        t = std::fmin(1.0f, std::fmax(0.0f, t));
        const float ex = x - (px + t * dx), ey = y - (py + t * dy);
        const float cover = std::fmin(1.0f, std::fmax(0.0f, width - std::sqrt(ex * ex + ey * ey)));
        ink[y * kIn + x] = std::fmax(ink[y * kIn + x], cover);
      }
    px = qx, py = qy;  // strokes continue where the last one ended
  }
  for (int i = 0; i < kIn * kIn; ++i) img[i] = 2.0f * ink[i] - 1.0f;
}

// Uniform weights of variance 1 / fan_in, so every layer's sums stay in tanh's working range.
std::vector<float> make_weights(workload::Rng& rng, int neurons, int fan_in) {
  const float a = std::sqrt(3.0f / fan_in);
  std::vector<float> w(static_cast<size_t>(neurons) * (fan_in + 1));
  for (float& v : w) v = rng.uniform(-a, a);
  return w;
}

template <class T>
T* to_device(const std::vector<T>& h) {
  T* d;
  CUDA_CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

std::vector<float> to_host(const float* d, size_t n) {
  std::vector<float> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  workload::Run run("nn", argc, argv);
  const int images = run.pick(4, 16, 28);
  run.info(
      "%d images of %d x %d; k1 grid (%d, %d) block (%d, %d), k2 grid (%d, %d) block (%d, %d), "
      "k3 grid (%d, %d) block (1, 1), k4 grid (%d, %d) block (1, 1)",
      images, kIn, kIn, kMaps1, images, kSide1, kSide1, kMaps2, images, kSide2, kSide2, kN3, images,
      kN4, images);

  workload::Rng rng(run.seed());
  std::vector<float> img(static_cast<size_t>(images) * kIn * kIn);
  for (int i = 0; i < images; ++i) draw_digit(rng, &img[static_cast<size_t>(i) * kIn * kIn]);
  const std::vector<float> w1 = make_weights(rng, kMaps1, kK * kK);
  const std::vector<float> w2 = make_weights(rng, kMaps2, kMaps1 * kK * kK);
  const std::vector<float> w3 = make_weights(rng, kN3, kIn3);
  const std::vector<float> w4 = make_weights(rng, kN4, kN3);

  float *d_img = to_device(img), *d_w1 = to_device(w1), *d_w2 = to_device(w2),
        *d_w3 = to_device(w3), *d_w4 = to_device(w4);
  const size_t n1 = static_cast<size_t>(images) * kMaps1 * kSide1 * kSide1;
  const size_t n2 = static_cast<size_t>(images) * kIn3, n3 = static_cast<size_t>(images) * kN3,
               n4 = static_cast<size_t>(images) * kN4;
  float *d_l1, *d_l2, *d_l3, *d_l4;
  CUDA_CHECK(cudaMalloc(&d_l1, n1 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_l2, n2 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_l3, n3 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_l4, n4 * sizeof(float)));

  layer1<<<dim3(kMaps1, images), dim3(kSide1, kSide1)>>>(d_img, d_w1, d_l1);
  CUDA_CHECK(cudaGetLastError());
  layer2<<<dim3(kMaps2, images), dim3(kSide2, kSide2)>>>(d_l1, d_w2, d_l2);
  CUDA_CHECK(cudaGetLastError());
  fully_connected<<<dim3(kN3, images), 1>>>(d_l2, kIn3, d_w3, d_l3);
  CUDA_CHECK(cudaGetLastError());
  fully_connected<<<dim3(kN4, images), 1>>>(d_l3, kN3, d_w4, d_l4);
  CUDA_CHECK(cudaGetLastError());
  const std::vector<float> l1 = to_host(d_l1, n1), l2 = to_host(d_l2, n2), l3 = to_host(d_l3, n3),
                           l4 = to_host(d_l4, n4);

  // Neuron j of a convolution layer: map j / (side^2) at (y, x) = (j % side^2) / side, % side.
  check_layer(
      run, "layer 1", l1, images, kMaps1 * kSide1 * kSide1, kK * kK, [&](int i, int j, auto&& f) {
        const int map = j / (kSide1 * kSide1), y = j % (kSide1 * kSide1) / kSide1, x = j % kSide1;
        const float* wm = &w1[map * kW1];
        for (int ky = 0; ky < kK; ++ky)
          for (int kx = 0; kx < kK; ++kx)
            f(wm[ky * kK + kx], img[(i * kIn + 2 * y + ky) * kIn + 2 * x + kx]);
        f(wm[kK * kK], 1.0);
      });
  check_layer(run, "layer 2", l2, images, kIn3, kMaps1 * kK * kK, [&](int i, int j, auto&& f) {
    const int map = j / (kSide2 * kSide2), y = j % (kSide2 * kSide2) / kSide2, x = j % kSide2;
    const float* wm = &w2[map * kW2];
    for (int c = 0; c < kMaps1; ++c)
      for (int ky = 0; ky < kK; ++ky)
        for (int kx = 0; kx < kK; ++kx)
          f(wm[(c * kK + ky) * kK + kx],
            l1[((i * kMaps1 + c) * kSide1 + 2 * y + ky) * kSide1 + 2 * x + kx]);
    f(wm[kMaps1 * kK * kK], 1.0);
  });
  const auto dense = [](const std::vector<float>& w, const std::vector<float>& in, int nin) {
    return [&w, &in, nin](int i, int j, auto&& f) {
      for (int k = 0; k < nin; ++k) f(w[j * (nin + 1) + k], in[i * nin + k]);
      f(w[j * (nin + 1) + nin], 1.0);
    };
  };
  check_layer(run, "layer 3", l3, images, kN3, kIn3, dense(w3, l2, kIn3));
  check_layer(run, "layer 4", l4, images, kN4, kN3, dense(w4, l3, kN3));

  for (float* p : {d_img, d_w1, d_w2, d_w3, d_w4, d_l1, d_l2, d_l3, d_l4}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
