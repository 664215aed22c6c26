// A ground-truth row's framework or engine column -> its software-stack profile and whether
// its release computed attention unfused. Every column of today's data, plus the releases
// the data does not hold yet but published results name (Megatron-LM 2021-2022,
// Megatron-DeepSpeed, TensorRT-LLM 0.5-0.6).
#include <gtest/gtest.h>

#include "validate/row_stack.hpp"

namespace rapidllm::validate {
namespace {

TEST(RowStack, TodaysColumnsKeepTheirProfiles) {
  EXPECT_EQ(row_stack_name("NeMo/Megatron-Core (dgxc recipe)"), "megatron-core");
  EXPECT_EQ(row_stack_name("Megatron-Bridge / NeMo 25.11 (Megatron-Core)"), "megatron-core");
  EXPECT_EQ(row_stack_name("Megatron-LM v2 (2020)"), "megatron-lm-2020");
  EXPECT_EQ(row_stack_name("Megatron-LM v1/v2 (2020)"), "megatron-lm-2020");
  EXPECT_EQ(row_stack_name("NeMo 24.07 (Megatron-Core, TransformerEngine)"), "nemo-24");
  EXPECT_EQ(row_stack_name("Megatron-Core r0.8.0"), "nemo-24");
  EXPECT_EQ(row_stack_name("Composer/llm-foundry (PyTorch FSDP), 2023"), "composer-fsdp");
  EXPECT_EQ(row_stack_name("torchtitan (torch 2025-06-14 nightly)"), "torchtitan");
  EXPECT_EQ(row_stack_name("Paxml 24.11 (JAX)"), "paxml");
  EXPECT_EQ(row_stack_name("MaxText (JAX) dgxc recipe"), "maxtext");
  EXPECT_EQ(row_stack_name("TensorRT-LLM v1.0 (trtllm-bench throughput, PyTorch backend)"), "tensorrt-llm");
  EXPECT_EQ(row_stack_name("NVIDIA NIM (TensorRT-LLM backend), genai-perf client"), "tensorrt-llm");
  EXPECT_EQ(row_stack_name("LMDeploy TurboMind v0.1.0a1"), "lmdeploy");
  EXPECT_EQ(row_stack_name("metaseq (FSDP + Megatron TP)"), "megatron-core");
  EXPECT_EQ(row_stack_name("HAI-LLM (internal)"), "auto");
  EXPECT_EQ(row_stack_name("not stated by transcription (Koyeb benchmark harness; likely vLLM)"), "auto");
}

// Megatron-LM before Megatron-Core, by version or year; its successors are not.
TEST(RowStack, MegatronLmReleasesBeforeMegatronCoreRunItsLegacyProfile) {
  EXPECT_EQ(row_stack_name("Megatron-LM (PTD-P, 2021)"), "megatron-lm-2020");
  EXPECT_EQ(row_stack_name("Megatron-LM v3 (sequence parallelism, 2022)"), "megatron-lm-2020");
  EXPECT_EQ(row_stack_name("Megatron-LM (2024)"), "megatron-core");
  EXPECT_EQ(row_stack_name("Megatron-LM core_r0.9.0 (2024)"), "megatron-core");
  EXPECT_EQ(row_stack_name("Megatron-LM"), "megatron-core");
}

TEST(RowStack, DeepSpeedDrivingMegatronIsMegatronDeepSpeed) {
  EXPECT_EQ(row_stack_name("Megatron-DeepSpeed (BLOOM-176B, 2022)"), "megatron-deepspeed");
  EXPECT_EQ(row_stack_name("DeepSpeed + Megatron-LM (MT-NLG)"), "megatron-deepspeed");
  EXPECT_EQ(row_stack_name("DeepSpeed ZeRO-3 (HF Transformers)"), "auto");
}

// 0.5 and 0.6 (October-December 2023) by version, or a 2023 run without one; 0.7 and later,
// and every version named 1.x, are today's engine.
TEST(RowStack, TensorRtLlmBeforeItsGqaDecodeKernelsIsTheEarlyProfile) {
  EXPECT_EQ(row_stack_name("TensorRT-LLM v0.5.0"), "tensorrt-llm-0.5");
  EXPECT_EQ(row_stack_name("TensorRT-LLM 0.6.1 (gptManagerBenchmark)"), "tensorrt-llm-0.5");
  EXPECT_EQ(row_stack_name("NeMo inference (TensorRT-LLM backend, 2023)"), "tensorrt-llm-0.5");
  EXPECT_EQ(row_stack_name("TensorRT-LLM v0.8.0 (2024)"), "tensorrt-llm");
  EXPECT_EQ(row_stack_name("TensorRT-LLM 0.11 (2023 build, run 2024)"), "tensorrt-llm");
  EXPECT_EQ(row_stack_name("TensorRT-LLM v1.0 (2025)"), "tensorrt-llm");
}

TEST(RowStack, ReleasesBefore2023ComputedAttentionUnfused) {
  EXPECT_TRUE(predates_flash_attention("Megatron-LM v2 (2020)"));
  EXPECT_TRUE(predates_flash_attention("Megatron-LM v3"));
  EXPECT_TRUE(predates_flash_attention("Megatron-DeepSpeed (BLOOM-176B, 2022)"));
  EXPECT_FALSE(predates_flash_attention("Megatron-DeepSpeed (2023, --use-flash-attn)"));
  EXPECT_FALSE(predates_flash_attention("Composer/llm-foundry (PyTorch FSDP), 2023"));
  EXPECT_FALSE(predates_flash_attention("torchtitan (torch 2.6 nightly 2024-12-23, torchao)"));
  EXPECT_FALSE(predates_flash_attention("NeMo/Megatron-Core (dgxc recipe)"));
  // A number that is not a release year says nothing.
  EXPECT_FALSE(predates_flash_attention("MaxText on 2048 GPUs"));
  EXPECT_FALSE(predates_flash_attention("Paxml on 1920 GPUs"));
  EXPECT_EQ(row_stack_name("Megatron-LM on 1920 GPUs"), "megatron-core");
}

// Megatron's compiled cross-entropy came with Megatron-Core r0.8 (NeMo 24.07) and is off in
// Megatron-LM's own scripts by default.
TEST(RowStack, MegatronLmBeforeV2HadNoMicroBatches) {
  EXPECT_TRUE(predates_megatron_micro_batches("Megatron-LM v2 (2020)"));
  EXPECT_TRUE(predates_megatron_micro_batches("Megatron-LM v1/v2 (2020)"));
  EXPECT_FALSE(predates_megatron_micro_batches("Megatron-LM v3 (2022)"));
  EXPECT_FALSE(predates_megatron_micro_batches("Megatron-LM v3"));  // no year: v3 had them
  EXPECT_FALSE(predates_megatron_micro_batches("Megatron-DeepSpeed (BLOOM-176B, 2022)"));
  EXPECT_FALSE(predates_megatron_micro_batches("Megatron-Core r0.8.0"));
}

TEST(RowStack, UnfusedMegatronCrossEntropyFollowsTheRelease) {
  EXPECT_TRUE(runs_unfused_megatron_cross_entropy("Megatron-Core r0.8.0"));
  EXPECT_TRUE(runs_unfused_megatron_cross_entropy("NeMo 24.03.01"));
  EXPECT_FALSE(runs_unfused_megatron_cross_entropy("NeMo 24.07"));
  EXPECT_FALSE(runs_unfused_megatron_cross_entropy("NeMo 24.07 (Megatron-Core, TransformerEngine)"));
  // Other profiles say their own (software_stack.cpp).
  EXPECT_FALSE(runs_unfused_megatron_cross_entropy("Megatron-LM v2 (2020)"));
  EXPECT_FALSE(runs_unfused_megatron_cross_entropy("NeMo/Megatron-Core (dgxc recipe)"));
  EXPECT_FALSE(runs_unfused_megatron_cross_entropy("Megatron-Bridge / NeMo 25.11 (Megatron-Core)"));
}

TEST(RowStack, TheZeroStageIsReadInMegatronFsdpAndDeepSpeedTerms) {
  EXPECT_EQ(zero_stage_of("DDP + distributed optimizer"), 1);
  EXPECT_EQ(zero_stage_of("FSDP SHARD_GRAD_OP (ZeRO-2-like)"), 2);
  EXPECT_EQ(zero_stage_of("FSDP FULL_SHARD (ZeRO-3-like)"), 3);
  EXPECT_EQ(zero_stage_of("FSDP2 degree 8"), 3);
  EXPECT_EQ(zero_stage_of("ZeRO-1 DP"), 1);
  EXPECT_EQ(zero_stage_of("DeepSpeed ZeRO stage 2"), 2);
  EXPECT_EQ(zero_stage_of("none (DDP)"), 0);
  EXPECT_EQ(zero_stage_of(""), 0);
}

}  // namespace
}  // namespace rapidllm::validate
