// `rapidllm collective --backend analytical|flow|ns3`: the JSON contract (time_s,
// algbw_bytes_per_s, busbw_bytes_per_s) on every backend, flow == analytical when nothing
// congests, and faulty links from --set.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include "cli_runner.hpp"
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "network/ns3_backend.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using rapidllm::testing::CliRun;
using rapidllm::testing::slurp;

CliRun rapidllm(const std::string& args) { return rapidllm::testing::run_rapidllm(args); }

const std::string kH100 = "--hardware configs/hardware/H100_SXM5_80GB.yaml";

nlohmann::json collective(const std::string& backend, const std::string& extra) {
  CliRun r = rapidllm("collective " + kH100 + " --format json --backend " + backend + " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(CollectiveCli, FlowBackendKeepsTheJsonContractAndMatchesAnalytical) {
  for (const std::string args : {"--op all_reduce --bytes 1GiB --ranks 8", "--op all_to_all --bytes 256MiB --ranks 64",
                                 "--op all_gather --bytes 64MiB --ranks 32"}) {
    SCOPED_TRACE(args);
    const auto a = collective("analytical", args);
    const auto f = collective("flow", args);
    ASSERT_TRUE(f.contains("time_s"));
    EXPECT_EQ(f["backend"], "flow");
    EXPECT_NEAR(f["time_s"].get<double>(), a["time_s"].get<double>(), a["time_s"].get<double>() * 0.01);
    EXPECT_NEAR(f["busbw_bytes_per_s"].get<double>(), a["busbw_bytes_per_s"].get<double>(),
                a["busbw_bytes_per_s"].get<double>() * 0.01);
    EXPECT_GT(f["algbw_bytes_per_s"].get<double>(), 0.0);
  }
}

TEST(CollectiveCli, FaultyLinksFromTheCommandLineSlowTheFlowBackend) {
  // 16 GPUs = 2 DGX nodes; switches follow the GPUs: NVSwitches 16 and 17, then one IB
  // switch per rail (18-25). GPU 0's port on its NVSwitch at a quarter of its bandwidth.
  const std::string args = "--op all_reduce --bytes 1GiB --ranks 16";
  const auto healthy = collective("flow", args);
  const auto faulty = collective("flow", args + " --set 'network.faulty_links=[[0, 16, 0.25]]'");
  EXPECT_GT(faulty["time_s"].get<double>(), 1.5 * healthy["time_s"].get<double>());
  CliRun bad = rapidllm("collective " + kH100 + " --backend flow " + args + " --set 'network.faulty_links=[[0, 1, 0.0]]'");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("no link joins node 0 and node 1"));
}

TEST(CollectiveCli, Ns3BackendRunsWhenBuilt) {
  if (rapidllm::network::ns3_executable().empty()) GTEST_SKIP() << "rapidllm-ns3 was not built";
  const auto n = collective("ns3", "--op all_reduce --bytes 4MiB --ranks 8");
  const auto f = collective("flow", "--op all_reduce --bytes 4MiB --ranks 8");
  EXPECT_EQ(n["backend"], "ns3");
  EXPECT_NEAR(n["time_s"].get<double>(), f["time_s"].get<double>(), f["time_s"].get<double>() * 0.08);
}

}  // namespace
