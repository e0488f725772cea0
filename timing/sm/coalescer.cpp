#include "timing/sm/coalescer.h"

#include <algorithm>
#include <bit>

#include "common/invariant.h"

namespace warpsim::timing {

namespace {

// Bits first..last (inclusive) set; last < 32.
uint32_t bit_range(uint32_t first, uint32_t last) {
  const uint64_t upto_last = (uint64_t{2} << last) - 1;
  const uint64_t below_first = (uint64_t{1} << first) - 1;
  return static_cast<uint32_t>(upto_last & ~below_first);
}

// Every word an access covers, appended to `words`. A zero-size access is
// treated as one byte so its lane still counts.
void append_words(std::span<const LaneAccess> accesses, uint32_t word_bytes,
                  std::vector<uint64_t>& words) {
  for (const LaneAccess& a : accesses) {
    const uint64_t first = a.address / word_bytes;
    const uint64_t last = (a.address + std::max<uint32_t>(a.size, 1) - 1) / word_bytes;
    for (uint64_t w = first; w <= last; ++w) words.push_back(w);
  }
}

// Scratch reused across calls (grows to the largest warp access once), so
// the per-instruction paths do not allocate.
std::vector<uint64_t>& scratch_words() {
  thread_local std::vector<uint64_t> words;
  words.clear();
  return words;
}

}  // namespace

void coalesce(std::span<const LaneAccess> accesses, const CoalescerConfig& config,
              std::vector<CoalescedRequest>& out) {
  out.clear();
  const uint32_t line_bytes = config.line_bytes;
  const uint32_t sector_bytes = config.sector_bytes;
  WARPSIM_INVARIANT(std::has_single_bit(line_bytes) && std::has_single_bit(sector_bytes) &&
                        sector_bytes <= line_bytes && line_bytes / sector_bytes <= 32,
                    "coalescer line/sector geometry");
  const uint64_t line_mask = ~uint64_t{line_bytes - 1};
  const uint32_t part_bytes = std::max(1u, line_bytes / 32);

  for (const LaneAccess& a : accesses) {
    WARPSIM_INVARIANT(a.lane < 32, "lane index within a warp");
    const uint64_t begin = a.address;
    const uint64_t end = a.address + std::max<uint32_t>(a.size, 1);  // exclusive
    // An access crossing a line boundary is split across the lines it covers.
    for (uint64_t line = begin & line_mask; line < end; line += line_bytes) {
      const uint64_t lo = std::max(begin, line) - line;
      const uint64_t hi = std::min(end, line + line_bytes) - 1 - line;
      const uint32_t sectors = bit_range(static_cast<uint32_t>(lo / sector_bytes),
                                         static_cast<uint32_t>(hi / sector_bytes));
      const uint32_t parts =
          bit_range(static_cast<uint32_t>(lo / part_bytes), static_cast<uint32_t>(hi / part_bytes));
      // Search from the back: consecutive lanes usually share the last line.
      auto it = std::find_if(out.rbegin(), out.rend(),
                             [line](const CoalescedRequest& r) { return r.line == line; });
      if (it == out.rend()) {
        out.push_back({line, sectors, 1u << a.lane, 0, parts});
      } else {
        it->sector_mask |= sectors;
        it->parts |= parts;
        it->lane_mask |= 1u << a.lane;
      }
    }
  }
  for (CoalescedRequest& r : out)
    r.bytes = static_cast<uint32_t>(std::popcount(r.sector_mask)) * sector_bytes;
}

uint32_t shared_access_cycles(std::span<const LaneAccess> accesses, uint32_t banks,
                              uint32_t bank_width) {
  WARPSIM_INVARIANT(banks > 0 && bank_width > 0, "shared memory bank geometry");
  // Fast path: a few distinct words per bank, kept in a small table per
  // bank (the common warp access); more than kPerBank falls back to sorting.
  constexpr uint32_t kMaxBanks = 64, kPerBank = 8;
  if (banks <= kMaxBanks) {
    uint64_t seen[kMaxBanks][kPerBank];
    uint8_t count[kMaxBanks] = {};
    uint32_t worst = 0;
    bool overflow = false;
    for (const LaneAccess& a : accesses) {
      const uint64_t first = a.address / bank_width;
      const uint64_t last = (a.address + std::max<uint32_t>(a.size, 1) - 1) / bank_width;
      for (uint64_t w = first; w <= last && !overflow; ++w) {
        const uint32_t b = static_cast<uint32_t>(w % banks);
        const uint32_t n = count[b];
        bool found = false;
        for (uint32_t i = 0; i < n && !found; ++i) found = seen[b][i] == w;
        if (found) continue;  // broadcast
        if (n == kPerBank) {
          overflow = true;
          break;
        }
        seen[b][n] = w;
        count[b] = static_cast<uint8_t>(n + 1);
        worst = std::max(worst, n + 1);
      }
      if (overflow) break;
    }
    if (!overflow) return worst;
  }
  std::vector<uint64_t>& words = scratch_words();
  append_words(accesses, bank_width, words);
  // Group by bank, then by word: a bank's cycles are its distinct words.
  std::sort(words.begin(), words.end(), [banks](uint64_t a, uint64_t b) {
    const uint64_t ba = a % banks, bb = b % banks;
    return ba != bb ? ba < bb : a < b;
  });
  uint32_t worst = 0, run = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i == 0 || words[i] % banks != words[i - 1] % banks)
      run = 1;
    else if (words[i] != words[i - 1])
      ++run;  // same bank, another word: one more cycle; same word: broadcast
    worst = std::max(worst, run);
  }
  return worst;
}

uint32_t distinct_words(std::span<const LaneAccess> accesses, uint32_t word_bytes) {
  WARPSIM_INVARIANT(word_bytes > 0, "word size");
  std::vector<uint64_t>& words = scratch_words();
  append_words(accesses, word_bytes, words);
  std::sort(words.begin(), words.end());
  return static_cast<uint32_t>(std::unique(words.begin(), words.end()) - words.begin());
}

}  // namespace warpsim::timing
