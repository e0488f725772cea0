#include "tools/install_paths.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <vector>

namespace warpsim::tools {

namespace fs = std::filesystem;

namespace {

// The first of `candidates` that exists as a regular file, canonical.
std::string first_file(const std::vector<fs::path>& candidates) {
  for (const fs::path& p : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return {};
}

// Whether `python` runs and imports matplotlib (quietly).
bool has_matplotlib(const std::string& python) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
    }
    ::execlp(python.c_str(), python.c_str(), "-c", "import matplotlib", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (pid < 0) return false;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

std::string self_path() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

fs::path executable_dir() {
  const std::string self = self_path();
  return self.empty() ? fs::path() : fs::path(self).parent_path();
}

std::string find_shim(int major) {
  const std::string file = major == 11 ? "libcudart.so.11.0" : fmt::format("libcudart.so.{}", major);
  const std::string sub = fmt::format("cuda{}", major);
  std::vector<fs::path> candidates;
  if (const char* d = std::getenv("WARPSIM_SHIM_DIR")) candidates.push_back(fs::path(d) / sub / file);
  candidates.push_back(executable_dir() / ".." / "lib" / "warpsim" / sub / file);  // cmake --install
#ifdef WARPSIM_SHIM_BUILD_DIR
  candidates.push_back(fs::path(WARPSIM_SHIM_BUILD_DIR) / sub / file);
#endif
  return first_file(candidates);
}

std::string find_profiler() {
  std::vector<fs::path> candidates = {executable_dir() / ".." / "lib" / "warpsim" / "libwarpsim_profile.so"};
#ifdef WARPSIM_SHIM_BUILD_DIR
  candidates.push_back(fs::path(WARPSIM_SHIM_BUILD_DIR) / "libwarpsim_profile.so");
#endif
  return first_file(candidates);
}

std::string find_suites_file(const std::string& given) {
  if (!given.empty()) return given;
  const fs::path exe_dir = executable_dir();
  return first_file({exe_dir / ".." / "benchmarks" / "suites.toml",
                     exe_dir / ".." / "share" / "warpsim" / "benchmarks" / "suites.toml"});
}

std::string find_python_program() {
  std::vector<fs::path> candidates;
  if (const char* d = std::getenv("WARPSIM_PYTHON_DIR")) candidates.push_back(fs::path(d) / "warpsim_py" / "main.py");
  candidates.push_back(executable_dir() / ".." / "share" / "warpsim" / "python" / "warpsim_py" / "main.py");
#ifdef WARPSIM_SOURCE_DIR
  candidates.push_back(fs::path(WARPSIM_SOURCE_DIR) / "tools" / "python" / "warpsim_py" / "main.py");
#endif
  return first_file(candidates);
}

std::string find_python_interpreter(std::string& why) {
  std::vector<std::string> candidates;
  if (const char* p = std::getenv("WARPSIM_PYTHON"); p && *p) candidates.push_back(p);
  candidates.push_back("/usr/bin/python3");
  candidates.push_back("python3");
  for (const std::string& p : candidates)
    if (has_matplotlib(p)) return p;
  why = "no Python 3 with matplotlib found (tried $WARPSIM_PYTHON, /usr/bin/python3 and python3 on PATH); "
        "install it (Debian: apt-get install python3-matplotlib) or name one with WARPSIM_PYTHON";
  return {};
}

std::vector<std::string> study_search_path() {
  std::vector<std::string> dirs;
  if (const char* d = std::getenv("WARPSIM_STUDIES_DIR"); d && *d) dirs.push_back(d);
  dirs.push_back((executable_dir() / ".." / "share" / "warpsim" / "studies").lexically_normal().string());
#ifdef WARPSIM_SOURCE_DIR
  dirs.push_back((fs::path(WARPSIM_SOURCE_DIR) / "studies").string());
#endif
  return dirs;
}

std::string find_study_dir(const std::string& name) {
  std::error_code ec;
  if (fs::is_regular_file(fs::path(name) / "study.toml", ec)) return fs::weakly_canonical(name, ec).string();
  if (name.find('/') != std::string::npos) return {};
  for (const std::string& dir : study_search_path())
    if (fs::is_regular_file(fs::path(dir) / name / "study.toml", ec))
      return fs::weakly_canonical(fs::path(dir) / name, ec).string();
  return {};
}

}  // namespace warpsim::tools
