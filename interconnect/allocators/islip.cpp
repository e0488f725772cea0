// `islip`: McKeown's iSLIP (N. McKeown, "The iSLIP scheduling algorithm for
// input-queued switches", IEEE/ACM Transactions on Networking, 1999).
//
// Each of `iterations` rounds, among the inputs and outputs not matched in
// an earlier round: every requested output grants the requesting input at
// or after its grant pointer; every granted input accepts the granting
// output at or after its accept pointer. Both pointers move one past the
// partner only for grants accepted in the first round, which is what keeps
// iSLIP free of starvation and desynchronises the outputs' pointers.
//
// Per round the work is one pass over the requests and one over the grants;
// the per-port scratch is reset as it is used, so nothing is cleared per call.
#include <memory>

#include "interconnect/allocators/allocator.h"

namespace warpsim::interconnect {
namespace {

class Islip final : public Allocator {
 public:
  explicit Islip(const AllocatorConfig& config)
      : Allocator(config),
        iterations_(config.iterations),
        grant_ptr_(config.outputs, 0),
        accept_ptr_(config.inputs, 0),
        grant_(config.outputs, kNone),
        accept_(config.inputs, kNone),
        in_matched_(config.inputs, 0),
        out_matched_(config.outputs, 0) {
    granted_outs_.reserve(config.outputs);
    granting_ins_.reserve(config.inputs);
  }

  void allocate(std::span<const AllocatorRequest> requests, uint64_t,
                std::vector<uint32_t>& grants) override {
    grants.clear();
    if (requests.size() == 1) {
      // One request: the first round grants and accepts it (the common case
      // in a lightly loaded router), pointers moving as they would.
      const AllocatorRequest& q = requests[0];
      grants.push_back(0);
      accept_ptr_[q.input] = (q.output + 1) % outputs_;
      grant_ptr_[q.output] = (q.input + 1) % inputs_;
      return;
    }
    for (uint32_t round = 0; round < iterations_; ++round) {
      // Grant: each unmatched requested output picks the requester nearest
      // its grant pointer.
      granted_outs_.clear();
      for (uint32_t r = 0; r < requests.size(); ++r) {
        const AllocatorRequest& q = requests[r];
        if (in_matched_[q.input] || out_matched_[q.output]) continue;
        uint32_t& g = grant_[q.output];
        const uint32_t ptr = grant_ptr_[q.output];
        if (g == kNone) {
          granted_outs_.push_back(q.output);
          g = r;
        } else if (distance(ptr, q.input, inputs_) < distance(ptr, requests[g].input, inputs_)) {
          g = r;
        }
      }
      if (granted_outs_.empty()) break;
      // Accept: each granted input picks the grant nearest its accept pointer.
      granting_ins_.clear();
      for (uint32_t out : granted_outs_) {
        const uint32_t r = grant_[out];
        grant_[out] = kNone;
        const uint32_t in = requests[r].input;
        uint32_t& a = accept_[in];
        const uint32_t ptr = accept_ptr_[in];
        if (a == kNone) {
          granting_ins_.push_back(in);
          a = r;
        } else if (distance(ptr, out, outputs_) < distance(ptr, requests[a].output, outputs_)) {
          a = r;
        }
      }
      for (uint32_t in : granting_ins_) {
        const uint32_t r = accept_[in];
        accept_[in] = kNone;
        const AllocatorRequest& q = requests[r];
        grants.push_back(r);
        in_matched_[q.input] = 1;
        out_matched_[q.output] = 1;
        if (round == 0) {  // McKeown: pointers move only on first-round accepts
          accept_ptr_[q.input] = (q.output + 1) % outputs_;
          grant_ptr_[q.output] = (q.input + 1) % inputs_;
        }
      }
    }
    for (uint32_t r : grants) {
      in_matched_[requests[r].input] = 0;
      out_matched_[requests[r].output] = 0;
    }
  }

 private:
  uint32_t iterations_;
  std::vector<uint32_t> grant_ptr_;   // per output
  std::vector<uint32_t> accept_ptr_;  // per input
  // Scratch, reused every call.
  std::vector<uint32_t> grant_;   // per output: request granted this round
  std::vector<uint32_t> accept_;  // per input: request accepted this round
  std::vector<uint8_t> in_matched_, out_matched_;  // bytes, not vector<bool>: read per request
  std::vector<uint32_t> granted_outs_, granting_ins_;
};

}  // namespace

std::unique_ptr<Allocator> make_islip_allocator(const AllocatorConfig& config) {
  return std::make_unique<Islip>(config);
}

}  // namespace warpsim::interconnect
