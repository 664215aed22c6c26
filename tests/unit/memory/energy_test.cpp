// Energy: components add up, static power scales with time, and HBM energy is what HBM
// traffic costs.
#include <gtest/gtest.h>

#include "exec/inference_predictor.hpp"
#include "exec/training_predictor.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm {
namespace {

HardwareSpec h100() { return load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml"); }
LlmModelSpec model(const std::string& name) {
  return std::get<LlmModelSpec>(
      load_model(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/models/" + name + ".yaml").workload);
}

LlmModelSpec decode(std::int64_t batch, std::int64_t prompt, std::int64_t generated) {
  LlmModelSpec m = model("llama3.1-8b");
  m.run_type = RunType::inference;
  m.global_batch_size = batch;
  m.seq_len = prompt + generated;
  m.decode_len = generated;
  return m;
}

TEST(Energy, DoublingHbmEnergyPerBitAddsTheHbmShare) {
  HardwareSpec hw = h100();
  const LlmModelSpec m = decode(1, 1024, 256);
  const InferencePrediction base = exec::predict_inference(hw, m, "test");
  hw.memory.back().dynamic_energy_per_bit_j *= 2.0;
  const InferencePrediction doubled = exec::predict_inference(hw, m, "test");
  EXPECT_GT(base.energy.hbm_j, 0.0);
  EXPECT_NEAR(doubled.energy.energy_j - base.energy.energy_j, base.energy.hbm_j, 1e-9 * base.energy.energy_j);
  // A batch-1 decode is memory-bound: HBM is the largest dynamic component.
  EXPECT_GT(base.energy.hbm_j, base.energy.compute_j);
}

TEST(Energy, ComponentsSumAndStaticPowerScalesWithTime) {
  HardwareSpec hw = h100();
  hw.parallelism.dp = 8;
  hw.parallelism.micro_batch_size = 1;
  hw.parallelism.cp = 1;
  LlmModelSpec m = model("llama3.1-8b");
  m.global_batch_size = 16;
  const TrainingPrediction p = exec::predict_training(hw, m, "test");
  const EnergyReport& e = p.energy;
  EXPECT_NEAR(e.compute_j + e.on_chip_j + e.hbm_j + e.network_j + e.static_j, e.energy_j, 1e-9 * e.energy_j);
  EXPECT_DOUBLE_EQ(e.static_j, 115.0 * p.step_time_s * 8);  // 115 W awake per GPU in the shipped H100 config
  EXPECT_DOUBLE_EQ(e.average_power_w, e.energy_j / (p.step_time_s * 8));
  EXPECT_DOUBLE_EQ(e.j_per_token, e.energy_j / (16.0 * 8192.0));
  EXPECT_GT(e.network_j, 0.0);  // the data-parallel gradient all-reduce
  // Tensor-core energy covers at least the model's FLOPs (recompute and padding add more).
  EXPECT_GE(e.compute_j, p.model_flops_per_step * hw.core.energy_per_flop_j * 0.99);
}

TEST(Energy, PowerAboveTheBoardLimitIsFlagged) {
  HardwareSpec hw = h100();
  const LlmModelSpec m = decode(8, 512, 64);
  EXPECT_FALSE(exec::predict_inference(hw, m, "test").energy.exceeds_max_power);  // 700 W limit
  hw.core.max_power_w = 50.0;  // below even the 70 W idle draw
  const InferencePrediction p = exec::predict_inference(hw, m, "test");
  EXPECT_TRUE(p.energy.exceeds_max_power);
  EXPECT_GT(p.energy.average_power_w, 50.0);
}

}  // namespace
}  // namespace rapidllm
