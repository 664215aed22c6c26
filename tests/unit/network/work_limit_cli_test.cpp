// Bounded work at absurd scale: `rapidllm collective --backend flow|ns3` refuses a simulation
// whose estimate passes --max-events (exit 2, the estimate and the way out in the message)
// before building anything, accepts it once the limit is raised, and the ns3 backend leaves
// no temporary files behind, after an error or a SIGTERM alike.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using rapidllm::testing::CliRun;

CliRun rapidllm(const std::string& args) { return rapidllm::testing::run_rapidllm(args); }

const std::string kH100 = "--hardware configs/hardware/H100_SXM5_80GB.yaml";

TEST(WorkLimitCli, AMillionRankFlowAllReduceIsRefusedWithTheEstimate) {
  const CliRun r = rapidllm("collective " + kH100 + " --backend flow --op all_reduce --bytes 1GiB --ranks 1000000");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_THAT(r.err, HasSubstr("all_reduce of 1073741824 B over 1000000 ranks"));
  EXPECT_THAT(r.err, HasSubstr("past the limit of 3e+07"));
  EXPECT_THAT(r.err, HasSubstr("member paths routed"));
  EXPECT_THAT(r.err, HasSubstr("--max-events N"));
  EXPECT_THAT(r.err, HasSubstr("--backend analytical"));
}

TEST(WorkLimitCli, AHundredThousandRankAllToAllIsRefused) {
  const CliRun r = rapidllm("collective " + kH100 + " --backend flow --op all_to_all --bytes 1GiB --ranks 100000");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("over 100000 ranks"));
  EXPECT_THAT(r.err, HasSubstr("--max-events"));
}

TEST(WorkLimitCli, TheFlagMovesTheLimitBothWays) {
  const std::string args = "collective " + kH100 + " --backend flow --op all_to_all --bytes 64MiB --ranks 256";
  const CliRun low = rapidllm(args + " --max-events 1000");
  EXPECT_EQ(low.exit_code, 2);
  EXPECT_THAT(low.err, HasSubstr("past the limit of 1000"));
  const CliRun raised = rapidllm(args + " --max-events 1e7 --format json");
  EXPECT_EQ(raised.exit_code, 0) << raised.err;
  EXPECT_THAT(raised.out, HasSubstr("\"time_s\""));
  const CliRun bad = rapidllm(args + " --max-events 0");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("execution_backend.astra.max_events"));
}

TEST(WorkLimitCli, TheNs3BackendIsBoundedToo) {
  const CliRun r = rapidllm("collective " + kH100 + " --backend ns3 --op all_reduce --bytes 256MiB --ranks 8");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("ns3 simulation"));
  EXPECT_THAT(r.err, HasSubstr("packet-level events"));
  EXPECT_THAT(r.err, HasSubstr("--max-events"));
}

// A fresh TMPDIR for one test: the ns3 backend writes its files there.
class Ns3ScratchFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rapidllm-worklimit-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] int ns3_files() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) n += e.path().filename().string().rfind("rapidllm-ns3-", 0) == 0;
    return n;
  }
  // A stand-in for rapidllm-ns3 (no ns-3 needed): a shell script with `body`.
  [[nodiscard]] std::string fake_ns3(const std::string& body) const {
    const fs::path p = dir_ / "fake-ns3.sh";
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }

  fs::path dir_;
};

TEST_F(Ns3ScratchFiles, AreGoneAfterAFailedRun) {
  const std::string exe = fake_ns3("echo 'rapidllm-ns3: bad input: test' >&2; exit 2");
  ::setenv("TMPDIR", dir_.c_str(), 1);
  ::setenv("RAPIDLLM_NS3", exe.c_str(), 1);
  const CliRun failed = rapidllm("collective " + kH100 + " --backend ns3 --op all_reduce --bytes 1MiB --ranks 8");
  ::unsetenv("RAPIDLLM_NS3");
  ::unsetenv("TMPDIR");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_THAT(failed.err, HasSubstr("rapidllm-ns3 failed (exit status 2)"));
  EXPECT_THAT(failed.err, HasSubstr("bad input: test"));
  EXPECT_EQ(ns3_files(), 0);
}

TEST_F(Ns3ScratchFiles, AreGoneAndTheChildIsKilledOnSigterm) {
  // The child records its pid, then waits for far longer than the test.
  const fs::path pid_file = dir_ / "child.pid";
  const std::string exe = fake_ns3("echo $$ > '" + pid_file.string() + "'; exec sleep 300");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("TMPDIR", dir_.c_str(), 1);
    ::setenv("RAPIDLLM_NS3", exe.c_str(), 1);
    if (::chdir(RAPIDLLM_SOURCE_DIR) != 0) ::_exit(90);
    ::execl(RAPIDLLM_CLI_PATH, RAPIDLLM_CLI_PATH, "collective", "--hardware", "configs/hardware/H100_SXM5_80GB.yaml",
            "--backend", "ns3", "--op", "all_reduce", "--bytes", "1MiB", "--ranks", "8", static_cast<char*>(nullptr));
    ::_exit(91);
  }
  // Wait (polling, no timing assumption beyond a generous cap) until the child ns-3 runs.
  for (int i = 0; i < 3000 && !fs::exists(pid_file); ++i) ::usleep(10000);
  ASSERT_TRUE(fs::exists(pid_file));
  for (int i = 0; i < 300 && fs::file_size(pid_file) == 0; ++i) ::usleep(10000);
  pid_t child = 0;
  std::ifstream(pid_file) >> child;
  ASSERT_GT(child, 0);
  EXPECT_EQ(ns3_files(), 2);  // the plan and the output, while it runs
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_EQ(ns3_files(), 0);
  // The child is gone (killed; reaped by init): signal 0 finds no such process, or a zombie.
  bool gone = false;
  for (int i = 0; i < 300 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string skip, state;
    gone = !(stat >> skip >> skip >> state) || state == "Z";
    if (!gone) ::usleep(10000);
  }
  EXPECT_TRUE(gone);
}

}  // namespace
