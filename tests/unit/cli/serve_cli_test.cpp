// `rapidllm serve` on the command line: exactly one arrival option, options that do not
// apply refused (exit 2, the option named), the per-request CSV, the JSON fields, the
// steady state and the Perfetto timeline of every iteration.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using rapidllm::testing::CliRun;

CliRun rapidllm(const std::string& args) { return rapidllm::testing::run_rapidllm(args); }

const std::string kServe =
    "serve --hardware configs/hardware/H100_SXM5_80GB.yaml --model configs/models/llama3.1-8b.yaml "
    "--set model_param.run_type=inference";

// A file name unique to this process and test, removed on destruction.
struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& name)
      : path(fs::temp_directory_path() / ("rapidllm_serve_" + std::to_string(getpid()) + "_" + name)) {
    fs::remove(path);
  }
  ~TempFile() { fs::remove(path); }
};

TEST(ServeCli, NeedsExactlyOneArrivalOption) {
  for (const std::string& arrivals : {std::string(), std::string(" --rate 5 --offline")}) {
    const CliRun r = rapidllm(kServe + arrivals + " --requests 10");
    EXPECT_EQ(r.exit_code, 2) << arrivals;
    for (const char* option : {"--rate", "--concurrency", "--trace", "--offline"}) {
      EXPECT_THAT(r.err, HasSubstr(option)) << arrivals;
    }
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(ServeCli, RefusesOptionsThatDoNotApplyAndWritesNothing) {
  const TempFile out("refused.out");
  const struct {
    std::string args;
    std::string named;
  } cases[] = {
      {" --offline --requests 20 --isl 200..800 --osl 100 --steady-state", "--isl"},  // needs fixed lengths
      {" --rate 5 --requests 20 --steady-state", "--steady-state"},
      {" --offline --requests 20 --steady-state --trace-out t.json", "--trace-out"},
      {" --offline --requests 20 --duration 5", "--duration"},
      {" --rate 5 --requests 20 --isl 10..5", "--isl"},
      {" --rate 5 --requests 20 --slo-ttft 0", "--slo-ttft"},
      {" --rate 5", "--requests"},  // no end
      {" --offline --requests 20 --isl 100 --osl 10 --seed 4", "--seed"},  // nothing random
      {" --rate 5 --requests 20 --slo-ttft 1 --format csv", "--slo-ttft"},  // no goodput column
      {" --offline --requests 20 --isl 100 --osl 10 --steady-state --no-chunked-prefill", "--no-chunked-prefill"},
  };
  for (const auto& c : cases) {
    const CliRun r = rapidllm(kServe + c.args + " -o " + out.path.string());
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.named)) << c.args;
    EXPECT_FALSE(fs::exists(out.path)) << c.args;
  }
}

TEST(ServeCli, CsvHasOneRowPerRequest) {
  const CliRun r = rapidllm(kServe + " --rate 20 --requests 40 --isl 100..300 --osl 20..40 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "id,replica,arrival_s,input_tokens,output_tokens,ttft_s,tpot_s,e2e_s,preemptions");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 41);
  EXPECT_THAT(r.out, HasSubstr("\n0,0,"));
  EXPECT_THAT(r.out, HasSubstr("\n39,0,"));
}

TEST(ServeCli, JsonCarriesTheSettingsAndEveryRequest) {
  const CliRun r = rapidllm(kServe + " --concurrency 4 --requests 24 --isl 256 --osl 32 --engine tensorrt-llm "
                                     "--slo-ttft 50ms --slo-tpot 0.05 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"schema_version", "version", "config_hash", "run_type", "engine", "workload", "ttft", "tpot",
                          "itl", "e2e", "samples", "request_log", "goodput_requests_per_s", "kv_cache_bytes_per_gpu"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["run_type"], "serve");
  EXPECT_EQ(j["engine"]["name"], "tensorrt-llm");
  EXPECT_EQ(j["engine"]["block_size_tokens"], 32);
  EXPECT_EQ(j["workload"]["concurrency"], 4);
  EXPECT_DOUBLE_EQ(j["slo_ttft_s"].get<double>(), 0.05);
  EXPECT_EQ(j["requests"], 24);
  EXPECT_EQ(j["request_log"].size(), 24u);
  EXPECT_GT(j["ttft"]["p50_s"].get<double>(), 0.0);
  EXPECT_LE(j["ttft"]["p50_s"].get<double>(), j["ttft"]["max_s"].get<double>());
  EXPECT_EQ(j["preemptions"], 0);  // tensorrt-llm reserves whole sequences
}

TEST(ServeCli, TableAndSteadyState) {
  const CliRun table = rapidllm(kServe + " --offline --requests 64 --isl 512 --osl 64 --slo-ttft 1");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  for (const char* text : {"latency (ms)", "TTFT", "TPOT", "ITL", "E2E", "throughput", "KV cache", "goodput"}) {
    EXPECT_THAT(table.out, HasSubstr(text));
  }
  const CliRun steady = rapidllm(kServe + " --offline --requests 64 --isl 512 --osl 64 --engine tensorrt-llm "
                                          "--steady-state --format json");
  ASSERT_EQ(steady.exit_code, 0) << steady.err;
  const auto j = nlohmann::json::parse(steady.out);
  EXPECT_EQ(j["run_type"], "serve_steady_state");
  EXPECT_EQ(j["resident_requests_per_replica"], 64);
  EXPECT_EQ(j["limited_by"], "requests");
  EXPECT_GT(j["output_tokens_per_s"].get<double>(), 0.0);
}

TEST(ServeCli, TraceOutIsAPerfettoTimelineOfEveryIteration) {
  const TempFile trace("trace.json");
  const CliRun r = rapidllm(kServe + " --set parallelism.inference.replica_count=2 --rate 40 --requests 30 "
                                     "--isl 100..400 --osl 10..30 --format json --trace-out " + trace.path.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto result = nlohmann::json::parse(r.out);
  const auto t = nlohmann::json::parse(rapidllm::testing::slurp(trace.path));
  ASSERT_TRUE(t.contains("traceEvents"));
  std::int64_t iterations = 0;
  std::set<int> tracks;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++iterations;
    tracks.insert(e["tid"].get<int>());
    EXPECT_GT(e["dur"].get<double>(), 0.0);
    for (const char* arg : {"decode_tokens", "prefill_tokens", "prefill_chunks", "kv_blocks_used"}) {
      EXPECT_TRUE(e["args"].contains(arg)) << arg;
    }
  }
  EXPECT_EQ(iterations, result["iterations"].get<std::int64_t>());
  EXPECT_EQ(tracks, (std::set<int>{0, 1}));  // one track per replica
}

// Disaggregated pools on the command line: both pools or neither, the pools in the JSON.
TEST(ServeCli, RunsDisaggregatedPoolsGivenTogether) {
  const CliRun r = rapidllm(kServe + " --rate 5 --requests 40 --isl 512 --osl 32 --prefill 1xtp2 --decode 2xtp1 "
                                     "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["num_gpus"], 4);
  EXPECT_EQ(j["prefill_replicas"], 1);
  EXPECT_EQ(j["decode_replicas"], 2);
  EXPECT_GT(j["kv_transfer_mean_s"].get<double>(), 0.0);
  for (const std::string& args : {std::string(" --prefill 1xtp2"), std::string(" --prefill 2xpp2 --decode 1xtp1"),
                                  std::string(" --prefill 1xtp2 --decode 1xtp1 --steady-state --offline")}) {
    const CliRun bad = rapidllm(kServe + " --rate 5 --requests 10" + args);
    EXPECT_EQ(bad.exit_code, 2) << args;
    EXPECT_THAT(bad.err, HasSubstr("--")) << args;
  }
}

// The layout search: every split of the GPUs, ranked, one CSV row each.
TEST(ServeCli, RanksEveryLayoutOfTheGpus) {
  const CliRun r = rapidllm(kServe + " --rate 10 --requests 100 --isl 256 --osl 32 --slo-ttft 100ms --layouts 2 "
                                     "--format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 2 GPUs: 2xtp1, 1xtp2 and 1xtp1P+1xtp1D, after the header.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4);
  EXPECT_THAT(r.out, HasSubstr("1xtp1P+1xtp1D"));
  const CliRun refused = rapidllm(kServe + " --rate 10 --requests 100 --layouts 2 --prefill 1xtp1 --decode 1xtp1");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--layouts"));
}

}  // namespace
