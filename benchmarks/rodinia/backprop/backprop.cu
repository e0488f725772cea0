// rodinia/backprop - one training step of a two-layer perceptron (Rodinia Back Propagation): an
// input layer of `in` units, 16 hidden units and one output unit, sigmoid activations.
// Kernels: layerforward (the input-to-hidden products of 16 inputs × 16 hidden units per 16×16
// block, reduced over the inputs by a shared-memory tree; the host adds the per-block partial sums)
// and adjust_weights (the momentum update of every input-to-hidden weight, one thread per weight,
// same block shape). The hidden-to-output layer, the error terms and the output weights' update run
// on the host between the two kernels, as in the well-known version. Grid (1, in/16).
#include <cmath>
#include <vector>

#include "workload.h"

constexpr int kHidden = 16;  // hidden units = block width
constexpr int kHeight = 16;  // inputs per block = block height
constexpr float kEta = 0.3f, kMomentum = 0.3f;

static_assert(kHidden == kHeight, "the block is square: 16 inputs × 16 hidden units");

static inline float squash(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Weights are (in+1)×(hid+1) row-major: row k is input unit k (row 0 the bias), column j hidden
// unit j (column 0 unused). Input unit 16·by + ty + 1 meets hidden unit tx + 1 in thread (tx, ty).
__global__ void layerforward(const float* __restrict__ input, float* weights, float* partial_sum,
                             int hid) {
  __shared__ float input_node[kHeight];
  __shared__ float weight_matrix[kHeight][kHidden];
  const int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  const int row = kHeight * by + ty + 1;
  const int index = (hid + 1) * row + tx + 1;

  if (tx == 0) input_node[ty] = input[row];
  __syncthreads();
  weight_matrix[ty][tx] = weights[index];
  __syncthreads();
  weight_matrix[ty][tx] *= input_node[ty];
  __syncthreads();
  // Tree over the 16 inputs (rows): after the step with stride s, row ty (a multiple of 2s) holds
  // the sum of rows ty .. ty+2s-1.
  for (int s = 1; s < kHeight; s *= 2) {
    if (ty % (2 * s) == 0) weight_matrix[ty][tx] += weight_matrix[ty + s][tx];
    __syncthreads();
  }
  // As the well-known version does, every thread stores its tree cell back over the weight it read
  // (the host uploads the weights again before adjust_weights).
  weights[index] = weight_matrix[ty][tx];
  __syncthreads();
  if (tx == 0) partial_sum[by * hid + ty] = weight_matrix[0][ty];
}

__global__ void adjust_weights(const float* __restrict__ delta, int hid,
                               const float* __restrict__ ly, float* w, float* oldw) {
  const int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  const int row = kHeight * by + ty + 1, col = tx + 1;
  const int index = (hid + 1) * row + col;
  const float dw = kEta * delta[col] * ly[row] + kMomentum * oldw[index];
  w[index] += dw;
  oldw[index] = dw;
  __syncthreads();
  // The bias row (input 0, whose activation is 1) is updated by the first block's first row.
  if (ty == 0 && by == 0) {
    const float dw0 = kEta * delta[col] + kMomentum * oldw[col];
    w[col] += dw0;
    oldw[col] = dw0;
  }
}

// The input-to-hidden sums exactly as the GPU forms them: per block of 16 inputs the products, a
// pairwise tree over the rows, then the blocks in order, then the bias weight.
static std::vector<float> hidden_sums_reference(const std::vector<float>& input,
                                                const std::vector<float>& w, int in) {
  const int hid = kHidden, blocks = in / kHeight;
  std::vector<float> sums(hid + 1, 0.0f);
  for (int j = 1; j <= hid; ++j) {
    float sum = 0.0f;
    for (int b = 0; b < blocks; ++b) {
      float cell[kHeight];
      for (int r = 0; r < kHeight; ++r) {
        const int row = kHeight * b + r + 1;
        cell[r] = w[static_cast<size_t>(hid + 1) * row + j] * input[row];
      }
      for (int s = 1; s < kHeight; s *= 2)
        for (int r = 0; r < kHeight; r += 2 * s) cell[r] += cell[r + s];
      sum += cell[0];
    }
    sums[j] = sum + w[j];  // bias row
  }
  return sums;
}

// The host part of the step, shared by the GPU run and the reference: hidden activations from the
// sums, the output unit, the error terms, and the hidden-to-output update. Returns the hidden deltas.
struct HostLayers {
  std::vector<float> hidden, hidden_delta, out_weights, out_prev;
  float output = 0.0f, output_delta = 0.0f;
};

static void host_step(const std::vector<float>& sums, float target, HostLayers& h) {
  const int hid = kHidden;
  h.hidden.assign(hid + 1, 1.0f);  // unit 0 is the bias
  for (int j = 1; j <= hid; ++j) h.hidden[j] = squash(sums[j]);
  float s = 0.0f;
  for (int j = 0; j <= hid; ++j) s += h.hidden[j] * h.out_weights[2 * j + 1];
  h.output = squash(s);
  h.output_delta = h.output * (1.0f - h.output) * (target - h.output);
  h.hidden_delta.assign(hid + 1, 0.0f);
  for (int j = 1; j <= hid; ++j)
    h.hidden_delta[j] = h.hidden[j] * (1.0f - h.hidden[j]) * h.output_delta * h.out_weights[2 * j + 1];
  for (int j = 0; j <= hid; ++j) {
    const float dw = kEta * h.output_delta * h.hidden[j] + kMomentum * h.out_prev[2 * j + 1];
    h.out_weights[2 * j + 1] += dw;
    h.out_prev[2 * j + 1] = dw;
  }
}

int main(int argc, char** argv) {
  workload::Run run("backprop", argc, argv);
  // Large is the well-known run's 65,536 input units.
  const int in = run.pick(2048, 32768, 65536);
  const int hid = kHidden;
  const size_t nw = static_cast<size_t>(in + 1) * (hid + 1);

  // Inputs in [0, 1); weights scaled by 1/sqrt(in) so the hidden sums stay in the sigmoid's live
  // range and the error terms are not zero; the previous weight changes are small random values,
  // as in the middle of training, so the momentum term matters.
  workload::Rng rng(run.seed());
  std::vector<float> input(in + 1), w(nw), oldw(nw);
  input[0] = 1.0f;  // bias
  for (int k = 1; k <= in; ++k) input[k] = rng.uniform();
  const float scale = 2.0f / std::sqrt(static_cast<float>(in));
  for (size_t i = 0; i < nw; ++i) w[i] = rng.uniform(-scale, scale);
  for (size_t i = 0; i < nw; ++i) oldw[i] = rng.uniform(-0.01f, 0.01f) * scale;
  HostLayers layers;
  layers.out_weights.resize(2 * (hid + 1));
  layers.out_prev.assign(2 * (hid + 1), 0.0f);
  for (auto& x : layers.out_weights) x = rng.uniform(-0.5f, 0.5f);
  const float target = 0.1f;
  const HostLayers initial_layers = layers;

  const int blocks = in / kHeight;
  const dim3 grid(1, blocks), block(kHidden, kHeight);
  run.info("%d inputs, %d hidden units, 1 output", in, hid);
  run.info("layerforward, adjust_weights: grid 1×%d, block %d×%d", blocks, kHidden, kHeight);

  float *d_input, *d_w, *d_oldw, *d_partial, *d_delta;
  CUDA_CHECK(cudaMalloc(&d_input, (in + 1) * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_w, nw * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_oldw, nw * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_partial, static_cast<size_t>(blocks) * hid * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_delta, (hid + 1) * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_input, input.data(), (in + 1) * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_w, w.data(), nw * sizeof(float), cudaMemcpyHostToDevice));

  layerforward<<<grid, block>>>(d_input, d_w, d_partial, hid);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> partial(static_cast<size_t>(blocks) * hid);
  CUDA_CHECK(cudaMemcpy(partial.data(), d_partial, partial.size() * sizeof(float),
                        cudaMemcpyDeviceToHost));
  // The host finishes the reduction over the blocks and adds the bias weight.
  std::vector<float> sums(hid + 1, 0.0f);
  for (int j = 1; j <= hid; ++j) {
    float sum = 0.0f;
    for (int b = 0; b < blocks; ++b) sum += partial[static_cast<size_t>(b) * hid + j - 1];
    sums[j] = sum + w[j];
  }
  host_step(sums, target, layers);

  CUDA_CHECK(cudaMemcpy(d_delta, layers.hidden_delta.data(), (hid + 1) * sizeof(float),
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_oldw, oldw.data(), nw * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_w, w.data(), nw * sizeof(float), cudaMemcpyHostToDevice));
  adjust_weights<<<grid, block>>>(d_delta, hid, d_input, d_w, d_oldw);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got_w(nw), got_oldw(nw);
  CUDA_CHECK(cudaMemcpy(got_w.data(), d_w, nw * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_oldw.data(), d_oldw, nw * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference of the whole step.
  HostLayers want_layers = initial_layers;
  const std::vector<float> want_sums = hidden_sums_reference(input, w, in);
  host_step(want_sums, target, want_layers);
  std::vector<float> want_w = w, want_oldw = oldw;
  for (int row = 0; row <= in; ++row)
    for (int col = 1; col <= hid; ++col) {
      const size_t i = static_cast<size_t>(hid + 1) * row + col;
      const float dw = kEta * want_layers.hidden_delta[col] * input[row] + kMomentum * oldw[i];
      want_w[i] += dw;
      want_oldw[i] = dw;
    }

  // The products and the tree are plain multiplies and adds in the same order on both sides, so
  // the hidden sums must agree exactly; the weight update may be contracted into FMAs on the GPU
  // (one rounding of a small dw, far below 1e-6 of the weight plus 1e-9).
  run.check_close("hidden sums", sums.data() + 1, want_sums.data() + 1, hid, 0.0, 0.0);
  run.check_close("hidden deltas", layers.hidden_delta.data() + 1,
                  want_layers.hidden_delta.data() + 1, hid, 0.0, 0.0);
  run.check_close("weights", got_w.data(), want_w.data(), nw, 1e-6, 1e-9);
  run.check_close("weight changes", got_oldw.data(), want_oldw.data(), nw, 1e-6, 1e-9);
  run.info("output %.6f (target %.2f), hidden deltas e.g. %.3g", layers.output, target,
           static_cast<double>(layers.hidden_delta[1]));

  CUDA_CHECK(cudaFree(d_input));
  CUDA_CHECK(cudaFree(d_w));
  CUDA_CHECK(cudaFree(d_oldw));
  CUDA_CHECK(cudaFree(d_partial));
  CUDA_CHECK(cudaFree(d_delta));
  return run.pass();
}
