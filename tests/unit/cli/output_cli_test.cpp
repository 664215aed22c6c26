// Outputs scripts rely on (docs/output-schema.md): JSON echoes the resolved plan and every
// --set override, -o picks the format from the file's extension unless --format is given,
// and an -o that cannot be written is a usage error (exit 2) before any work.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using rapidllm::testing::CliRun;
using rapidllm::testing::slurp;

CliRun rapidllm(const std::string& args) { return rapidllm::testing::run_rapidllm(args); }

const std::string kTraining =
    "predict --hardware configs/hardware/H100_SXM5_80GB.yaml --model configs/models/llama3.1-70b.yaml "
    "--set parallelism.tp=4 --set parallelism.tp_sp=true --set parallelism.pp=4 --set parallelism.cp=2 "
    "--set parallelism.train.dp=2 --set parallelism.micro_batch_size=1 --set parallelism.pp_schedule=interleaved_1f1b "
    "--set parallelism.vpp=5 --set sw_param.dp_zero_stage=1";
const std::string kInference =
    "predict --hardware configs/hardware/H100_SXM5_80GB.yaml "
    "--model tests/data/rapid-llm-reference/model/Llama3.1-70B_inf.yaml";

// A fresh folder per test for -o files.
fs::path scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::temp_directory_path() /
                       ("rapidllm_output_cli_" + std::to_string(::getpid()) + "_" + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(OutputCli, TrainingJsonEchoesTheResolvedPlanAndEveryOverride) {
  const CliRun r = rapidllm(kTraining + " --set tech_param.DRAM.bandwidth=3000GB/s --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const nlohmann::json plan = {{"tp", 4},          {"sp", true},           {"cp", 2},
                               {"ep", 1},          {"pp", 4},              {"dp", 2},
                               {"schedule", "interleaved_1f1b"},           {"vpp", 5},
                               {"micro_batch_size", 1},                    {"zero_stage", 1},
                               {"recompute", "selective"},                 {"precision", "bf16"},
                               {"execution_mode", "analytical"}};
  EXPECT_EQ(j.at("plan"), plan);
  // Every override, the value exactly as typed (not the parsed 3e12).
  const nlohmann::json overrides = {{"parallelism.tp", "4"},
                                    {"parallelism.tp_sp", "true"},
                                    {"parallelism.pp", "4"},
                                    {"parallelism.cp", "2"},
                                    {"parallelism.train.dp", "2"},
                                    {"parallelism.micro_batch_size", "1"},
                                    {"parallelism.pp_schedule", "interleaved_1f1b"},
                                    {"parallelism.vpp", "5"},
                                    {"sw_param.dp_zero_stage", "1"},
                                    {"tech_param.DRAM.bandwidth", "3000GB/s"}};
  EXPECT_EQ(j.at("overrides"), overrides);
  EXPECT_EQ(j.at("config_hash").get<std::string>().size(), 16u);
}

TEST(OutputCli, InferenceJsonEchoesItsPlanAndAnEmptyOverrideSet) {
  const CliRun r = rapidllm(kInference + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("overrides"), nlohmann::json::object());
  // Inference has no pipeline schedule, micro-batching, ZeRO or recompute to echo.
  EXPECT_EQ(j.at("plan"), (nlohmann::json{{"tp", 1}, {"sp", false}, {"cp", 1}, {"ep", 1}, {"pp", 1}, {"dp", 1},
                                          {"precision", "bf16"}, {"execution_mode", "analytical"}}));
  const CliRun replicas = rapidllm(kInference + " --set parallelism.tp=4 --set parallelism.inference.replica_count=2 --format json");
  ASSERT_EQ(replicas.exit_code, 0) << replicas.err;
  const auto k = nlohmann::json::parse(replicas.out);
  EXPECT_EQ(k.at("plan").at("tp"), 4);
  EXPECT_EQ(k.at("plan").at("dp"), 2);
  EXPECT_EQ(k.at("num_gpus"), 8);
}

TEST(OutputCli, GemmAndCollectiveJsonEchoTheirOverrides) {
  const CliRun gemm = rapidllm("gemm --hardware configs/hardware/H100_SXM5_80GB.yaml -m 256 -n 256 -k 256 --tp 2 "
                               "--format json");
  ASSERT_EQ(gemm.exit_code, 0) << gemm.err;
  EXPECT_EQ(nlohmann::json::parse(gemm.out).at("overrides"), (nlohmann::json{{"parallelism.tp", "2"}}));
  const CliRun collective = rapidllm("collective --hardware configs/hardware/H100_SXM5_80GB.yaml --op all_reduce "
                                     "--bytes 1MiB --ranks 8 --set network.overlap.tp_overlap=0.5 --format json");
  ASSERT_EQ(collective.exit_code, 0) << collective.err;
  EXPECT_EQ(nlohmann::json::parse(collective.out).at("overrides"),
            (nlohmann::json{{"network.overlap.tp_overlap", "0.5"}}));
}

TEST(OutputCli, TheOutputFilesExtensionPicksTheFormatUnlessFormatIsGiven) {
  const fs::path dir = scratch();
  for (const char* name : {"r.csv", "r.CSV", "r.json", "r.txt", "r.md", "r"}) {
    ASSERT_EQ(rapidllm(kInference + " -o " + (dir / name).string()).exit_code, 0) << name;
  }
  EXPECT_THAT(slurp(dir / "r.csv"), StartsWith("schema_version,version,config_hash,"));
  EXPECT_EQ(slurp(dir / "r.CSV"), slurp(dir / "r.csv"));
  EXPECT_TRUE(nlohmann::json::accept(slurp(dir / "r.json")));
  for (const char* table : {"r.txt", "r.md", "r"}) {
    EXPECT_THAT(slurp(dir / table), StartsWith("rapidllm ")) << table;
    EXPECT_THAT(slurp(dir / table), HasSubstr("time to first token")) << table;
  }
  // --format wins over the extension.
  ASSERT_EQ(rapidllm(kInference + " --format json -o " + (dir / "forced.csv").string()).exit_code, 0);
  EXPECT_TRUE(nlohmann::json::accept(slurp(dir / "forced.csv")));
  // The sweep's streamed CSV and the collective's follow the same rule.
  ASSERT_EQ(rapidllm("collective --hardware configs/hardware/H100_SXM5_80GB.yaml --op all_reduce --bytes 1MiB "
                     "--ranks 8 -o " + (dir / "c.json").string()).exit_code, 0);
  EXPECT_TRUE(nlohmann::json::accept(slurp(dir / "c.json")));
  // stdout without --format stays the table.
  const CliRun plain = rapidllm(kInference);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, StartsWith("rapidllm "));
  fs::remove_all(dir);
}

TEST(OutputCli, AnOutputPathThatCannotBeWrittenIsAUsageError) {
  const fs::path dir = scratch();
  const CliRun missing = rapidllm(kTraining + " -o " + (dir / "no" / "such" / "r.json").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("is in a folder that does not exist"));
  EXPECT_TRUE(missing.out.empty());
  const CliRun folder = rapidllm(kTraining + " -o " + dir.string());
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_THAT(folder.err, HasSubstr("is a folder"));
  // A folder this user may not write to: refused while parsing, before the prediction.
  // Root may write anywhere, so this part runs only as another user.
  if (::geteuid() != 0) {
    const fs::path locked = dir / "locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    const CliRun denied = rapidllm(kTraining + " -o " + (locked / "r.csv").string());
    EXPECT_EQ(denied.exit_code, 2);
    EXPECT_THAT(denied.err, HasSubstr("cannot write to"));
    fs::permissions(locked, fs::perms::owner_all);
  }
  // What the file system refuses even to root (sysfs takes no new files): exit 2 too, and
  // for the sweep's streamed CSV as well.
  if (fs::is_directory("/sys") && ::access("/sys", W_OK) == 0) {
    const CliRun sys = rapidllm(kInference + " -o /sys/rapidllm_output_test.csv");
    EXPECT_EQ(sys.exit_code, 2);
    EXPECT_THAT(sys.err, HasSubstr("cannot be written"));
    const CliRun sweep = rapidllm("sweep --hardware configs/hardware/H100_SXM5_80GB.yaml "
                                  "--model configs/models/llama3.1-8b.yaml --gpus 8 -o /sys/rapidllm_sweep_test.csv");
    EXPECT_EQ(sweep.exit_code, 2);
    EXPECT_THAT(sweep.err, HasSubstr("cannot be written"));
  }
  fs::remove_all(dir);
}

}  // namespace
