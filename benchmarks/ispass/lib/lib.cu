// ispass/lib - LIBOR market model Monte Carlo, the GPGPU-Sim ISPASS'09 "LIB" benchmark (after
// Giles' LIBOR code for the pathwise / adjoint Greeks, Giles & Glasserman 2006). Per path, N
// quarterly forward rates are evolved over Nmat time steps with one normal variate per step
// (Brownian increments shared by all rates, rate-dependent drift), and a portfolio of Nopt
// receiver swaptions maturing at Nmat is valued on the result and discounted. A second pass also
// computes the pathwise deltas dV/dL0_i of the portfolio by the adjoint method: the forward sweep
// stores every step's rates (Nmat+1 rows of N floats per thread, in local memory), the portfolio's
// adjoint seeds dV/dL, and a backward sweep carries it to the initial rates.
// Kernels (block 64, grid 64 at the paper's 4096 paths; threads take paths grid-stride):
//   pathcalc_portfolio         value per path
//   pathcalc_portfolio_greeks  value and the N deltas per path
// The model (N, Nmat, delta, volatilities, initial curve, swaption maturities and strikes) lives
// in constant memory; the normals are drawn on the host, laid out step-major so that the threads
// of a warp read consecutive words.
// Checked against the same algorithm in double on the CPU, per path, with tolerances from the
// float error of the rate evolution (see main); the CPU's adjoint deltas are themselves checked
// against central finite differences of the CPU valuation on a few paths.
#include <algorithm>
#include <cmath>
#include <vector>

#include "workload.h"

namespace {

constexpr int kMaxN = 80, kMaxMat = 40, kMaxOpt = 15;
constexpr int kThreads = 64;

template <class Real>
struct Model {
  int n, nmat, nopt;      // forward rates, time steps, swaptions
  Real delta;             // accrual period (years)
  Real lambda[kMaxN];     // volatility by time to the rate's reset, in steps
  Real l0[kMaxN];         // initial forward curve
  int maturity[kMaxOpt];  // swap length in periods after Nmat
  Real swaprate[kMaxOpt];
};

__constant__ Model<float> c_model;

// One path's forward rates L (initially the curve) evolved over Nmat steps with the normals
// z[n * zstride]. If L2 is given, row n of it (N entries) keeps the rates at the start of step n
// and row Nmat the final ones; a step leaves rates i <= n alone, so only those above are stored.
template <class Real, class M>
__host__ __device__ inline void path_calc(const M& m, Real* L, const float* z, int zstride,
                                          Real* L2) {
  const Real sqrt_delta = sqrt(m.delta);
  if (L2)
    for (int i = 0; i < m.n; ++i) L2[i] = L[i];
  for (int n = 0; n < m.nmat; ++n) {
    const Real sqez = sqrt_delta * Real(z[n * zstride]);
    Real v = 0;  // the drift, summed over the rates up to i
    for (int i = n + 1; i < m.n; ++i) {
      const Real lam = m.lambda[i - n - 1];
      const Real con1 = m.delta * lam;
      v += con1 * L[i] / (Real(1) + m.delta * L[i]);
      L[i] *= exp(con1 * v + lam * (sqez - Real(0.5) * con1));
      if (L2) L2[(n + 1) * m.n + i] = L[i];
    }
  }
}

// The portfolio on the final rates: receiver swaptions pay 100 * max(0, 1 - B - K S) at Nmat,
// B the discount bond of the swap's end and S the annuity, all discounted to today. With Lb, also
// its derivatives dV/dL_i.
template <class Real, class M>
__host__ __device__ inline Real portfolio(const M& m, const Real* L, Real* Lb) {
  const int periods = m.n - m.nmat;
  Real B[kMaxN - 1], S[kMaxN - 1], Bb[kMaxN - 1], Sb[kMaxN - 1];
  Real b = 1, s = 0;
  for (int k = 0; k < periods; ++k) {
    b /= Real(1) + m.delta * L[m.nmat + k];
    s += m.delta * b;
    B[k] = b;
    S[k] = s;
    Bb[k] = 0;
    Sb[k] = 0;
  }
  Real v = 0;
  for (int i = 0; i < m.nopt; ++i) {
    const int k = m.maturity[i] - 1;
    const Real swapval = B[k] + m.swaprate[i] * S[k] - Real(1);
    if (swapval < 0) {
      v += Real(-100) * swapval;
      Bb[k] += Real(-100);
      Sb[k] += Real(-100) * m.swaprate[i];
    }
  }
  Real discount = 1;
  for (int n = 0; n < m.nmat; ++n) discount /= Real(1) + m.delta * L[n];
  v *= discount;
  if (!Lb) return v;

  // The adjoint: the rates up to Nmat only discount; later ones enter B and S through the
  // recurrences b_k = b_{k-1} / (1 + delta L), s_k = s_{k-1} + delta b_k, run backwards.
  for (int n = 0; n < m.nmat; ++n) Lb[n] = -v * m.delta / (Real(1) + m.delta * L[n]);
  Real sb = 0, bb = 0;
  for (int k = periods - 1; k >= 0; --k) {
    const Real f = Real(1) / (Real(1) + m.delta * L[m.nmat + k]);
    sb += Sb[k];
    bb += Bb[k] + m.delta * sb;
    Lb[m.nmat + k] = -bb * B[k] * m.delta * f * discount;
    bb *= f;
  }
  return v;
}

// Carries Lb = dV/dL(final) back through the Nmat steps to dV/dL(initial), from the stored rates.
template <class Real, class M>
__host__ __device__ inline void path_calc_adjoint(const M& m, Real* Lb, const Real* L2) {
  for (int n = m.nmat - 1; n >= 0; --n) {
    Real vb = 0;  // adjoint of the drift sum v, gathered from the rates above
    for (int i = m.n - 1; i > n; --i) {
      const Real lam = m.lambda[i - n - 1];
      const Real con1 = m.delta * lam;
      const Real before = L2[n * m.n + i], after = L2[(n + 1) * m.n + i];
      vb += Lb[i] * after * con1;
      const Real f = Real(1) / (Real(1) + m.delta * before);
      Lb[i] = Lb[i] * (after / before) + vb * con1 * f * f;
    }
  }
}

__global__ void __launch_bounds__(kThreads)
    pathcalc_portfolio(int npath, const float* __restrict__ z, float* __restrict__ value) {
  const Model<float>& m = c_model;
  for (int path = blockIdx.x * blockDim.x + threadIdx.x; path < npath;
       path += gridDim.x * blockDim.x) {
    float L[kMaxN];
    for (int i = 0; i < m.n; ++i) L[i] = m.l0[i];
    path_calc(m, L, z + path, npath, static_cast<float*>(nullptr));
    value[path] = portfolio(m, L, static_cast<float*>(nullptr));
  }
}

__global__ void __launch_bounds__(kThreads)
    pathcalc_portfolio_greeks(int npath, const float* __restrict__ z, float* __restrict__ value,
                              float* __restrict__ deltas) {
  const Model<float>& m = c_model;
  for (int path = blockIdx.x * blockDim.x + threadIdx.x; path < npath;
       path += gridDim.x * blockDim.x) {
    float L[kMaxN], L2[(kMaxMat + 1) * kMaxN], Lb[kMaxN];
    for (int i = 0; i < m.n; ++i) L[i] = m.l0[i];
    path_calc(m, L, z + path, npath, L2);
    value[path] = portfolio(m, L, Lb);
    path_calc_adjoint(m, Lb, L2);
    for (int i = 0; i < m.n; ++i) deltas[static_cast<size_t>(i) * npath + path] = Lb[i];
  }
}

// The CPU's value of one path, and (with Lb) its deltas, in double.
double value_ref(const Model<double>& m, const float* z, int zstride, double* Lb) {
  double L[kMaxN], L2[(kMaxMat + 1) * kMaxN];
  std::copy(m.l0, m.l0 + m.n, L);
  path_calc(m, L, z, zstride, Lb ? L2 : nullptr);
  const double v = portfolio(m, L, Lb);
  if (Lb) path_calc_adjoint(m, Lb, L2);
  return v;
}

// What a path's checks need besides the CPU's value and deltas: how close its nearest swaption is
// to the strike, relative to the swap's size (the payoff has a kink there, and its derivative a
// jump), and the scales that float errors are relative to: for the value, sum |payoff terms|
// discounted; for each delta, the same adjoint run on the absolute values of every term (so no
// cancellation hides how large the sums it came from were).
struct PathScale {
  double kink, value, delta[kMaxN];
};

PathScale path_scale(const Model<double>& m, const float* z, int zstride) {
  double L[kMaxN], L2[(kMaxMat + 1) * kMaxN];
  std::copy(m.l0, m.l0 + m.n, L);
  path_calc(m, L, z, zstride, L2);
  const int periods = m.n - m.nmat;
  double b = 1, s = 0, B[kMaxN], S[kMaxN], Bb[kMaxN] = {}, Sb[kMaxN] = {};
  for (int k = 0; k < periods; ++k) {
    b /= 1 + m.delta * L[m.nmat + k];
    s += m.delta * b;
    B[k] = b, S[k] = s;
  }
  double discount = 1;
  for (int n = 0; n < m.nmat; ++n) discount /= 1 + m.delta * L[n];
  PathScale ps{1e300, 0, {}};
  for (int i = 0; i < m.nopt; ++i) {
    const int k = m.maturity[i] - 1;
    const double size = B[k] + m.swaprate[i] * S[k] + 1;
    ps.kink = std::min(ps.kink, std::fabs(size - 2) / size);
    if (size < 2) {  // in the money
      ps.value += 100 * size * discount;
      Bb[k] += 100;
      Sb[k] += 100 * m.swaprate[i];
    }
  }
  double* d = ps.delta;  // portfolio(), then path_calc_adjoint(), on absolute values
  for (int n = 0; n < m.nmat; ++n) d[n] = ps.value * m.delta / (1 + m.delta * L[n]);
  double sb = 0, bb = 0;
  for (int k = periods - 1; k >= 0; --k) {
    const double f = 1 / (1 + m.delta * L[m.nmat + k]);
    sb += Sb[k];
    bb += Bb[k] + m.delta * sb;
    d[m.nmat + k] = bb * B[k] * m.delta * f * discount;
    bb *= f;
  }
  for (int n = m.nmat - 1; n >= 0; --n) {
    double vb = 0;
    for (int i = m.n - 1; i > n; --i) {
      const double con1 = m.delta * m.lambda[i - n - 1];
      const double before = L2[n * m.n + i], after = L2[(n + 1) * m.n + i];
      vb += d[i] * after * con1;
      const double f = 1 / (1 + m.delta * before);
      d[i] = d[i] * (after / before) + vb * con1 * f * f;
    }
  }
  return ps;
}

}  // namespace

int main(int argc, char** argv) {
  workload::Run run("lib", argc, argv);
  // tiny: a 6-year curve of 24 quarterly rates, 12 steps; small and large: 80 rates, 40 steps.
  Model<float> mf{};
  mf.n = run.pick(24, 80, 80);
  mf.nmat = mf.n / 2;
  mf.nopt = kMaxOpt;
  mf.delta = 0.25f;
  const int grid = run.pick(8, 15, 64);
  const int npath = grid * kThreads;  // one path per thread
  // Volatility falling with time to reset; an upward-sloping initial curve around 5%.
  for (int i = 0; i < mf.n; ++i) {
    mf.lambda[i] = 0.12f + 0.1f * std::exp(-0.1f * i);
    mf.l0[i] = 0.04f + 0.02f * (1.0f - std::exp(-0.05f * i));
  }
  // Swaps of 1, 2, 5, 7 and 10 years (scaled to the tenor), each struck at 4.5%, 5% and 5.5%.
  const int years[5] = {4, 8, 20, 28, 40};
  for (int i = 0; i < mf.nopt; ++i) {
    mf.maturity[i] = years[i / 3] * (mf.n - mf.nmat) / 40;
    mf.swaprate[i] = 0.045f + 0.005f * (i % 3);
  }
  run.info("%d paths, %d forward rates, %d steps, %d swaptions; grid %d, block %d", npath, mf.n,
           mf.nmat, mf.nopt, grid, kThreads);

  workload::Rng rng(run.seed());
  std::vector<float> z(static_cast<size_t>(mf.nmat) * npath);  // z[step * npath + path]
  for (float& v : z) v = rng.normal();

  float *d_z, *d_v1, *d_v2, *d_deltas;
  CUDA_CHECK(cudaMalloc(&d_z, z.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_v1, npath * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_v2, npath * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_deltas, static_cast<size_t>(mf.n) * npath * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_z, z.data(), z.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(c_model, &mf, sizeof(mf)));
  pathcalc_portfolio<<<grid, kThreads>>>(npath, d_z, d_v1);
  CUDA_CHECK(cudaGetLastError());
  pathcalc_portfolio_greeks<<<grid, kThreads>>>(npath, d_z, d_v2, d_deltas);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> v1(npath), v2(npath), deltas(static_cast<size_t>(mf.n) * npath);
  CUDA_CHECK(cudaMemcpy(v1.data(), d_v1, npath * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(v2.data(), d_v2, npath * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(deltas.data(), d_deltas, deltas.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // The reference model: the same (float) parameters in double.
  Model<double> md{};
  md.n = mf.n, md.nmat = mf.nmat, md.nopt = mf.nopt, md.delta = mf.delta;
  for (int i = 0; i < mf.n; ++i) md.lambda[i] = mf.lambda[i], md.l0[i] = mf.l0[i];
  for (int i = 0; i < mf.nopt; ++i)
    md.maturity[i] = mf.maturity[i], md.swaprate[i] = mf.swaprate[i];

  // The CPU adjoint against central differences of the CPU valuation, on paths away from kinks.
  for (int path = 0, tested = 0; path < npath && tested < 4; ++path) {
    if (path_scale(md, &z[path], npath).kink < 1e-3) continue;
    double Lb[kMaxN];
    value_ref(md, &z[path], npath, Lb);
    for (int i = 0; i < md.n; ++i) {
      Model<double> up = md, down = md;
      const double h = 1e-7;
      up.l0[i] += h;
      down.l0[i] -= h;
      const double fd =
          (value_ref(up, &z[path], npath, nullptr) - value_ref(down, &z[path], npath, nullptr)) /
          (2 * h);
      if (!(std::fabs(fd - Lb[i]) <= 1e-5 * (1 + std::fabs(fd))))
        workload::fail("CPU adjoint, path %d delta %d: %.9g, finite difference %.9g", path, i,
                       Lb[i], fd);
    }
    ++tested;
  }

  // Float error: every step multiplies each rate by a rounded exponential of a rounded drift, so
  // after Nmat steps the rates are good to about Nmat * 4 float epsilons (~1e-5 at 40 steps).
  // B and S inherit that, and the payoffs 100 (1 - B - K S) cancel: a value is good to that
  // relative to its scale, sum |payoff terms| (PathScale::value), and a delta relative to the
  // adjoint of absolute values (PathScale::delta). Deltas of paths within 2 * rel of a swaption's
  // strike are not compared: the payoff's derivative jumps there, and a rounding may cross it.
  const double rel = mf.nmat * 4 * std::ldexp(1.0, -24);
  int skipped = 0;
  double worst_v = 0, worst_d = 0;
  for (int path = 0; path < npath; ++path) {
    double Lb[kMaxN];
    const double want = value_ref(md, &z[path], npath, Lb);
    const PathScale ps = path_scale(md, &z[path], npath);
    for (float got : {v1[path], v2[path]}) {
      const double err = std::fabs(got - want) / (rel * ps.value + 1e-30);
      worst_v = std::max(worst_v, err);
      if (!(err <= 1)) workload::fail("value of path %d: got %.9g, expected %.9g", path, got, want);
    }
    if (ps.kink < 2 * rel) {
      ++skipped;
      continue;
    }
    for (int i = 0; i < md.n; ++i) {
      const double got = deltas[static_cast<size_t>(i) * npath + path];
      const double err = std::fabs(got - Lb[i]) / (rel * ps.delta[i] + 1e-30);
      worst_d = std::max(worst_d, err);
      if (!(err <= 1))
        workload::fail("delta %d of path %d: got %.9g, expected %.9g", i, path, got, Lb[i]);
    }
  }
  run.info(
      "worst value error %.2f, worst delta error %.2f of the tolerance; %d paths near a kink "
      "not delta-checked",
      worst_v, worst_d, skipped);

  CUDA_CHECK(cudaFree(d_z));
  CUDA_CHECK(cudaFree(d_v1));
  CUDA_CHECK(cudaFree(d_v2));
  CUDA_CHECK(cudaFree(d_deltas));
  return run.pass();
}
