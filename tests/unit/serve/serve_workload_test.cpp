// Serving workloads and options: closed loops keep their clients busy, traces replay,
// bad input is a clear error.
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "rapidllm/error.hpp"
#include "rapidllm/serve.hpp"

namespace rapidllm {
namespace {

std::string source_path(const std::string& rel) { return std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel; }

Scenario llama8b() {
  return load_scenario(source_path("configs/hardware/H100_SXM5_80GB.yaml"),
                       source_path("configs/models/llama3.1-8b.yaml"), {"model_param.run_type=inference"});
}

TEST(ServeWorkload, AClosedLoopKeepsItsClientsInTheSystem) {
  ServeOptions o;
  o.engine = *serve_engine_profile("vllm");
  o.workload.arrivals = ArrivalKind::concurrency;
  o.workload.concurrency = 8;
  o.workload.requests = 200;
  o.workload.input = {300, 300};
  o.workload.output = {50, 50};
  const ServeResult r = serve(llama8b(), o);
  EXPECT_EQ(r.requests, 200);
  // Eight requests in the system all the time but the last few.
  EXPECT_NEAR(r.mean_requests_in_system, 8.0, 0.5);
}

TEST(ServeWorkload, ATraceIsReplayedAtItsTimes) {
  const std::string path = ::testing::TempDir() + "serve_trace.csv";
  {
    std::ofstream f(path);
    f << "arrival_s,input_tokens,output_tokens\n0.0,100,10\n5.0,200,20\n";
  }
  ServeOptions o;
  o.engine = *serve_engine_profile("vllm");
  o.workload.arrivals = ArrivalKind::trace;
  o.workload.trace_file = path;
  const ServeResult r = serve(llama8b(), o);
  ASSERT_EQ(r.requests, 2);
  ASSERT_EQ(r.request_log.size(), 2U);
  EXPECT_DOUBLE_EQ(r.request_log[1].arrival_s, 5.0);
  EXPECT_EQ(r.output_tokens, 30);
  EXPECT_EQ(r.input_tokens, 300);
  std::remove(path.c_str());
}

TEST(ServeWorkload, ARunWithoutAnEndIsAConfigError) {
  ServeOptions o;
  o.engine = *serve_engine_profile("vllm");
  o.workload.arrivals = ArrivalKind::poisson;
  o.workload.rate_per_s = 1.0;
  EXPECT_THROW((void)serve(llama8b(), o), ConfigError);
  o.workload.requests = 10;
  o.workload.input = {10, 5};
  EXPECT_THROW((void)serve(llama8b(), o), ConfigError);
}

TEST(ServeWorkload, ABadTraceRowNamesItsLine) {
  const std::string path = ::testing::TempDir() + "serve_bad_trace.csv";
  {
    std::ofstream f(path);
    f << "arrival_s,input_tokens,output_tokens\n0.0,100,10\n1.0,abc,3\n";
  }
  ServeOptions o;
  o.engine = *serve_engine_profile("vllm");
  o.workload.arrivals = ArrivalKind::trace;
  o.workload.trace_file = path;
  try {
    (void)serve(llama8b(), o);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().line, 3);
  }
  std::remove(path.c_str());
}

TEST(ServeWorkload, EngineProfilesAreNamed) {
  EXPECT_TRUE(serve_engine_profile("vllm").has_value());
  EXPECT_TRUE(serve_engine_profile("tensorrt-llm").has_value());
  EXPECT_FALSE(serve_engine_profile("nonsense").has_value());
  EXPECT_EQ(serve_engine_profile_names().size(), 2U);
}

}  // namespace
}  // namespace rapidllm
