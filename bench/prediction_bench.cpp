// Speed of whole predictions: Llama-3.1-70B training on 1024 H100s (tp 8 x pp 8 x dp 16,
// 64 micro-batches) and inference on 1024 H100s (128 replicas of tp 8), as a sweep issues
// them: the kernel cost cache is warm after the first prediction on a device. The cold
// variant builds a fresh cache every time (a one-off prediction).
#include <benchmark/benchmark.h>

#include <string>

#include "exec/inference_predictor.hpp"
#include "exec/training_predictor.hpp"
#include "rapidllm/config.hpp"

namespace {

using namespace rapidllm;

HardwareSpec h100_cluster() {
  HardwareSpec hw = load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml");
  hw.parallelism.tp = 8;
  hw.parallelism.tp_sp = true;
  hw.parallelism.pp = 8;
  hw.parallelism.dp = 16;
  hw.parallelism.micro_batch_size = 1;
  hw.sw.dp_zero_stage = 1;
  return hw;
}

LlmModelSpec llama70b() {
  auto m = std::get<LlmModelSpec>(
      load_model(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/models/llama3.1-70b.yaml").workload);
  m.global_batch_size = 1024;
  return m;
}

void BM_TrainingPrediction(benchmark::State& state) {
  const HardwareSpec hw = h100_cluster();
  const LlmModelSpec m = llama70b();
  exec::CostCache costs;
  for (auto _ : state) benchmark::DoNotOptimize(exec::predict_training(hw, m, "bench", &costs).step_time_s);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TrainingPrediction);

void BM_TrainingPredictionCold(benchmark::State& state) {
  const HardwareSpec hw = h100_cluster();
  const LlmModelSpec m = llama70b();
  for (auto _ : state) benchmark::DoNotOptimize(exec::predict_training(hw, m, "bench").step_time_s);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TrainingPredictionCold)->Unit(benchmark::kMicrosecond);

void BM_InferencePrediction(benchmark::State& state) {
  HardwareSpec hw = h100_cluster();
  hw.parallelism.pp = 1;
  hw.parallelism.replica_count = 128;
  LlmModelSpec m = llama70b();
  m.run_type = RunType::inference;
  m.global_batch_size = 64;
  m.seq_len = 2048 + 512;
  m.decode_len = 512;
  exec::CostCache costs;
  for (auto _ : state) benchmark::DoNotOptimize(exec::predict_inference(hw, m, "bench", &costs).total_time_s);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_InferencePrediction);

}  // namespace
