#include <gtest/gtest.h>

#include "exec/inference_predictor.hpp"
#include "llm_fixtures.hpp"
#include "model/llm_dims.hpp"

namespace rapidllm::exec {
namespace {

using testing::shipped_hardware;
using testing::shipped_model;

LlmModelSpec inference(LlmModelSpec m, std::int64_t batch, std::int64_t prompt, std::int64_t generated) {
  m.run_type = RunType::inference;
  m.global_batch_size = batch;
  m.seq_len = prompt + generated;
  m.decode_len = generated;
  return m;
}

TEST(InferencePredictor, DecodeAtBatchOneStreamsTheWeights) {
  // A 7B model at batch 1 reads all its weights once per token: the step must sit just
  // above weight bytes / sustained HBM bandwidth (with a CUDA-graph launch cost of 2 us).
  HardwareSpec hw = shipped_hardware("A100_SXM4_80GB");
  hw.sw.kernel_launch_overhead_s = 2e-6;
  const LlmModelSpec m = inference(shipped_model("llama2-7b"), 1, 128, 128);
  const InferencePrediction p = predict_inference(hw, m, "test");
  const double weights = model::parameter_count(model::llm_dims(m, "test")) * 2.0;
  const double roofline = weights / (hw.dram().bandwidth_bytes_per_s * hw.dram().util);
  EXPECT_GT(p.tpot.min_s, roofline);
  EXPECT_LT(p.tpot.min_s, 1.15 * roofline);
}

TEST(InferencePredictor, DecodeSumEqualsStepByStep) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  const LlmModelSpec base = shipped_model("llama3.1-8b");
  const InferencePrediction p = predict_inference(hw, inference(base, 32, 2000, 300), "test");
  // Sum the per-token latency by brute force: prefill of n tokens minus prefill of n-1
  // is not the decode step, so use one-token decodes at each cache length instead.
  double brute = 0.0;
  for (int i = 0; i < 300; ++i) {
    const InferencePrediction one = predict_inference(hw, inference(base, 32, 2000 + i, 1), "test");
    brute += one.decode_time_s;
  }
  EXPECT_NEAR(p.decode_time_s, brute, 1e-9 * brute);
  EXPECT_LE(p.tpot.min_s, p.tpot.mean_s);
  EXPECT_LE(p.tpot.mean_s, p.tpot.max_s);
  EXPECT_DOUBLE_EQ(p.total_time_s, p.prefill_time_s + p.decode_time_s);
  EXPECT_DOUBLE_EQ(p.decode_tokens_per_s, 32.0 * 300.0 / p.decode_time_s);
}

TEST(InferencePredictor, ABlockingPipelineEngineStallsOncePerHop) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.pp = 4;
  const LlmModelSpec m = inference(shipped_model("llama3.1-8b"), 8, 1000, 100);
  const InferencePrediction asynchronous = predict_inference(hw, m, "test");
  hw.sw.pipeline_transfer_stall_s = 0.01;
  const InferencePrediction blocking = predict_inference(hw, m, "test");
  // The prompt and every generated token cross 3 hops, each holding both its ends 10 ms.
  EXPECT_NEAR(blocking.prefill_time_s - asynchronous.prefill_time_s, 3 * 0.01, 1e-9);
  EXPECT_NEAR(blocking.decode_time_s - asynchronous.decode_time_s, 100 * 3 * 0.01, 1e-9);
}

// Context parallelism shards the KV cache by position: a decode step's attention runs over
// ceil(kv / cp) tokens on each rank. The closed-form sum over the steps must still equal the
// steps one by one, block edges included (an odd start and length over cp = 2 ranks).
TEST(InferencePredictor, ContextParallelDecodeSumEqualsStepByStep) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.cp = 2;
  const LlmModelSpec base = shipped_model("llama3.1-8b");
  const InferencePrediction p = predict_inference(hw, inference(base, 32, 2001, 301), "test");
  double brute = 0.0;
  for (int i = 0; i < 301; ++i) brute += predict_inference(hw, inference(base, 32, 2001 + i, 1), "test").decode_time_s;
  EXPECT_NEAR(p.decode_time_s, brute, 1e-9 * brute);
}

// Prefill with CP: each rank runs seq / cp tokens and gathers the sequence's K/V (the
// all-gather form, as training's CP); decode: each rank attends over its shard of the cache
// and the ranks merge their partial outputs. At batch 32 and a 32k context on Llama-3.1-70B
// (TP 8), cp = 2 halves the time to first token (less the gathers), the KV cache per GPU and
// the decode attention, and adds CP communication to both phases.
TEST(InferencePredictor, ContextParallelismShardsPrefillAndTheKvCache) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.tp = 8;
  const LlmModelSpec m = inference(shipped_model("llama3.1-70b"), 32, 31744, 1024);
  const InferencePrediction one = predict_inference(hw, m, "test");
  hw.parallelism.cp = 2;
  const InferencePrediction two = predict_inference(hw, m, "test");
  EXPECT_EQ(two.num_gpus, 16);
  EXPECT_GT(two.prefill_time_s, 0.45 * one.prefill_time_s);
  EXPECT_LT(two.prefill_time_s, 0.55 * one.prefill_time_s);
  const auto bytes = [](const MemoryBreakdown& b, const std::string& name) {
    for (const auto& [n, v] : b.bytes) {
      if (n == name) return v;
    }
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(bytes(two.memory, "kv_cache"), bytes(one.memory, "kv_cache") / 2.0);
  const auto seconds = [](const Breakdown& b, const std::string& name) {
    for (const auto& [n, v] : b) {
      if (n == name) return v;
    }
    return 0.0;
  };
  EXPECT_NEAR(seconds(two.decode_breakdown, "compute.attention") / seconds(one.decode_breakdown, "compute.attention"),
              0.5, 0.02);
  EXPECT_EQ(seconds(one.prefill_breakdown, "communication.cp"), 0.0);
  EXPECT_GT(seconds(two.prefill_breakdown, "communication.cp"), 0.0);
  EXPECT_GT(seconds(two.decode_breakdown, "communication.cp"), 0.0);
}

TEST(InferencePredictor, ReplicasScaleThroughputOnly) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  const LlmModelSpec m = inference(shipped_model("llama3.1-8b"), 8, 1024, 128);
  const InferencePrediction one = predict_inference(hw, m, "test");
  hw.parallelism.replica_count = 4;
  const InferencePrediction four = predict_inference(hw, m, "test");
  EXPECT_EQ(four.num_gpus, 4);
  EXPECT_DOUBLE_EQ(four.prefill_time_s, one.prefill_time_s);
  EXPECT_DOUBLE_EQ(four.decode_tokens_per_s, 4.0 * one.decode_tokens_per_s);
}

TEST(InferencePredictor, TensorParallelismShortensPrefillAndAddsAllReduces) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  const LlmModelSpec m = inference(shipped_model("llama3.1-70b"), 1, 2048, 64);
  hw.parallelism.tp = 8;
  const InferencePrediction tp8 = predict_inference(hw, m, "test");
  double tp_comm = 0.0;
  for (const auto& [n, s] : tp8.decode_breakdown) {
    if (n == "communication.tp") tp_comm = s;
  }
  // 80 layers x 2 all-reduces per token, each at least 2(8-1) ring steps of 0.93 us.
  EXPECT_GE(tp_comm / 64.0, 160 * 14 * 0.93e-6);
  hw.parallelism.tp = 4;
  EXPECT_GT(predict_inference(hw, m, "test").prefill_time_s, tp8.prefill_time_s);
}

}  // namespace
}  // namespace rapidllm::exec
