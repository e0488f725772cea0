#pragma once
// Files warpsim writes for the user (statistics, power traces, results
// tables), written as well-behaved Unix tools write them:
//  - the path is checked before any work starts: a directory, a device, a
//    FIFO, a file that cannot be written, a missing directory, or a file
//    warpsim must not replace (the program being run) is refused with a
//    clear message;
//  - relative paths are resolved against warpsim's working directory, once
//    (the program may change its own);
//  - the content goes to a temporary file in the target's directory, renamed
//    over the target only when complete, so a reader never sees half a file
//    and an interrupted run leaves the old file as it was;
//  - the temporary file is removed on every other way out.
#include <optional>
#include <string>
#include <vector>

namespace warpsim::tools {

// A file in a directory, removed when this object goes (unless kept).
class TemporaryFile {
 public:
  // Creates `<dir>/<prefix>XXXXXX`; nullopt with `why` when it cannot.
  static std::optional<TemporaryFile> create(const std::string& dir, const std::string& prefix, std::string& why);
  TemporaryFile(TemporaryFile&& other) noexcept;
  TemporaryFile& operator=(TemporaryFile&& other) noexcept;
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile();

  const std::string& path() const { return path_; }
  void remove();
  // The file is no longer ours to remove (it was renamed into place).
  void release() { path_.clear(); }

 private:
  explicit TemporaryFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// The directory temporary files go to: $TMPDIR, or /tmp.
std::string temporary_directory();

class OutputFile {
 public:
  // Checks that `path` may be written and creates the temporary file beside
  // it; nullopt with `why` (one sentence naming the path) when it may not.
  // `protect`: files that must never be replaced (the program being run).
  static std::optional<OutputFile> prepare(const std::string& path, std::string& why,
                                           const std::vector<std::string>& protect = {});

  const std::string& target() const { return target_; }      // absolute
  const std::string& temp_path() const { return temp_.path(); }  // write here
  // Writes `content` to the temporary file and renames it into place.
  bool write(const std::string& content, std::string& why);
  // Renames the temporary file (already written) into place.
  bool commit(std::string& why);
  void discard() { temp_.remove(); }

 private:
  OutputFile(std::string target, TemporaryFile temp) : target_(std::move(target)), temp_(std::move(temp)) {}
  std::string target_;
  TemporaryFile temp_;
};

}  // namespace warpsim::tools
