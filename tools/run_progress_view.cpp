#include "tools/run_progress_view.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <new>

#include "tools/stats_file.h"

namespace warpsim::tools {

namespace {

std::string si(double v) {
  if (v >= 1e9) return fmt::format("{:.2f} G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f} M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.1f} k", v / 1e3);
  return fmt::format("{:.0f} ", v);
}

std::string duration(double s) {
  if (s < 60) return fmt::format("{:.0f} s", s);
  const int whole = static_cast<int>(s);
  if (s < 3600) return fmt::format("{} min {:02} s", whole / 60, whole % 60);
  return fmt::format("{:.1f} h", s / 3600);
}

size_t terminal_width() {
  winsize w{};
  if (::ioctl(2, TIOCGWINSZ, &w) == 0 && w.ws_col >= 20) return w.ws_col;
  return 100;
}

}  // namespace

RunProgressView::RunProgressView(bool live, double interval) : live_(live && ::isatty(2)), interval_(interval) {
  // An anonymous shared file: nothing on disk to clean up, and the program
  // inherits it across exec.
  fd_ = ::memfd_create("warpsim-progress", 0);
  if (fd_ < 0) return;
  if (::ftruncate(fd_, sizeof(RunProgressPage)) != 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  void* p = ::mmap(nullptr, sizeof(RunProgressPage), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  page_ = new (p) RunProgressPage();
}

RunProgressView::~RunProgressView() {
  if (page_ != nullptr) ::munmap(page_, sizeof(RunProgressPage));
  if (fd_ >= 0) ::close(fd_);
}

std::string RunProgressView::describe() const {
  if (page_ == nullptr || page_->in_launch.load(std::memory_order_acquire) == 0) return {};
  const functional::LaunchMonitor& m = page_->monitor;
  const uint64_t total = m.ctas_total.load(std::memory_order_relaxed);
  const uint64_t done = std::min(m.ctas_done.load(std::memory_order_relaxed), total);
  const uint64_t cycles = m.cycles.load(std::memory_order_relaxed);
  const uint64_t insts = m.thread_instructions.load(std::memory_order_relaxed);
  std::string name = demangle(page_->kernel_name());
  if (const size_t paren = name.find('('); paren != std::string::npos && paren > 0) name.resize(paren);
  if (name.size() > 40) name = name.substr(0, 37) + "...";
  const double elapsed = std::chrono::duration<double>(Clock::now() - launch_seen_).count();
  std::string s = fmt::format("{} (launch {}): CTAs {}/{}", name, page_->launches.load(std::memory_order_relaxed),
                              done, total);
  if (cycles != 0)
    s += fmt::format(", {}cycles, IPC {:.1f}", si(static_cast<double>(cycles)),
                     static_cast<double>(insts) / static_cast<double>(cycles));
  else
    s += fmt::format(", {}thread-inst", si(static_cast<double>(insts)));
  s += fmt::format(", {}", duration(elapsed));
  if (done > 0 && done < total)
    s += fmt::format(", ~{} left", duration(elapsed * static_cast<double>(total - done) / static_cast<double>(done)));
  return s;
}

void RunProgressView::poll() {
  if (page_ == nullptr) return;
  const auto now = Clock::now();
  const bool running = page_->in_launch.load(std::memory_order_acquire) != 0;
  const uint64_t launch = page_->launches.load(std::memory_order_relaxed);
  if (running && launch != launch_) {
    launch_ = launch;
    launch_seen_ = now;
  }
  if (live_) {
    // Only launches that take a while get a line; the runtime clears it
    // when the launch returns (it may print at once).
    if (running && now - launch_seen_ > std::chrono::seconds(1)) {
      if (now - last_draw_ >= std::chrono::milliseconds(250)) {
        last_draw_ = now;
        page_->line_shown.store(1);
        line_.show("warpsim: " + describe(), terminal_width() - 1);
      }
    } else if (!running && page_->line_shown.exchange(0) != 0) {
      line_.clear();
    }
  }
  if (interval_ > 0 && std::chrono::duration<double>(now - last_print_).count() >= interval_) {
    last_print_ = now;
    const double t = std::chrono::duration<double>(now - start_).count();
    const std::string what = running ? describe() : fmt::format("host code, {} launch{} so far", launch,
                                                                launch == 1 ? "" : "es");
    fmt::print(stderr, "warpsim: [{}] {}\n", duration(t), what);
  }
}

void RunProgressView::finish() {
  if (page_ != nullptr && page_->line_shown.exchange(0) != 0) line_.clear();
}

}  // namespace warpsim::tools
