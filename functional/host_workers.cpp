#include "functional/host_workers.h"

#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace warpsim::functional {
namespace {

// Workers that sleep between jobs. A job is a generation number, the work
// and how many workers take part; each takes part once per generation.
class Workers {
 public:
  // Runs `work` on `helpers` workers (adding workers as needed) and on the
  // calling thread; false, having run nothing, when another job holds them.
  bool try_run(uint32_t helpers, const std::function<void()>& work) {
    std::unique_lock busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard lock(mu_);
      while (threads_.size() < helpers) {
        threads_.emplace_back([this, index = threads_.size()] { loop(index); });
        threads_.back().detach();  // never joined: they sleep until the process ends
      }
      work_ = &work;
      wanted_ = helpers;
      pending_ = helpers;
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock lock(mu_);
    done_.wait(lock, [this] { return pending_ == 0; });
    work_ = nullptr;
    return true;
  }

 private:
  void loop(size_t index) {
    uint64_t seen = 0;
    std::unique_lock lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (index >= wanted_) continue;  // this job needs fewer workers
      const std::function<void()>* work = work_;
      lock.unlock();
      (*work)();
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex busy_;  // held by the job that uses the workers
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void()>* work_ = nullptr;
  uint64_t generation_ = 0;
  size_t wanted_ = 0;
  size_t pending_ = 0;
};

Workers& workers() {
  // Never destroyed (threads may still sleep on it at exit); a forked child,
  // which has none of the parent's threads, makes its own.
  static Workers* w = nullptr;
  static pid_t owner = 0;
  static std::mutex mu;
  std::lock_guard lock(mu);
  if (w == nullptr || owner != getpid()) {
    w = new Workers();
    owner = getpid();
  }
  return *w;
}

}  // namespace

void run_on_host_threads(uint32_t threads, const std::function<void()>& work) {
  if (threads <= 1) {
    work();
    return;
  }
  if (workers().try_run(threads - 1, work)) return;
  std::vector<std::thread> own;
  own.reserve(threads - 1);
  for (uint32_t t = 1; t < threads; ++t) own.emplace_back(work);
  work();
  for (auto& t : own) t.join();
}

}  // namespace warpsim::functional
