// The fit / does-not-fit verdicts users prune sweeps on.
#include <gtest/gtest.h>

#include "exec/inference_predictor.hpp"
#include "exec/training_predictor.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm {
namespace {

HardwareSpec a100() { return load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/A100_SXM4_80GB.yaml"); }
LlmModelSpec model(const std::string& name) {
  return std::get<LlmModelSpec>(
      load_model(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/models/" + name + ".yaml").workload);
}

TEST(MemoryVerdicts, Llama2_7BFullFineTuneNeedsSharding) {
  HardwareSpec hw = a100();  // bf16 weights, fp32 gradients, master copy and Adam moments
  hw.sw.recompute = ActivationRecompute::full;
  LlmModelSpec m = model("llama2-7b");
  m.global_batch_size = 8;
  hw.parallelism.micro_batch_size = 1;
  const TrainingPrediction one = exec::predict_training(hw, m, "test");
  EXPECT_FALSE(one.memory.fits());
  EXPECT_GT(one.memory.total_bytes, 6.7e9 * 18.0);  // 2 + 4 + 4 + 8 bytes per parameter alone
  hw.parallelism.dp = 8;
  hw.sw.dp_zero_stage = 3;
  const TrainingPrediction sharded = exec::predict_training(hw, m, "test");
  EXPECT_TRUE(sharded.memory.fits());
  EXPECT_LT(sharded.memory.total_bytes, 40e9);
}

TEST(MemoryVerdicts, Llama3_70BInferenceNeedsTwoGpus) {
  HardwareSpec hw = a100();
  LlmModelSpec m = model("llama3.1-70b");
  m.run_type = RunType::inference;
  m.global_batch_size = 1;
  m.seq_len = 1024;
  m.decode_len = 512;
  const InferencePrediction one = exec::predict_inference(hw, m, "test");
  EXPECT_FALSE(one.memory.fits());  // 141 GB of bf16 weights
  hw.parallelism.tp = 2;
  const InferencePrediction two = exec::predict_inference(hw, m, "test");
  EXPECT_TRUE(two.memory.fits());
  EXPECT_GT(two.memory.total_bytes, 70.5e9 / 2 * 2);  // half the 70.55e9 bf16 parameters each
}

TEST(MemoryVerdicts, PipelineFirstStagePeaksUnder1F1B) {
  HardwareSpec hw = load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml");
  hw.parallelism.pp = 4;
  hw.parallelism.mb = 8;
  LlmModelSpec m = model("llama3.1-8b");
  m.global_batch_size = 8;
  m.vocab_size = 256;  // keep the last stage's head small so activations decide
  const TrainingPrediction p = exec::predict_training(hw, m, "test");
  ASSERT_EQ(p.stage_memory.size(), 4u);
  EXPECT_EQ(p.memory.stage, 0);
  EXPECT_GT(p.stage_memory[0].total_bytes, p.stage_memory[3].total_bytes);
}

}  // namespace
}  // namespace rapidllm
