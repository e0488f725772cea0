#pragma once
// The live line at the bottom of a terminal (`bench`, `sweep`): redrawn in
// place, cleared before ordinary output, and silent when stderr is not a
// terminal (logs get the finished lines only).
#include <fmt/format.h>
#include <unistd.h>

#include <string>

namespace warpsim::tools {

class StatusLine {
 public:
  StatusLine() : tty_(::isatty(2)) {}

  bool on_terminal() const { return tty_; }

  void show(std::string line, size_t width) {
    if (!tty_) return;
    if (line.size() > width) line = line.substr(0, width - 3) + "...";
    fmt::print(stderr, "\r\033[K{}", line);
    shown_ = true;
  }

  void clear() {
    if (tty_ && shown_) fmt::print(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  bool tty_;
  bool shown_ = false;
};

}  // namespace warpsim::tools
