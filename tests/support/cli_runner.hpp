// Runs the rapidllm binary from a test: exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace rapidllm::testing {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `args` after the binary, run in the source tree. Output files are unique per process,
// test and call: ctest runs the tests of one binary in parallel, and another checkout's
// ctest may be running the same tests on this machine.
inline CliRun run_rapidllm(const std::string& args) {
  namespace fs = std::filesystem;
  static int calls = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  // Parameterized tests carry '/' in their names ("Cases/Golden"): not in a file name.
  std::string name = std::string("rapidllm_cli_") + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" +
                     info->name() + "_" + std::to_string(++calls);
  std::replace(name.begin(), name.end(), '/', '_');
  const std::string stem = (fs::temp_directory_path() / name).string();
  const fs::path out = stem + ".out";
  const fs::path err = stem + ".err";
  const std::string cmd = std::string("cd ") + RAPIDLLM_SOURCE_DIR + " && " + RAPIDLLM_CLI_PATH + " " + args + " >" +
                          out.string() + " 2>" + err.string() + " </dev/null";
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

}  // namespace rapidllm::testing
