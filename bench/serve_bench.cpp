// Serving-simulation speed: one simulated hour of Poisson arrivals (100,000 requests,
// 27.8 per second, prompts 128-2048 and answers 32-512 tokens, uniform) on 8 replicas of
// Llama-3.1-8B on one H100 each, vLLM's profile; wall time per run (target: under 10 s on
// one core), simulated requests and engine iterations per wall second. Each iteration is
// one whole run from the config files, iteration costs cached from cold.
#include <benchmark/benchmark.h>

#include <string>

#include "rapidllm/serve.hpp"

namespace {

using namespace rapidllm;

void BM_ServeHourOf100kRequestsOn8Replicas(benchmark::State& state) {
  const Scenario scenario = load_scenario(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml",
                                          std::string(RAPIDLLM_SOURCE_DIR) + "/configs/models/llama3.1-8b.yaml",
                                          {"model_param.run_type=inference", "parallelism.inference.replica_count=8"});
  ServeOptions o;
  o.engine = *serve_engine_profile("vllm");
  o.workload.arrivals = ArrivalKind::poisson;
  o.workload.rate_per_s = 100000.0 / 3600.0;
  o.workload.requests = 100000;
  o.workload.input = {128, 2048};
  o.workload.output = {32, 512};
  o.keep_requests = false;
  std::int64_t requests = 0;
  std::int64_t iterations = 0;
  double simulated_s = 0.0;
  for (auto _ : state) {
    const ServeResult r = serve(scenario, o);
    requests += r.requests;
    iterations += r.iterations;
    simulated_s = r.duration_s;
    benchmark::DoNotOptimize(r.ttft.p99_s);
  }
  state.counters["requests_per_s"] = benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
  state.counters["iterations_per_s"] = benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
  state.counters["simulated_s"] = simulated_s;
}

}  // namespace

BENCHMARK(BM_ServeHourOf100kRequestsOn8Replicas)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);
