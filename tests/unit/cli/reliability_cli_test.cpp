// The command line under misuse and quiet failure: every case exits with the documented
// code (2 usage or configuration, 1 the model cannot give a result) and says what is
// wrong, where and how to fix it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "cli_runner.hpp"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using rapidllm::testing::CliRun;

CliRun rapidllm(const std::string& args) { return rapidllm::testing::run_rapidllm(args); }

const std::string kPredict =
    "predict --hardware configs/hardware/H100_SXM5_80GB.yaml --model configs/models/llama2-7b.yaml";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReliabilityCli, AMistypedCommandGetsADidYouMean) {
  const CliRun typo = rapidllm("predcit --hardware x.yaml");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_THAT(typo.err, HasSubstr("rapidllm: error: unknown command 'predcit'"));
  EXPECT_THAT(typo.err, HasSubstr("did you mean 'predict'?"));
  const CliRun unknown = rapidllm("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("the commands are predict, gemm, collective"));
}

TEST(ReliabilityCli, ParserErrorsCarryTheToolsPrefix) {
  const CliRun r = rapidllm("predict --model configs/models/llama2-7b.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("rapidllm: error: --hardware is required"));
}

TEST(ReliabilityCli, AnEmptyOutputPathIsAUsageError) {
  const CliRun r = rapidllm(kPredict + " -o ''");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--output: an empty path"));
  EXPECT_TRUE(r.out.empty());
}

TEST(ReliabilityCli, AWorkloadThatDoesNotFitWarnsOrFailsOnRequest) {
  // Llama-2-7B training, 4k sequences, one H100: far beyond 80 GiB.
  const CliRun warned = rapidllm(kPredict + " --format json");
  EXPECT_EQ(warned.exit_code, 0);
  EXPECT_THAT(warned.out, HasSubstr("\"fits_in_memory\": false"));
  EXPECT_THAT(warned.err, HasSubstr("rapidllm: warning: does not fit in memory"));
  EXPECT_THAT(warned.err, HasSubstr("--fail-if-oom"));
  const CliRun failed = rapidllm(kPredict + " --format json --fail-if-oom");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(failed.out, warned.out);  // the report is still written
  EXPECT_THAT(failed.err, HasSubstr("does not fit in memory"));
  // One that fits says nothing.
  const CliRun fits = rapidllm(kPredict + " --set model_param.seq_len=1024 --set model_param.global_batch_size=8 "
                                          "--set parallelism.tp=8 --set parallelism.mb=8 --fail-if-oom");
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_THAT(fits.err, Not(HasSubstr("memory")));
}

TEST(ReliabilityCli, KeysBelowASingleSettingAreNamedAsSuch) {
  const CliRun r = rapidllm(kPredict + " --set parallelism.tp.x=4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("'parallelism.tp' is a single setting, with no keys below it"));
  EXPECT_THAT(r.err, HasSubstr("--set parallelism.tp=<value>"));
}

TEST(ReliabilityCli, AFolderOrADeviceIsNotAConfigFile) {
  const CliRun folder = rapidllm("predict --hardware configs --model configs/models/llama2-7b.yaml");
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_THAT(folder.err, HasSubstr("configs: cannot read the hardware config: this is a folder, not a file"));
  const CliRun device = rapidllm("predict --hardware configs/hardware/H100_SXM5_80GB.yaml --model /dev/zero");
  EXPECT_EQ(device.exit_code, 2);
  EXPECT_THAT(device.err, HasSubstr("not a regular file (a device, FIFO or socket)"));
  const CliRun missing = rapidllm("predict --hardware configs/hardware/nope.yaml --model configs/models/llama2-7b.yaml");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("no such file"));
}

TEST(ReliabilityCli, NullIsNotTheDefault) {
  const CliRun r = rapidllm(kPredict + " --set tech_param.core.util=null");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("tech_param.core.util: a value is required here (got null)"));
  EXPECT_THAT(r.err, HasSubstr("delete the key to use its default (1.0)"));
}

TEST(ReliabilityCli, AnUnevenPipelineSplitIsSaidOncePerRun) {
  // 32 layers over 3 stages: 11, 11, 10. A sweep predicts many such points; the warning
  // comes once.
  const CliRun one = rapidllm(kPredict + " --set parallelism.pp=3 --format json");
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_THAT(one.err, HasSubstr("32 layers do not split evenly over pp x vpp = 3 pipeline chunks: the first 2 "
                                 "chunk(s) hold 11 layers, the other 1 hold 10"));
  const CliRun sweep = rapidllm(
      "sweep --hardware configs/hardware/H100_SXM5_80GB.yaml --model configs/models/llama3.1-8b.yaml --gpus 24 "
      "--set model_param.global_batch_size=48 --set model_param.seq_len=2048 --grid pp=3 --grid tp=8 "
      "--grid mbs=1,2 --grid recompute=none,full --format csv");
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_GE(count(sweep.out, ",ok,"), 4u);
  EXPECT_EQ(count(sweep.err, "pp x vpp = 3 pipeline chunks"), 1u) << sweep.err;

  // Each model variant's own split is said, once.
  const CliRun varied = rapidllm(
      "sweep --hardware configs/hardware/H100_SXM5_80GB.yaml --model configs/models/llama3.1-8b.yaml --gpus 24 "
      "--set model_param.global_batch_size=48 --set model_param.seq_len=2048 --grid pp=3 --grid tp=8 "
      "--grid mbs=1,2 --vary model_param.num_layers=31,32 --format csv");
  EXPECT_EQ(varied.exit_code, 0) << varied.err;
  EXPECT_EQ(count(varied.err, "31 layers do not split evenly over pp x vpp = 3"), 1u) << varied.err;
  EXPECT_EQ(count(varied.err, "32 layers do not split evenly over pp x vpp = 3"), 1u) << varied.err;
}

TEST(ReliabilityCli, ParallelismAutoIsRefusedWithTheWayToSearch) {
  const CliRun r = rapidllm(kPredict + " --set parallelism.auto=true");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("parallelism.auto"));
  EXPECT_THAT(r.err, HasSubstr("rapidllm sweep"));
}

TEST(ReliabilityCli, AServingRunPastItsBoundIsRefusedUpFront) {
  const std::string serve =
      "serve --hardware configs/hardware/H100_SXM5_80GB.yaml --model configs/models/llama3.1-8b.yaml ";
  const CliRun many = rapidllm(serve + "--rate 1 --requests 99999999999999");
  EXPECT_EQ(many.exit_code, 2);
  EXPECT_THAT(many.err, HasSubstr("more than the 1e+08 a run simulates"));
  const CliRun long_run = rapidllm(serve + "--rate 1000 --duration 1e6");
  EXPECT_EQ(long_run.exit_code, 2);
  EXPECT_THAT(long_run.err, HasSubstr("--rate x --duration expects 1e+09 requests"));
}

// Products of counts that would leave the model's integers are refused with the keys to
// change, never printed as negative times or energies.
TEST(ReliabilityCli, TokenCountsPastTheModelsIntegersAreRefused) {
  const CliRun wide = rapidllm(kPredict + " --set model_param.seq_len=9e15");
  EXPECT_EQ(wide.exit_code, 2);
  EXPECT_THAT(wide.err, HasSubstr("model_param.seq_len: expected an integer between 1 and 2147483647"));
  const CliRun training = rapidllm(kPredict + " --set model_param.global_batch_size=9e15");
  EXPECT_EQ(training.exit_code, 1);
  EXPECT_THAT(training.err, HasSubstr("tokens per micro-batch; raise dp or parallelism.mb"));
  const CliRun inference = rapidllm(kPredict + " --set model_param.run_type=inference --set model_param.decode_len=16 "
                                               "--set model_param.global_batch_size=9e15");
  EXPECT_EQ(inference.exit_code, 1);
  EXPECT_THAT(inference.err, HasSubstr("past the model's 2^31 - 1 tokens per prefill"));
  const CliRun gemm = rapidllm(kPredict + " --set model_param.hidden_dim=2000000000 --set model_param.attention.num_heads=1");
  EXPECT_EQ(gemm.exit_code, 1);
  EXPECT_THAT(gemm.err, HasSubstr("past the tile model's 2^31 - 1 per dimension"));
  EXPECT_TRUE(gemm.out.empty());
}

TEST(ReliabilityCli, ASweepPastItsVariantBoundIsRefusedBeforeLoading) {
  const std::string sweep =
      "sweep --hardware configs/hardware/H100_SXM5_80GB.yaml --model configs/models/llama3.1-8b.yaml --gpus 16 ";
  const CliRun one = rapidllm(sweep + "--vary tech_param.DRAM.bandwidth=1e12..2e12:1000000000");
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_THAT(one.err, HasSubstr("the point count must be an integer from 1 to 100000"));
  const CliRun crossed =
      rapidllm(sweep + "--vary tech_param.DRAM.bandwidth=1e12..2e12:1000 --vary tech_param.core.util=0.1..0.9:1000");
  EXPECT_EQ(crossed.exit_code, 2);
  EXPECT_THAT(crossed.err, HasSubstr("1e+06 hardware/model variants, more than the 100000 a sweep loads"));
}

TEST(ReliabilityCli, CollectiveArgumentsAreCheckedAsUsage) {
  const std::string collective = "collective --hardware configs/hardware/H100_SXM5_80GB.yaml --op all_reduce --ranks 8 ";
  const CliRun dim = rapidllm(collective + "--bytes 1MiB --dim nvlnk");
  EXPECT_EQ(dim.exit_code, 2);
  EXPECT_THAT(dim.err, HasSubstr("--dim: 'nvlnk' is not a network dimension"));
  EXPECT_THAT(dim.err, HasSubstr("did you mean 'nvlink'?"));
  for (const char* bytes : {"0.5", "1e30"}) {
    const CliRun r = rapidllm(collective + "--bytes " + bytes);
    EXPECT_EQ(r.exit_code, 2) << bytes;
    EXPECT_THAT(r.err, HasSubstr("is not a whole number of bytes up to 1 EiB"));
  }
}

TEST(ReliabilityCli, ALeftOutNcclProtocolIsSaid) {
  // The shipped H100 with its NVLink LL128 block deleted.
  std::string yaml = rapidllm::testing::slurp(RAPIDLLM_SOURCE_DIR "/configs/hardware/H100_SXM5_80GB.yaml");
  yaml = std::regex_replace(yaml, std::regex("          LL128:\n(            .*\n){3}"), "");
  ASSERT_EQ(yaml.find("LL128:"), std::string::npos);
  const auto path = std::filesystem::temp_directory_path() /
                    ("rapidllm_no_ll128_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << yaml;
  const CliRun r = rapidllm("collective --hardware " + path.string() + " --op all_reduce --bytes 1MiB --ranks 8");
  std::filesystem::remove(path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("network.dimensions[0].topology.protocols: LL128 not described"));
}

}  // namespace
