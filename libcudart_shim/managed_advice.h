#pragma once
// What cudaMemAdvise and cudaMemPrefetchAsync said about ranges of managed
// memory, so cudaMemRangeGetAttribute(s) can answer. Managed memory has one
// copy here (visible to host and device at once), so advice never moves
// data; but programs read their advice back, and libraries base decisions
// on it. Locations are CUDA device ordinals: 0 (the GPU), -1 (the host,
// cudaCpuDeviceId), -2 (none, cudaInvalidDeviceId).
#include <cstdint>
#include <map>
#include <vector>

namespace warpsim::cudart {

inline constexpr int kCpuDevice = -1;
inline constexpr int kInvalidDevice = -2;

struct RangeAdvice {
  bool read_mostly = false;
  int preferred = kInvalidDevice;
  bool accessed_by_gpu = false;
  bool accessed_by_cpu = false;
  int last_prefetch = kInvalidDevice;
  friend bool operator==(const RangeAdvice&, const RangeAdvice&) = default;
};

class ManagedAdvice {
 public:
  // cudaMemAdvise: `advice` is cudaMemoryAdvise (1..6), `location` 0 or -1.
  void advise(uint64_t start, uint64_t end, int advice, int location);
  void prefetched(uint64_t start, uint64_t end, int location);
  // Forgets [start, end) (the allocation was freed).
  void forget(uint64_t start, uint64_t end);
  void clear() { segments_.clear(); }

  // Queries over [start, end), as cudaMemRangeGetAttribute defines them:
  // read-mostly only if every page is; a location only if every page has the
  // same one (else kInvalidDevice); the devices every page is accessed by.
  bool read_mostly(uint64_t start, uint64_t end) const;
  int preferred(uint64_t start, uint64_t end) const;
  int last_prefetch(uint64_t start, uint64_t end) const;
  std::vector<int> accessed_by(uint64_t start, uint64_t end) const;

 private:
  struct Segment {
    uint64_t end;
    RangeAdvice advice;
  };
  // Splits segments so that `at` is a boundary.
  void split(uint64_t at);
  // Calls f on every part of [start, end): advised segments and the gaps
  // between them (default advice).
  template <typename F>
  void for_each(uint64_t start, uint64_t end, F&& f) const;
  template <typename F>
  void update(uint64_t start, uint64_t end, F&& f);

  std::map<uint64_t, Segment> segments_;  // start -> segment, disjoint
};

}  // namespace warpsim::cudart
