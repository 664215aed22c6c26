// Runs the rapidllm-ns3 executable as a child process and cleans up after it, whatever
// happens: its temporary plan and output files are removed on success, on error (an
// exception unwinds through ScratchFiles) and when rapidllm itself gets SIGINT or SIGTERM
// while the child runs (the child is killed, the files removed, then rapidllm dies of the
// signal as it would have). Progress lines the child prints on stderr reach a callback.
#pragma once

#include <string>

#include "network/work_meter.hpp"

namespace rapidllm::network {

// Two temporary files (the plan written for the child, and its output), unique to this
// process and call, removed when this goes out of scope or when a SIGINT/SIGTERM arrives
// while a child runs. One at a time per process (ns-3 runs are sequential).
class ScratchFiles {
 public:
  explicit ScratchFiles(const std::string& stem);  // under the temporary directory
  ~ScratchFiles();
  ScratchFiles(const ScratchFiles&) = delete;
  ScratchFiles& operator=(const ScratchFiles&) = delete;

  [[nodiscard]] const std::string& input() const { return input_; }
  [[nodiscard]] const std::string& output() const { return output_; }

 private:
  std::string input_;
  std::string output_;
};

struct ChildRun {
  int exit_code = 0;        // the child's exit status, or 128 + the signal that ended it
  std::string diagnostics;  // what it wrote on stderr, progress lines left out
};

// Runs `executable files.input()` with stdout into files.output(). Lines "progress DONE TOTAL"
// on its stderr go to `progress`. While it runs, SIGINT and SIGTERM kill it and remove the
// files first. Throws Error when it cannot be started.
ChildRun run_child(const std::string& executable, const ScratchFiles& files, const ProgressFn& progress);

}  // namespace rapidllm::network
