// The GPU names of the ground-truth rows -> shipped device configs (validate/device_map.cpp).
#include "validate/device_map.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rapidllm/predict.hpp"

namespace rapidllm::validate {
namespace {

const std::string kConfigs = RAPIDLLM_SOURCE_DIR "/configs";

TEST(DeviceMap, H200IsTheH100DieWithTheH200Memory) {
  std::string reason;
  const auto h100 = device_for("H100-SXM5-80GB (HBM3)", kConfigs, {}, reason);
  const auto h200 = device_for("H200-SXM-141GB", kConfigs, {}, reason);
  ASSERT_TRUE(h100 && h200) << reason;
  // Datasheet: 141 GB of HBM3e at 4.8 TB/s; compute and NVLink are the H100's.
  EXPECT_DOUBLE_EQ(h200->dram().size_bytes, 141e9);
  EXPECT_DOUBLE_EQ(h200->dram().bandwidth_bytes_per_s, 4.8e12);
  EXPECT_DOUBLE_EQ(h200->core.util, h100->core.util);
  EXPECT_DOUBLE_EQ(h200->network.dimensions.front().util, h100->network.dimensions.front().util);
}

// Meta's Grand Teton H100s: 96 GB of HBM2e and a 500 W cap, as the torchtitan rows state.
TEST(DeviceMap, AStatedPowerLimitCapsTheBoard) {
  std::string reason;
  const auto teton = device_for("H100 (96GB HBM2e, 2.4TB/s, 500W power limit; Grand Teton)", kConfigs, {}, reason);
  const auto dgx = device_for("H100-SXM5-80GB (HBM3)", kConfigs, {}, reason);
  ASSERT_TRUE(teton && dgx) << reason;
  EXPECT_DOUBLE_EQ(teton->core.power_limit_w, 500.0);
  EXPECT_DOUBLE_EQ(teton->dram().bandwidth_bytes_per_s, 2.4e12);
  EXPECT_EQ(dgx->core.power_limit_w, 0.0);
}

TEST(DeviceMap, AnUnshippedGpuIsSkippedWithItsName) {
  std::string reason;
  EXPECT_FALSE(device_for("V100-SXM3-32GB (DGX-2)", kConfigs, {}, reason));
  EXPECT_NE(reason.find("V100-SXM3-32GB"), std::string::npos);
}

// The rows' Blackwell names: the rack systems (whose names mention their B200 die) before
// the HGX node.
TEST(DeviceMap, BlackwellRowsGetTheirSystem) {
  std::string reason;
  const auto gb200 = device_for("GB200 (B200 die, 186GB)", kConfigs, {}, reason);
  const auto gb300 = device_for("GB300 (B300, 288GB)", kConfigs, {}, reason);
  const auto b200 = device_for("B200-180GB", kConfigs, {}, reason);
  ASSERT_TRUE(gb200 && gb300 && b200) << reason;
  EXPECT_DOUBLE_EQ(gb200->dram().size_bytes, 186e9);
  EXPECT_DOUBLE_EQ(gb300->dram().size_bytes, 288e9);
  EXPECT_DOUBLE_EQ(b200->dram().size_bytes, 180e9);
  EXPECT_EQ(gb200->network.dimensions.front().size, std::vector<int>{64});  // an NVLink domain of 64
  EXPECT_EQ(b200->network.dimensions.front().size, std::vector<int>{8});
}
// Blackwell's NVLink SHARP: a large NVLS all-reduce over 8 GPUs at the 811 GB/s bus
// bandwidth measured on a GB200 NVL72 ([MNNVL] in the files), on each Blackwell system.
TEST(DeviceMap, BlackwellNvlsAllReduceRunsAtTheMeasuredRate) {
  for (const char* gpu : {"GB200 (B200 die, 186GB)", "GB300 (B300, 288GB)", "B200-180GB"}) {
    std::string reason;
    const auto hw = device_for(gpu, kConfigs, {}, reason);
    ASSERT_TRUE(hw) << reason;
    const CollectiveRequest request{CollectiveOp::all_reduce, 8.0 * 1024 * 1024 * 1024, 8, std::nullopt,
                                    NetworkBackend::analytical};
    const CollectiveEstimate e = run_collective(*hw, request);
    ASSERT_FALSE(e.phases.empty());
    EXPECT_EQ(e.phases.front().algorithm, CollectiveAlgorithm::nvls) << gpu;
    EXPECT_NEAR(e.busbw_bytes_per_s / 811e9, 1.0, 0.01) << gpu;
  }
}

// The H800 is the H100 with its NVLink cut to 400 GB/s bidirectional: everything else is
// the H100's.
TEST(DeviceMap, H800IsTheH100WithHalfTheNvlink) {
  std::string reason;
  const auto h100 = device_for("H100-SXM5-80GB", kConfigs, {}, reason);
  const auto h800 = device_for("H800-SXM5-80GB", kConfigs, {}, reason);
  ASSERT_TRUE(h100 && h800) << reason;
  EXPECT_DOUBLE_EQ(h800->network.dimensions.front().bandwidth_bytes_per_s.front(), 200e9);
  EXPECT_DOUBLE_EQ(h100->network.dimensions.front().bandwidth_bytes_per_s.front(), 450e9);
  EXPECT_EQ(h800->network.dimensions.back().bandwidth_bytes_per_s, h100->network.dimensions.back().bandwidth_bytes_per_s);
  EXPECT_DOUBLE_EQ(h800->dram().bandwidth_bytes_per_s, h100->dram().bandwidth_bytes_per_s);
  EXPECT_EQ(h800->core.num_sms, h100->core.num_sms);
}

// An AMD row names its part; the MI325X is not the MI300X (more HBM, another power limit).
TEST(DeviceMap, Mi300xRowsGetTheMi300xPlatformAndLaterPartsAreSkipped) {
  std::string reason;
  const auto mi300x = device_for("MI300X-OAM-192GB", kConfigs, {}, reason);
  ASSERT_TRUE(mi300x) << reason;
  EXPECT_EQ(mi300x->core.num_sms, 304);
  EXPECT_FALSE(device_for("MI325X-256GB", kConfigs, {}, reason));
  EXPECT_NE(reason.find("MI325X"), std::string::npos);
}

// Each source's framework or engine column -> its software-stack profile; what the column
// does not name keeps "auto" (the run type's default).
TEST(DeviceMap, RowsRunUnderTheirOwnSoftwareStack) {
  std::string reason;
  const auto base = device_for("H100-SXM5-80GB", kConfigs, {}, reason);
  ASSERT_TRUE(base) << reason;
  const auto stack_of = [&](const char* column, RunType run) {
    HardwareSpec hw = *base;
    use_row_stack(hw, column, run);
    return hw.sw.stack;
  };
  EXPECT_EQ(stack_of("NeMo/Megatron-Core (dgxc recipe)", RunType::training), "megatron-core");
  EXPECT_EQ(stack_of("Megatron-Bridge / NeMo 25.11 (Megatron-Core)", RunType::training), "megatron-core");
  EXPECT_EQ(stack_of("Megatron-LM v2 (2020)", RunType::training), "megatron-lm-2020");
  EXPECT_EQ(stack_of("NeMo 24.07 (Megatron-Core, TransformerEngine)", RunType::training), "nemo-24");
  EXPECT_EQ(stack_of("Megatron-Core r0.8.0", RunType::training), "nemo-24");
  EXPECT_EQ(stack_of("Composer/llm-foundry (PyTorch FSDP), 2023", RunType::training), "composer-fsdp");
  EXPECT_EQ(stack_of("torchtitan (torch 2.6 nightly 2024-12-23, torchao)", RunType::training), "torchtitan");
  EXPECT_EQ(stack_of("MaxText (JAX) dgxc recipe", RunType::training), "maxtext");
  EXPECT_EQ(stack_of("Paxml 24.11 (JAX)", RunType::training), "paxml");
  EXPECT_EQ(stack_of("NeMo inference (TensorRT-LLM backend, 2023)", RunType::inference), "tensorrt-llm-0.5");
  EXPECT_EQ(stack_of("NVIDIA NIM (TensorRT-LLM backend), genai-perf client", RunType::inference), "tensorrt-llm");
  EXPECT_EQ(stack_of("LMDeploy TurboMind v0.1.0a1", RunType::inference), "lmdeploy");
  EXPECT_EQ(stack_of("HAI-LLM (internal)", RunType::training), "megatron-core");
  EXPECT_EQ(stack_of("not stated (likely vLLM)", RunType::inference), "tensorrt-llm");
}

// `rapidllm validate --set`: hardware keys reach every device, and a value set so wins over
// the row's profile.
TEST(DeviceMap, OverridesReachTheDeviceAndWinOverTheRowsStack) {
  std::string reason;
  auto hw = device_for("A100-SXM4-80GB", kConfigs, {"sw_param.compute_efficiency=0.42"}, reason);
  ASSERT_TRUE(hw) << reason;
  use_row_stack(*hw, "LMDeploy TurboMind v0.1.0a1", RunType::inference);
  EXPECT_EQ(hw->sw.stack, "lmdeploy");
  EXPECT_DOUBLE_EQ(hw->sw.compute_efficiency, 0.42);
}

}  // namespace
}  // namespace rapidllm::validate
