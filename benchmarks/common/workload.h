// workload.h - the conventions every program of the warpsim workload suite follows
// (benchmarks/README.md, "Writing a workload").
//
//   int main(int argc, char** argv) {
//     workload::Run run("bfs", argc, argv);          // parses the preset, names the program
//     const int nodes = run.pick(4096, 1 << 20, 1 << 24);   // tiny, small, large
//     workload::Rng rng(run.seed());
//     ...
//     CUDA_CHECK(cudaMalloc(&d, bytes));
//     kernel<<<grid, block>>>(...);
//     CUDA_CHECK(cudaGetLastError());
//     ...
//     run.check_close("cost", got.data(), want.data(), n, 1e-4, 1e-6);
//     return run.pass();                              // prints "PASS bfs", returns 0
//   }
//
// Command line: PROGRAM [tiny|small|large] [--seed N] [--quiet] [--OPTION N]... The preset
// defaults to small; a program that takes integer options of its own names them in the
// constructor (`Run run("copy-aligned", argc, argv, {"--interleave"})`) and reads them with
// run.option("--interleave", 256).
// Output: a few informative lines (sizes, kernel launches) unless --quiet, then exactly one line
// `PASS <name>` (exit status 0) or `FAIL <name>: <reason>` (exit status 1). Bad arguments print
// the usage and exit with status 2. A CUDA call that fails is a FAIL naming the call.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace workload {

enum class Preset { Tiny, Small, Large };

inline const char* preset_name(Preset p) {
  return p == Preset::Tiny ? "tiny" : p == Preset::Small ? "small" : "large";
}

// The program's name, for failure lines printed from anywhere (CUDA_CHECK).
inline const char*& program_name() {
  static const char* name = "workload";
  return name;
}

[[noreturn]] inline void vfail(const char* fmt, va_list ap) {
  std::printf("FAIL %s: ", program_name());
  std::vprintf(fmt, ap);
  std::printf("\n");
  std::fflush(stdout);
  std::exit(1);
}

// FAIL <name>: <printf-style reason>; exit status 1.
[[noreturn]] inline void fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline void fail(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(fmt, ap);
}

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess)
    fail("%s:%d: %s returned %s (%s)", file, line, call, cudaGetErrorName(err),
         cudaGetErrorString(err));
}

class Run {
 public:
  Run(const char* name, int argc, char** argv, std::initializer_list<const char*> options = {})
      : options_allowed_(options) {
    program_name() = name;
    name_ = name;
    for (int i = 1; i < argc; ++i) {
      const char* a = argv[i];
      if (!std::strcmp(a, "tiny")) preset_ = Preset::Tiny;
      else if (!std::strcmp(a, "small")) preset_ = Preset::Small;
      else if (!std::strcmp(a, "large")) preset_ = Preset::Large;
      else if (!std::strcmp(a, "--quiet")) quiet_ = true;
      else if (!std::strcmp(a, "--seed") && i + 1 < argc) seed_ = number(argv[0], a, argv[++i]);
      else if (allowed(a) && i + 1 < argc) options_.emplace_back(a, number(argv[0], a, argv[i + 1])), ++i;
      else usage(argv[0], a);
    }
  }

  // The value given for an option named in the constructor, else `fallback`.
  long long option(const char* name, long long fallback) const {
    for (const auto& [n, v] : options_)
      if (!std::strcmp(n, name)) return static_cast<long long>(v);
    return fallback;
  }

  Preset preset() const { return preset_; }
  const char* preset_text() const { return preset_name(preset_); }
  uint64_t seed() const { return seed_; }
  bool quiet() const { return quiet_; }

  // The value for the current preset.
  template <class T>
  T pick(T tiny, T small, T large) const {
    return preset_ == Preset::Tiny ? tiny : preset_ == Preset::Small ? small : large;
  }

  // An informative line (suppressed by --quiet): sizes, launch shapes.
  void info(const char* fmt, ...) const __attribute__((format(printf, 2, 3))) {
    if (quiet_) return;
    va_list ap;
    va_start(ap, fmt);
    std::printf("%s: ", name_);
    std::vprintf(fmt, ap);
    std::printf("\n");
    va_end(ap);
  }

  // |got - want| <= abs_tol + rel_tol * |want| for every element (NaN never passes).
  template <class T>
  void check_close(const char* what, const T* got, const T* want, size_t n, double rel_tol,
                   double abs_tol) const {
    for (size_t i = 0; i < n; ++i) {
      const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
      if (!(std::fabs(g - w) <= abs_tol + rel_tol * std::fabs(w)))
        fail("%s: first mismatch at index %zu: got %.9g, expected %.9g (rel %.1e, abs %.1e)",
             what, i, g, w, rel_tol, abs_tol);
    }
  }

  // Exact equality of integers (or anything comparable and convertible to long long).
  template <class T>
  void check_equal(const char* what, const T* got, const T* want, size_t n) const {
    for (size_t i = 0; i < n; ++i)
      if (!(got[i] == want[i]))
        fail("%s: first mismatch at index %zu: got %lld, expected %lld", what, i,
             static_cast<long long>(got[i]), static_cast<long long>(want[i]));
  }

  int pass() const {
    std::printf("PASS %s\n", name_);
    std::fflush(stdout);
    return 0;
  }

 private:
  bool allowed(const char* a) const {
    for (const char* o : options_allowed_)
      if (!std::strcmp(o, a)) return true;
    return false;
  }

  uint64_t number(const char* prog, const char* opt, const char* text) const {
    char* end = nullptr;
    const uint64_t v = std::strtoull(text, &end, 0);
    if (!*text || *end) usage(prog, opt);
    return v;
  }

  [[noreturn]] void usage(const char* prog, const char* bad) const {
    std::fprintf(stderr, "%s: bad argument '%s'\nusage: %s [tiny|small|large] [--seed N] [--quiet]",
                 name_, bad, prog);
    for (const char* o : options_allowed_) std::fprintf(stderr, " [%s N]", o);
    std::fprintf(stderr, "\n");
    std::exit(2);
  }

  const char* name_;
  std::vector<const char*> options_allowed_;
  std::vector<std::pair<const char*, uint64_t>> options_;
  Preset preset_ = Preset::Small;
  uint64_t seed_ = 0x5eed;
  bool quiet_ = false;
};

// A small deterministic generator (SplitMix64): the same seed gives the same inputs on every
// machine and compiler, which a standard-library distribution does not promise.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  uint32_t below(uint32_t n) { return static_cast<uint32_t>((next() >> 32) * n >> 32); }
  // Uniform in [lo, hi).
  float uniform(float lo = 0.0f, float hi = 1.0f) {
    return lo + (hi - lo) * static_cast<float>((next() >> 40) * (1.0 / 16777216.0));
  }
  double uniform_double(double lo = 0.0, double hi = 1.0) {
    return lo + (hi - lo) * static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
  }
  // Standard normal (Box-Muller).
  float normal() {
    double u1 = uniform_double(), u2 = uniform_double();
    if (u1 < 1e-300) u1 = 1e-300;
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }

 private:
  uint64_t state_;
};

inline unsigned ceil_div(size_t a, size_t b) { return static_cast<unsigned>((a + b - 1) / b); }

}  // namespace workload

// A CUDA call that must succeed; otherwise FAIL <name>: <file>:<line>: <call> returned <error>.
#define CUDA_CHECK(call) ::workload::check_cuda((call), #call, __FILE__, __LINE__)
