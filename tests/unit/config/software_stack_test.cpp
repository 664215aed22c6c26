// Software-stack profiles: sw_param.framework picks one, "auto" follows the run type, and a
// value the config sets itself wins over the profile's.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "rapidllm/config.hpp"
#include "rapidllm/software_stack.hpp"

namespace rapidllm {
namespace {

std::string shipped(const std::string& rel) { return std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel; }
const std::string kH100 = shipped("configs/hardware/H100_SXM5_80GB.yaml");
const std::string kModel = shipped("configs/models/llama3.1-8b.yaml");

SoftwareStackProfile profile(std::string_view name) {
  const auto p = software_stack_profile(name);
  EXPECT_TRUE(p.has_value()) << name;
  return p.value_or(SoftwareStackProfile{});
}

TEST(SoftwareStack, EveryNamedProfileHasItsOwnSaneConstants) {
  ASSERT_GE(software_stack_names().size(), 10u);
  for (auto name : software_stack_names()) {
    const SoftwareStackProfile p = profile(name);
    EXPECT_EQ(p.name, name);
    EXPECT_GT(p.compute_efficiency, 0.2) << name;
    EXPECT_LE(p.compute_efficiency, 1.0) << name;
    EXPECT_GT(p.kernel_launch_overhead_s, 0.0) << name;
    // A host gap, not a kernel: eager PyTorch behind nanotron's Python blocks is the slowest (~110 us).
    EXPECT_LT(p.kernel_launch_overhead_s, 2e-4) << name;
    EXPECT_FALSE(p.calibration.empty()) << name;
    // Asynchronous pipeline transfers, but for nanotron's benchmarking branch before its fix.
    EXPECT_EQ(p.pipeline_transfer_stall_s > 0.0, name == "nanotron-pre-pp-fix") << name;
    EXPECT_LT(p.pipeline_transfer_stall_s, 1.0) << name;
    // Megatron-LM's 40M-parameter gradient buckets, but for its 2020 DDP's one buffer and
    // DeepSpeed's reduction after backward.
    const bool one_buffer = name == "megatron-lm-2020" || name == "megatron-deepspeed";
    EXPECT_DOUBLE_EQ(p.dp_bucket_params, one_buffer ? kOneGradientBuffer : 40e6) << name;
    // Decode shares each KV head's cache across its query heads, but for FasterTransformer's
    // per-head kernel in LMDeploy and early TensorRT-LLM (repeats part-caught by L2: between
    // one pass and a group's eight).
    if (name == "lmdeploy" || name == "tensorrt-llm-0.5") {
      EXPECT_GT(p.decode_kv_passes, 1.0);
      EXPECT_LT(p.decode_kv_passes, 8.0);
    } else {
      EXPECT_DOUBLE_EQ(p.decode_kv_passes, 1.0) << name;
    }
    // Only nanotron's runs hold TP collectives while the pipeline spans nodes, before its
    // pipeline fix as after it: the same two constants (calibrate.py's shared tags).
    if (name == "nanotron" || name == "nanotron-pre-pp-fix") {
      EXPECT_GT(p.pipelined_tp_wait_s + p.pipelined_tp_wait_per_rank_s, 0.0);
      EXPECT_DOUBLE_EQ(p.pipelined_tp_wait_s, profile("nanotron").pipelined_tp_wait_s) << name;
      EXPECT_DOUBLE_EQ(p.pipelined_tp_wait_per_rank_s, profile("nanotron").pipelined_tp_wait_per_rank_s) << name;
    } else {
      EXPECT_DOUBLE_EQ(p.pipelined_tp_wait_s, 0.0) << name;
      EXPECT_DOUBLE_EQ(p.pipelined_tp_wait_per_rank_s, 0.0) << name;
    }
  }
  EXPECT_FALSE(software_stack_profile("auto").has_value());  // resolved first, never looked up
  EXPECT_FALSE(software_stack_profile("deepspeed-0.1").has_value());
}

TEST(SoftwareStack, AutoIsMegatronCoreForTrainingAndTensorRtLlmForInference) {
  EXPECT_EQ(resolve_framework("auto", RunType::training), "megatron-core");
  EXPECT_EQ(resolve_framework("auto", RunType::inference), "tensorrt-llm");
  EXPECT_EQ(resolve_framework("lmdeploy", RunType::training), "lmdeploy");
}

TEST(SoftwareStack, AHardwareFileTakesItsProfilesValues) {
  const HardwareSpec hw = load_hardware(kH100);
  EXPECT_EQ(hw.sw.framework, "auto");
  EXPECT_EQ(hw.sw.stack, "megatron-core");
  EXPECT_DOUBLE_EQ(hw.sw.compute_efficiency, profile("megatron-core").compute_efficiency);
  EXPECT_DOUBLE_EQ(hw.sw.kernel_launch_overhead_s, profile("megatron-core").kernel_launch_overhead_s);

  const HardwareSpec composer = load_hardware(kH100, {"sw_param.framework=composer-fsdp"});
  EXPECT_EQ(composer.sw.stack, "composer-fsdp");
  EXPECT_DOUBLE_EQ(composer.sw.compute_efficiency, profile("composer-fsdp").compute_efficiency);
}

TEST(SoftwareStack, TheProfileChoosesTheAttentionKernelFamily) {
  EXPECT_EQ(load_hardware(kH100).sw.attention_kernel, AttentionKernel::flash3);  // megatron-core: cuDNN
  // llm-foundry's MPT runs flash-attn's Triton kernel (attn_impl: triton).
  EXPECT_EQ(load_hardware(kH100, {"sw_param.framework=composer-fsdp"}).sw.attention_kernel, AttentionKernel::triton);
  EXPECT_EQ(load_hardware(kH100, {"sw_param.framework=composer-fsdp", "sw_param.attention_kernel=flash3"})
                .sw.attention_kernel,
            AttentionKernel::flash3);
  // Kernel facts: on H100 measured per family and pass (validation/kernels/measured/h100);
  // on A100 (no FlashAttention-3) a flash3 stack runs FlashAttention-2-class kernels, at the
  // paper's one share for both passes.
  const CoreSpec h100 = load_hardware(kH100).core;
  EXPECT_DOUBLE_EQ(h100.attention_facts(AttentionKernel::flash2, DType::bf16).forward_util, 0.435);
  EXPECT_DOUBLE_EQ(h100.attention_facts(AttentionKernel::flash3, DType::bf16).backward_util, 0.69);
  EXPECT_EQ(h100.attention_facts(AttentionKernel::flash3, DType::bf16).softmax_overlap, 0.55);
  const CoreSpec a100 = load_hardware(shipped("configs/hardware/A100_SXM4_80GB.yaml")).core;
  const FusedAttentionFacts a100_flash3 = a100.attention_facts(AttentionKernel::flash3, DType::bf16);
  EXPECT_DOUBLE_EQ(a100_flash3.forward_util, 0.73);
  EXPECT_DOUBLE_EQ(a100_flash3.backward_util, 0.73);
  EXPECT_FALSE(a100_flash3.softmax_overlap.has_value());
  EXPECT_DOUBLE_EQ(a100_flash3.backward_cta_fill, 0.0);
  // The Triton kernel: one share of the whole kernel, its softmax inside it; a device with no
  // share of its own runs it at FlashAttention-2's facts (the same algorithm class).
  const FusedAttentionFacts a100_triton = a100.attention_facts(AttentionKernel::triton, DType::bf16);
  EXPECT_DOUBLE_EQ(a100_triton.forward_util, a100_triton.backward_util);
  EXPECT_LT(a100_triton.forward_util, a100_flash3.forward_util);
  EXPECT_EQ(a100_triton.softmax_overlap, 1.0);
  const CoreSpec h200 = load_hardware(shipped("configs/hardware/H200_SXM_141GB.yaml")).core;
  EXPECT_DOUBLE_EQ(h200.attention_facts(AttentionKernel::triton, DType::bf16).forward_util,
                   h200.attention_facts(AttentionKernel::flash2, DType::bf16).forward_util);
  // No attention fact (Blackwell): the GEMM rate.
  const CoreSpec b200 = load_hardware(shipped("configs/hardware/B200_HGX_180GB.yaml")).core;
  EXPECT_DOUBLE_EQ(b200.attention_facts(AttentionKernel::flash3, DType::bf16).forward_util, b200.util);
}

TEST(SoftwareStack, ValuesTheConfigSetsWinOverTheProfile) {
  const HardwareSpec hw =
      load_hardware(kH100, {"sw_param.compute_efficiency=0.5", "sw_param.kernel_launch_overhead=3 us"});
  EXPECT_DOUBLE_EQ(hw.sw.compute_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(hw.sw.kernel_launch_overhead_s, 3e-6);
  SoftwareSpec sw = hw.sw;
  sw.framework = "lmdeploy";
  apply_software_stack(sw, RunType::inference);
  EXPECT_EQ(sw.stack, "lmdeploy");
  EXPECT_DOUBLE_EQ(sw.compute_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(sw.kernel_launch_overhead_s, 3e-6);
}

TEST(SoftwareStack, APipelineTransferStallIsAProfileValueAConfigCanSet) {
  EXPECT_DOUBLE_EQ(load_hardware(kH100).sw.pipeline_transfer_stall_s, 0.0);
  const HardwareSpec blocking = load_hardware(kH100, {"sw_param.framework=nanotron-pre-pp-fix"});
  EXPECT_DOUBLE_EQ(blocking.sw.pipeline_transfer_stall_s, profile("nanotron-pre-pp-fix").pipeline_transfer_stall_s);
  const HardwareSpec set =
      load_hardware(kH100, {"sw_param.framework=nanotron-pre-pp-fix", "sw_param.pipeline_transfer_stall=40 ms"});
  EXPECT_DOUBLE_EQ(set.sw.pipeline_transfer_stall_s, 0.04);
  EXPECT_THROW((void)load_hardware(kH100, {"sw_param.pipeline_transfer_stall=-1 s"}), ConfigError);
}

TEST(SoftwareStack, TheGradientBucketIsAProfileValueAConfigCanSet) {
  EXPECT_DOUBLE_EQ(load_hardware(kH100).sw.dp_bucket_params, 40e6);
  EXPECT_DOUBLE_EQ(load_hardware(kH100, {"sw_param.framework=megatron-lm-2020"}).sw.dp_bucket_params,
                   kOneGradientBuffer);
  EXPECT_DOUBLE_EQ(
      load_hardware(kH100, {"sw_param.framework=megatron-lm-2020", "sw_param.dp_bucket_params=25e6"}).sw.dp_bucket_params,
      25e6);
}

TEST(SoftwareStack, DecodeKvPassesAreAProfileValueAConfigCanSet) {
  EXPECT_DOUBLE_EQ(load_hardware(kH100).sw.decode_kv_passes, 1.0);
  EXPECT_DOUBLE_EQ(load_hardware(kH100, {"sw_param.framework=lmdeploy"}).sw.decode_kv_passes,
                   profile("lmdeploy").decode_kv_passes);
  EXPECT_DOUBLE_EQ(
      load_hardware(kH100, {"sw_param.framework=lmdeploy", "sw_param.decode_kv_passes=8"}).sw.decode_kv_passes, 8.0);
  EXPECT_THROW((void)load_hardware(kH100, {"sw_param.decode_kv_passes=0.5"}), ConfigError);
}

// The profiles without rows of their own take the constants of the stack whose kernels
// they run: Megatron-DeepSpeed Megatron-LM 2020's, early TensorRT-LLM today's engine's and
// the decode kernel TurboMind shares with it.
TEST(SoftwareStack, UncalibratedProfilesBorrowTheConstantsOfTheKernelsTheyRun) {
  const SoftwareStackProfile deepspeed = profile("megatron-deepspeed");
  const SoftwareStackProfile megatron_lm = profile("megatron-lm-2020");
  EXPECT_DOUBLE_EQ(deepspeed.compute_efficiency, megatron_lm.compute_efficiency);
  EXPECT_EQ(deepspeed.attention_kernel, megatron_lm.attention_kernel);
  EXPECT_NE(deepspeed.calibration.find("uncalibrated"), std::string_view::npos);

  const SoftwareStackProfile early = profile("tensorrt-llm-0.5");
  const SoftwareStackProfile trtllm = profile("tensorrt-llm");
  EXPECT_DOUBLE_EQ(early.compute_efficiency, trtllm.compute_efficiency);
  EXPECT_DOUBLE_EQ(early.kernel_launch_overhead_s, trtllm.kernel_launch_overhead_s);
  EXPECT_EQ(early.attention_kernel, trtllm.attention_kernel);
  EXPECT_DOUBLE_EQ(early.decode_kv_passes, profile("lmdeploy").decode_kv_passes);
  EXPECT_NE(early.calibration.find("uncalibrated"), std::string_view::npos);
}

TEST(SoftwareStack, OnlyNanotronAndDeepSpeedGatherZeroParametersBeforeTheNextStep) {
  for (std::string_view name : software_stack_names()) {
    EXPECT_EQ(profile(name).zero_gather_overlap, name.substr(0, 8) != "nanotron" && name != "megatron-deepspeed")
        << name;
  }
  EXPECT_TRUE(load_hardware(kH100).sw.zero_gather_overlap);
  EXPECT_FALSE(load_hardware(kH100, {"sw_param.framework=nanotron"}).sw.zero_gather_overlap);
  EXPECT_TRUE(
      load_hardware(kH100, {"sw_param.framework=nanotron", "sw_param.zero_gather_overlap=true"}).sw.zero_gather_overlap);
  EXPECT_THROW((void)load_hardware(kH100, {"sw_param.zero_gather_overlap=sometimes"}), ConfigError);
}

// Each profile's cross-entropy, from its code: torchtitan's F.cross_entropy; Megatron's
// vocabulary-parallel code, compiled in NeMo 24's configs, one op per step in Megatron-LM's
// 2020 code, Megatron-DeepSpeed's and nanotron's copy of it; the fused kernel elsewhere.
TEST(SoftwareStack, EachProfileRunsItsOwnCrossEntropy) {
  const std::map<std::string_view, CrossEntropyKernel> own{
      {"torchtitan", CrossEntropyKernel::eager},
      {"nemo-24", CrossEntropyKernel::megatron},
      {"megatron-lm-2020", CrossEntropyKernel::megatron_unfused},
      {"megatron-deepspeed", CrossEntropyKernel::megatron_unfused},
      {"nanotron", CrossEntropyKernel::megatron_unfused},
      {"nanotron-pre-pp-fix", CrossEntropyKernel::megatron_unfused}};
  for (std::string_view name : software_stack_names()) {
    const auto it = own.find(name);
    EXPECT_EQ(profile(name).cross_entropy, it == own.end() ? CrossEntropyKernel::fused : it->second) << name;
  }
  EXPECT_EQ(load_hardware(kH100, {"sw_param.cross_entropy=megatron-unfused"}).sw.cross_entropy,
            CrossEntropyKernel::megatron_unfused);
  EXPECT_EQ(load_hardware(kH100).sw.cross_entropy, CrossEntropyKernel::fused);
  EXPECT_EQ(load_hardware(kH100, {"sw_param.framework=torchtitan"}).sw.cross_entropy, CrossEntropyKernel::eager);
  EXPECT_EQ(load_hardware(kH100, {"sw_param.framework=torchtitan", "sw_param.cross_entropy=fused"}).sw.cross_entropy,
            CrossEntropyKernel::fused);
  EXPECT_THROW((void)load_hardware(kH100, {"sw_param.cross_entropy=liger"}), ConfigError);
}

TEST(SoftwareStack, PipelinedTpWaitsAreProfileValuesAConfigCanSet) {
  EXPECT_DOUBLE_EQ(load_hardware(kH100).sw.pipelined_tp_wait_s, 0.0);
  const HardwareSpec nanotron = load_hardware(kH100, {"sw_param.framework=nanotron"});
  EXPECT_DOUBLE_EQ(nanotron.sw.pipelined_tp_wait_s, profile("nanotron").pipelined_tp_wait_s);
  EXPECT_DOUBLE_EQ(nanotron.sw.pipelined_tp_wait_per_rank_s, profile("nanotron").pipelined_tp_wait_per_rank_s);
  const HardwareSpec set = load_hardware(
      kH100, {"sw_param.framework=nanotron", "sw_param.pipelined_tp_wait=3 ms", "sw_param.pipelined_tp_wait_per_rank=0"});
  EXPECT_DOUBLE_EQ(set.sw.pipelined_tp_wait_s, 3e-3);
  EXPECT_DOUBLE_EQ(set.sw.pipelined_tp_wait_per_rank_s, 0.0);
  EXPECT_THROW((void)load_hardware(kH100, {"sw_param.pipelined_tp_wait=-1 ms"}), ConfigError);
}

TEST(SoftwareStack, AnInferenceWorkloadResolvesAutoToItsEngine) {
  const LoadedInputs in = load_inputs(kH100, kModel, {"model_param.run_type=inference", "model_param.decode_len=16"});
  EXPECT_EQ(in.hardware.sw.stack, "tensorrt-llm");
  EXPECT_DOUBLE_EQ(in.hardware.sw.kernel_launch_overhead_s, profile("tensorrt-llm").kernel_launch_overhead_s);
  const LoadedInputs training = load_inputs(kH100, kModel);
  EXPECT_EQ(training.hardware.sw.stack, "megatron-core");
}

// A file loaded on its own resolves "auto" for training; an inference step re-resolves it,
// a spec built by hand keeps its values.
TEST(SoftwareStack, AnInferenceStepReResolvesATrainingResolvedSpec) {
  const SoftwareSpec loaded = load_hardware(kH100).sw;
  EXPECT_TRUE(stack_resolved_for(loaded, RunType::training));
  EXPECT_FALSE(stack_resolved_for(loaded, RunType::inference));
  const SoftwareSpec inference = effective_software(loaded, RunType::inference);
  EXPECT_EQ(inference.stack, "tensorrt-llm");
  EXPECT_DOUBLE_EQ(inference.compute_efficiency, profile("tensorrt-llm").compute_efficiency);
  SoftwareSpec by_hand;
  by_hand.compute_efficiency = 0.5;
  EXPECT_TRUE(stack_resolved_for(by_hand, RunType::inference));
  EXPECT_DOUBLE_EQ(effective_software(by_hand, RunType::inference).compute_efficiency, 0.5);
}

TEST(SoftwareStack, AnUnknownFrameworkIsAConfigErrorNamingTheKey) {
  try {
    (void)load_hardware(kH100, {"sw_param.framework=deepspeed-0.1"});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sw_param.framework"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("megatron-core"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rapidllm
