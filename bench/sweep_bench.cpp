// Plan-search speed: `rapidllm sweep` of Llama-3.1-70B (global batch 1024, seq 8192) on
// 1024 H100s over the default axes (docs/sweep.md) and over a wider space, as points per
// second (every point: rejected by a rule, pruned by memory or predicted) and predictions
// per second, on 1 and 2 threads; and a design sweep crossing the plans with 16 HBM
// bandwidths. Each iteration is one whole
// sweep from the config files (cold kernel cache included).
#include <benchmark/benchmark.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "rapidllm/sweep.hpp"

namespace {

using namespace rapidllm;

const std::string kHardware = std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml";
const std::string kModel = std::string(RAPIDLLM_SOURCE_DIR) + "/configs/models/llama3.1-70b.yaml";

// Plans whose layers do not split evenly over the pipeline warn, as under the CLI, whose
// sink prints each message once; here they are formatted and dropped, not printed by the
// hundred thousand.
const bool kWarningsDropped = [] {
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("bench", std::make_shared<spdlog::sinks::null_sink_mt>()));
  return true;
}();

void run(benchmark::State& state, SweepOptions o) {
  o.gpus = 1024;
  o.jobs = static_cast<int>(state.range(0));
  std::int64_t points = 0;
  std::int64_t predicted = 0;
  for (auto _ : state) {
    const SweepResult r = sweep(kHardware, kModel, {"model_param.global_batch_size=1024"}, o);
    points += static_cast<std::int64_t>(r.points.size());
    predicted += r.evaluated;
  }
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(points), benchmark::Counter::kIsRate);
  state.counters["predictions_per_s"] = benchmark::Counter(static_cast<double>(predicted), benchmark::Counter::kIsRate);
  state.counters["points"] = static_cast<double>(points) / static_cast<double>(state.iterations());
}

void BM_PlanSweepLlama70B1024(benchmark::State& state) { run(state, SweepOptions{}); }

// A wider plan space, where the per-sweep costs (loading the configs, the first tile
// search of each GEMM shape) weigh less: micro-batch sizes 1-16, every ZeRO stage, four
// schedules with vpp 2, 4 and 8 (8,880 points).
void BM_PlanSweepWideLlama70B1024(benchmark::State& state) {
  SweepOptions o;
  o.axes.micro_batch_size = {1, 2, 4, 8, 16};
  o.axes.zero_stage = {0, 1, 2, 3};
  o.axes.schedule = {PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved_1f1b, PipelineSchedule::zero_bubble,
                     PipelineSchedule::dualpipe};
  o.axes.vpp = {2, 4, 8};
  run(state, o);
}

void BM_DesignSweepHbmBandwidth(benchmark::State& state) {
  SweepOptions o;
  SweepVary v{"tech_param.DRAM.bandwidth", {}};
  for (int i = 0; i < 16; ++i) v.values.push_back(std::to_string(2.0e12 + i * 0.2e12));
  o.vary = {v};
  run(state, o);
}

}  // namespace

BENCHMARK(BM_PlanSweepLlama70B1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PlanSweepWideLlama70B1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DesignSweepHbmBandwidth)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
