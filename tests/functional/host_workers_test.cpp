// The host threads of the parallel grid executor: a job runs on exactly the
// threads asked for, all at once, the caller among them; the workers are
// kept from job to job; a job started from inside a running one (a grid
// launched by a grid) gets threads of its own instead of waiting forever.
#include "functional/host_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

namespace warpsim::functional {
namespace {

// The threads that ran one job, after checking that all `n` were inside it at
// the same time (each waits, up to 10 s, for the others to arrive).
std::set<std::thread::id> run_job(uint32_t n) {
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<uint32_t> arrived{0};
  std::atomic<bool> all_at_once{true};
  run_on_host_threads(n, [&] {
    {
      std::lock_guard lock(mu);
      ids.insert(std::this_thread::get_id());
    }
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (arrived.load() < n)
      if (std::chrono::steady_clock::now() > deadline) {
        all_at_once = false;
        break;
      }
  });
  EXPECT_TRUE(all_at_once) << n << " threads were not all running at once";
  EXPECT_EQ(arrived.load(), n);
  return ids;
}

TEST(HostWorkers, RunsOnExactlyTheThreadsAskedForCallerIncluded) {
  for (uint32_t n : {1u, 2u, 3u, 5u}) {
    std::set<std::thread::id> ids = run_job(n);
    EXPECT_EQ(ids.size(), n);
    EXPECT_TRUE(ids.count(std::this_thread::get_id()));
  }
}

TEST(HostWorkers, KeepsItsThreadsFromJobToJob) {
  std::set<std::thread::id> first = run_job(4);
  std::set<std::thread::id> second = run_job(4);
  EXPECT_EQ(first, second);
  std::set<std::thread::id> fewer = run_job(2);  // a subset of the same workers
  for (const auto& id : fewer) EXPECT_TRUE(first.count(id));
}

TEST(HostWorkers, AJobInsideAJobGetsThreadsOfItsOwn) {
  std::atomic<uint32_t> inner_calls{0};
  run_on_host_threads(2, [&] {
    run_on_host_threads(3, [&] { inner_calls.fetch_add(1); });
  });
  EXPECT_EQ(inner_calls.load(), 6u);  // 2 outer threads x 3 inner
}

}  // namespace
}  // namespace warpsim::functional
