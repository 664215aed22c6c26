#include "network/ns3_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

extern char** environ;

namespace rapidllm::network {

namespace {

// What the signal handler may touch: fixed buffers and plain integers, written before the
// handler is installed (it runs asynchronously and may call only async-signal-safe functions).
constexpr std::size_t kPathMax = 4096;
char g_input[kPathMax] = {};
char g_output[kPathMax] = {};
volatile sig_atomic_t g_child = 0;
struct sigaction g_old_int = {};
struct sigaction g_old_term = {};

void on_signal(int sig) {
  if (g_child > 0) ::kill(static_cast<pid_t>(g_child), SIGKILL);
  if (g_input[0] != '\0') ::unlink(g_input);
  if (g_output[0] != '\0') ::unlink(g_output);
  // Then what rapidllm would have done without this handler (by default: die of the signal).
  ::sigaction(sig, sig == SIGINT ? &g_old_int : &g_old_term, nullptr);
  ::raise(sig);
}

void copy_path(char* to, const std::string& from) {
  const std::size_t n = std::min(from.size(), kPathMax - 1);
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

// Installs the handler for the life of a ScratchFiles (the files exist from the plan's
// writing to their removal) and restores the previous one after.
void install_handler() {
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &g_old_int);
  ::sigaction(SIGTERM, &sa, &g_old_term);
}

void restore_handler() {
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
}

class BlockedSignals {  // SIGINT/SIGTERM held while the child's pid is being recorded
 public:
  BlockedSignals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &set, &old_);
  }
  ~BlockedSignals() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

 private:
  sigset_t old_{};
};

// Handles one complete stderr line: a progress report, or text for the diagnostics.
void take_line(const std::string& line, const ProgressFn& progress, std::string& diagnostics) {
  std::istringstream in(line);
  std::string word;
  double done = 0.0, total = 0.0;
  if (in >> word && word == "progress" && in >> done >> total) {
    if (progress) progress(done, total);
    return;
  }
  diagnostics += line;
  diagnostics += '\n';
}

}  // namespace

ScratchFiles::ScratchFiles(const std::string& stem) {
  const auto dir = std::filesystem::temp_directory_path();
  input_ = (dir / (stem + ".in")).string();
  output_ = (dir / (stem + ".out")).string();
  if (input_.size() >= kPathMax || output_.size() >= kPathMax) {
    throw Error(fmt::format("temporary file name too long: {}", input_));
  }
  {
    const BlockedSignals blocked;
    copy_path(g_input, input_);
    copy_path(g_output, output_);
    install_handler();
  }
}

ScratchFiles::~ScratchFiles() {
  {
    const BlockedSignals blocked;
    restore_handler();
    g_input[0] = '\0';
    g_output[0] = '\0';
  }
  std::error_code ec;
  std::filesystem::remove(input_, ec);
  std::filesystem::remove(output_, ec);
}

ChildRun run_child(const std::string& executable, const ScratchFiles& files, const ProgressFn& progress) {
  std::array<int, 2> pipe_fds{};
  if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) throw Error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, files.output().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);  // the child must not inherit the blocked set
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> argv{const_cast<char*>(executable.c_str()), const_cast<char*>(files.input().c_str()), nullptr};
  pid_t pid = 0;
  int rc = 0;
  {
    const BlockedSignals blocked;  // a signal now finds the pid recorded
    rc = ::posix_spawn(&pid, executable.c_str(), &actions, &attr, argv.data(), environ);
    if (rc == 0) g_child = pid;
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(pipe_fds[1]);
  if (rc != 0) {
    ::close(pipe_fds[0]);
    throw Error(fmt::format("rapidllm-ns3 failed: cannot run {}: {}", executable, std::strerror(rc)));
  }
  ChildRun run;
  std::string pending;
  std::array<char, 4096> buf{};
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buf.data(), static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
      take_line(pending.substr(0, nl), progress, run.diagnostics);
      pending.erase(0, nl + 1);
    }
  }
  ::close(pipe_fds[0]);
  if (!pending.empty()) take_line(pending, progress, run.diagnostics);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  {
    const BlockedSignals blocked;
    g_child = 0;
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return run;
}

}  // namespace rapidllm::network
