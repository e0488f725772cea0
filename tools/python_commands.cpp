// `warpsim plot`, `warpsim report` and `warpsim correlate`: the figures and HTML pages are drawn
// by the Python program installed with warpsim (tools/python/warpsim_py,
// matplotlib); these commands find it and a Python that can run it, and
// pass the arguments through unchanged (its --help describes them).
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "tools/commands.h"
#include "tools/install_paths.h"
#include "tools/python_program.h"

namespace warpsim::tools {

int run_python_program(const std::string& command, const std::vector<std::string>& args) {
  const std::string program = find_python_program();
  if (program.empty()) {
    fmt::print(stderr, "warpsim {}: the Python program warpsim_py/main.py is not installed next to warpsim "
                       "(looked in $WARPSIM_PYTHON_DIR, <prefix>/share/warpsim/python and the source tree)\n",
               command);
    return 2;
  }
  std::string why;
  const std::string python = find_python_interpreter(why);
  if (python.empty()) {
    fmt::print(stderr, "warpsim {}: {}\n", command, why);
    return 2;
  }
  std::vector<std::string> argv = {python, program, command};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& s : argv) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execvp(cargv[0], cargv.data());
    ::_exit(127);
  }
  if (pid < 0) return 2;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 2;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void register_python_commands(CLI::App& app) {
  const std::pair<const char*, const char*> commands[] = {
      {"plot", "Draw a figure from a sweep's results: bar, line, scatter, stacked or heatmap (--help for options)"},
      {"report", "Write one self-contained HTML page for a sweep or a single run (--help for options)"},
      {"correlate", "Measured kernel times (GPU, GPGPU-Sim) next to warpsim's: errors, MAPE, correlation, plot"},
  };
  for (const auto& [name, description] : commands) {
    CLI::App* cmd = app.add_subcommand(name, description);
    cmd->prefix_command();  // everything after the command goes to the Python program
    cmd->set_help_flag();   // ... --help included
    const std::string command = name;
    cmd->callback([cmd, command] { set_exit_code(run_python_program(command, cmd->remaining())); });
  }
}

}  // namespace warpsim::tools
