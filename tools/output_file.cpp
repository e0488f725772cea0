#include "tools/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace warpsim::tools {

namespace fs = std::filesystem;

std::optional<TemporaryFile> TemporaryFile::create(const std::string& dir, const std::string& prefix,
                                                   std::string& why) {
  std::string tmpl = (fs::path(dir) / (prefix + "XXXXXX")).string();
  const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    why = fmt::format("cannot create a file in {}: {}", dir, std::strerror(errno));
    return std::nullopt;
  }
  ::close(fd);
  return TemporaryFile(tmpl);
}

TemporaryFile::TemporaryFile(TemporaryFile&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

TemporaryFile& TemporaryFile::operator=(TemporaryFile&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TemporaryFile::~TemporaryFile() { remove(); }

void TemporaryFile::remove() {
  if (!path_.empty()) ::unlink(path_.c_str());
  path_.clear();
}

std::string temporary_directory() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

namespace {

bool same_file(const struct stat& a, const std::string& path) {
  struct stat b {};
  return ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

std::optional<OutputFile> OutputFile::prepare(const std::string& path, std::string& why,
                                              const std::vector<std::string>& protect) {
  if (path.empty()) {
    why = "an empty file name";
    return std::nullopt;
  }
  if (path[0] == '-') {
    // `--stats --` or a forgotten value: never a file name anyone meant.
    why = fmt::format("'{}' looks like an option, not a file name (write ./{} for a file whose name starts "
                      "with '-')", path, path);
    return std::nullopt;
  }
  std::error_code ec;
  fs::path target = fs::absolute(path, ec);
  if (ec) {
    why = fmt::format("{}: {}", path, ec.message());
    return std::nullopt;
  }
  // A symbolic link is followed: the file it names is the one replaced.
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    fs::path resolved = fs::weakly_canonical(target, ec);
    if (ec) {
      why = fmt::format("{}: cannot follow the symbolic link: {}", path, ec.message());
      return std::nullopt;
    }
    target = resolved;
  }
  if (target.filename().empty() || path.back() == '/') {
    why = fmt::format("{} names a directory, not a file", path);
    return std::nullopt;
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      why = fmt::format("{} is a directory", path);
      return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
      why = fmt::format("{} exists and is not a regular file (a device, FIFO or socket); warpsim replaces only "
                        "regular files", path);
      return std::nullopt;
    }
    for (const std::string& p : protect)
      if (same_file(st, p)) {
        why = fmt::format("{} is {}, which warpsim must not overwrite", path, p);
        return std::nullopt;
      }
    if (::access(target.c_str(), W_OK) != 0) {
      why = fmt::format("{} cannot be written: {}", path, std::strerror(errno));
      return std::nullopt;
    }
  } else if (errno != ENOENT) {
    why = fmt::format("{}: {}", path, std::strerror(errno));
    return std::nullopt;
  }
  const fs::path dir = target.parent_path();
  struct stat ds {};
  if (::stat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode)) {
    why = fmt::format("{}: the directory {} does not exist", path, dir.string());
    return std::nullopt;
  }
  std::string err;
  auto temp = TemporaryFile::create(dir.string(), "." + target.filename().string() + ".warpsim-", err);
  if (!temp) {
    why = fmt::format("{} cannot be written: {}", path, err);
    return std::nullopt;
  }
  // The permissions a newly created file would get (mkstemp makes 0600), or
  // those of the file it replaces.
  mode_t mode = 0;
  if (::stat(target.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::chmod(temp->path().c_str(), mode);
  return OutputFile(target.string(), std::move(*temp));
}

bool OutputFile::write(const std::string& content, std::string& why) {
  const int fd = ::open(temp_path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    why = fmt::format("cannot write {}: {}", temp_path(), std::strerror(errno));
    return false;
  }
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = fmt::format("cannot write {}: {}", target_, std::strerror(errno));
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    why = fmt::format("cannot write {}: {}", target_, std::strerror(errno));
    return false;
  }
  return commit(why);
}

bool OutputFile::commit(std::string& why) {
  if (::rename(temp_path().c_str(), target_.c_str()) != 0) {
    why = fmt::format("cannot replace {}: {}", target_, std::strerror(errno));
    return false;
  }
  temp_.release();
  return true;
}

}  // namespace warpsim::tools
