// `rapidllm sweep` on the command line: output formats, the fixed CSV columns, and the
// exit code 2 with the option named for a bad axis, range or shard.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

using ::testing::HasSubstr;
using rapidllm::testing::CliRun;

CliRun rapidllm(const std::string& args) { return rapidllm::testing::run_rapidllm(args); }

const std::string kSweep =
    "sweep --hardware configs/hardware/H100_SXM5_80GB.yaml --model configs/models/llama3.1-8b.yaml --gpus 16 "
    "--set model_param.global_batch_size=64 --grid tp=2,4 --grid pp=1,2 --grid mbs=1 --grid recompute=full";

TEST(SweepCli, TableCsvAndJson) {
  const CliRun table = rapidllm(kSweep + " --top 3");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("best 3 by throughput per GPU"));
  EXPECT_THAT(table.out, HasSubstr("Pareto front"));
  EXPECT_THAT(table.err, HasSubstr("points/s"));  // the rate goes to the log, not the report

  const CliRun csv = rapidllm(kSweep + " --vary tech_param.DRAM.bandwidth=2e12..3e12:3 --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')),
            "index,tech_param.DRAM.bandwidth,tp,sp,cp,ep,pp,dp,schedule,vpp,micro_batch_size,zero_stage,recompute,"
            "placement,status,time_s,tokens_per_s,tokens_per_s_per_gpu,mfu,ttft_s,tpot_s,peak_memory_bytes,"
            "memory_capacity_bytes,fits_in_memory,energy_j,refined_time_s,reason");
  EXPECT_THAT(csv.out, HasSubstr("\n0,2e+12,"));
  EXPECT_THAT(csv.out, HasSubstr(",2.5e+12,"));

  const CliRun json = rapidllm(kSweep + " --format json --refine 1");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_FALSE(j["best"].empty());
  const auto& best = j["best"][0];
  EXPECT_EQ(best["status"], "ok");
  EXPECT_GT(best["refined_time_s"].get<double>(), 0.0);  // the simulated step of the best plan
  EXPECT_EQ(j["summary"]["points"].get<std::size_t>(), j["points"].size());
}

TEST(SweepCli, ResumeFromACutOffCsvGivesTheSameFile) {
  namespace fs = std::filesystem;
  const std::string dir = fs::temp_directory_path() / ("rapidllm_sweep_resume_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string args = kSweep + " --grid mbs=1,2 --vary tech_param.DRAM.bandwidth=2e12,3e12 --format csv";
  ASSERT_EQ(rapidllm(args + " -o " + dir + "/full.csv").exit_code, 0);
  const std::string full = rapidllm::testing::slurp(dir + "/full.csv");
  // An interrupted run: the first rows, the last of them cut in the middle.
  const std::string cut = full.substr(0, full.size() / 2);
  std::ofstream(dir + "/cut.csv.partial") << cut;
  const CliRun resumed = rapidllm(args + " --resume " + dir + "/cut.csv.partial -o " + dir + "/resumed.csv");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(rapidllm::testing::slurp(dir + "/resumed.csv"), full);
  const CliRun again = rapidllm(args + " --resume " + dir + "/full.csv");
  EXPECT_THAT(again.err, HasSubstr("(0 predicted)"));  // nothing left to evaluate
  EXPECT_EQ(again.out, full);
  std::ofstream(dir + "/bad.csv") << "index,x\n";
  const CliRun bad = rapidllm(args + " --resume " + dir + "/bad.csv");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--resume"));
  fs::remove_all(dir);
}

TEST(SweepCli, BadOptionsExitTwoNamingTheOption) {
  for (const auto& [args, option] : std::vector<std::pair<std::string, std::string>>{
           {" --grid qq=1", "--grid"},
           {" --grid tp=two", "--grid"},
           {" --grid schedule=zigzag", "--grid"},
           {" --vary tech_param.DRAM.bandwidth=1..2", "--vary"},
           {" --vary tech_param.DRAM.bandwidth=1 TB/s..2e12:3", "--vary"},
           {" --shard 2/2", "--shard"}}) {
    const CliRun r = rapidllm(kSweep + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(option)) << args;
    EXPECT_TRUE(r.out.empty()) << args;
  }
  const CliRun key = rapidllm(kSweep + " --vary tech_param.DRAM.bandwith=1,2");
  EXPECT_EQ(key.exit_code, 2);
  EXPECT_THAT(key.err, HasSubstr("bandwith"));
}

}  // namespace
