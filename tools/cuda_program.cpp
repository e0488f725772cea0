// Finding a CUDA program and the CUDA runtime it loads (tools/cuda_program.h).
#include "tools/cuda_program.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "tools/host_binary.h"

namespace warpsim::tools {

namespace fs = std::filesystem;

// PROGRAM as execvp would find it; empty with `why` when there is none.
std::string resolve_program(const std::string& program, std::string& why) {
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), F_OK) != 0) {
      why = fmt::format("{}: no such file", program);
      return {};
    }
    if (fs::is_directory(program) || ::access(program.c_str(), X_OK) != 0) {
      why = fmt::format("{}: not an executable program", program);
      return {};
    }
    return program;
  }
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir.assign(1, '.');
    fs::path candidate = fs::path(dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate.string();
    start = end + 1;
  }
  why = fmt::format("{}: program not found (not a path, and not on PATH)", program);
  return {};
}

// The shared libraries the dynamic loader would load for `program`,
// transitively (`ld.so --list`: the loader resolves them without running the
// program). Run without a shell, so no file name can be misread.
std::vector<std::string> loaded_libraries(const std::string& program) {
  std::vector<std::string> libs;
  const char* loader = nullptr;
  for (const char* l : {"/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"})
    if (::access(l, X_OK) == 0) {
      loader = l;
      break;
    }
  int fds[2];
  if (loader == nullptr || ::pipe(fds) != 0) return libs;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) ::dup2(devnull, 2);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execl(loader, loader, "--list", program.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  if (pid > 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    const size_t b = line.find_first_not_of(" \t");
    if (b != std::string::npos) {
      const size_t e = line.find_first_of(" \t", b);
      libs.push_back(line.substr(b, e == std::string::npos ? e : e - b));
    }
    start = end + 1;
  }
  return libs;
}

std::string rebuild_advice() {
  return "link it with the shared CUDA runtime: `nvcc -cudart shared ...` (or -lcudart when "
         "linking with g++/clang++; in CMake set_target_properties(<target> PROPERTIES "
         "CUDA_RUNTIME_LIBRARY Shared) or CMAKE_CUDA_RUNTIME_LIBRARY=Shared)";
}

// Which libcudart the program needs; 0 with a message when it cannot run.
int detect_cudart(const std::string& program, std::string& why) {
  std::string error;
  auto bin = HostBinary::open(program, error);
  if (!bin) {
    why = fmt::format("{}: cannot inspect it ({}); give the CUDA runtime major with --cudart", program, error);
    return 0;
  }
  if (auto lib = find_cudart(bin->needed())) {
    if (int m = cudart_major(*lib)) return m;
    why = fmt::format("{} needs {}, a CUDA runtime warpsim does not provide (CUDA 11, 12 and 13 "
                      "are supported)", program, *lib);
    return 0;
  }
  if (bin->defines("__cudaRegisterFatBinary") || bin->defines("cudaMalloc") || bin->has_device_code()) {
    why = fmt::format("{} is linked with the static CUDA runtime (nvcc's default), which talks to "
                      "the GPU driver directly and cannot run on warpsim; {}", program,
                      rebuild_advice());
    return 0;
  }
  // A shared library of the program may use CUDA.
  if (auto lib = find_cudart(loaded_libraries(program))) {
    if (int m = cudart_major(*lib)) return m;
    why = fmt::format("{} loads {}, a CUDA runtime warpsim does not provide", program, *lib);
    return 0;
  }
  why = fmt::format("{} does not use the CUDA runtime (no libcudart among its libraries and no "
                    "device code); if it loads CUDA at run time, say which runtime with --cudart "
                    "11|12|13; if it was linked statically, {}", program, rebuild_advice());
  return 0;
}

}  // namespace warpsim::tools
