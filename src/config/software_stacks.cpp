// The built-in software-stack profiles (docs/software-stacks.md). Constants tagged
// `[CAL stack.NAME.KEY]` are fitted by scripts/calibrate.py --stacks on the even rows of that
// stack's own calibration sources only, with the device's kernel-level GEMM efficiency
// (tech_param.core.util, fitted on validation/kernels/gemm.csv) underneath; the odd rows
// are held out.
#include <algorithm>
#include <array>

#include "rapidllm/software_stack.hpp"

#include "rapidllm/hardware_spec.hpp"

namespace rapidllm {

namespace {

constexpr double kUs = 1e-6;
// Training steps are long kernels: their rows do not constrain the host gap between
// launches, so the training stacks take the one fitted on TensorRT-LLM's batch-1 latency.
constexpr double kTrainingLaunchGap = 10.35 * kUs;

// clang-format off
// Each profile names what differs from SoftwareStackProfile's defaults (asynchronous
// pipeline sends, Megatron-LM's 40M-parameter gradient bucket, one KV pass per decode step,
// no pipelined TP wait, the ZeRO gather behind the next forward, a fused cross-entropy, no
// host time per micro-batch or per expert call).
constexpr std::array<SoftwareStackProfile, 14> kProfiles{{
    {.name = "megatron-core",
     .description = "Megatron-Core with Transformer Engine, 2025 releases (NeMo 25.x, Megatron-Bridge, NVIDIA "
                    "DGX-Cloud recipes v25)",
     .compute_efficiency = 0.757,  // [CAL stack.megatron-core.compute_efficiency]
     .kernel_launch_overhead_s = kTrainingLaunchGap,
     .attention_kernel = AttentionKernel::flash3,  // cuDNN fused attention through Transformer Engine
     .calibration = "training.csv rows of dgxc (NeMo/Megatron-Core recipes) and megatron-bridge on H100, dense, BF16; "
                    "FP8 and Blackwell rows are predicted, not fitted; the expert call time on the "
                    "mixture-of-experts rows of both",
     .cross_entropy = CrossEntropyKernel::fused,  // Megatron-Bridge's cross_entropy_fusion_impl: te
     // Its MoE layers run Transformer Engine's GroupedLinear (TEGroupedMLP): split_quantize
     // and general_grouped_gemm loop over the local experts on the host, a quantize and a
     // cuBLAS call each (transformer_engine/pytorch/module/grouped_linear.py, TE 2.9).
     .expert_call_overhead_s = 53.36 * kUs,  // [CAL stack.megatron-core.expert_call_overhead]
    },
    {.name = "nemo-24",
     .description = "NeMo 24.x on Megatron-Core r0.5-0.8 with Transformer Engine (2024 releases)",
     .compute_efficiency = 0.683,  // [CAL stack.nemo-24.compute_efficiency]
     .kernel_launch_overhead_s = kTrainingLaunchGap,
     .attention_kernel = AttentionKernel::flash3,  // cuDNN fused attention through Transformer Engine
     .calibration = "training.csv rows of nemo, nemo-long-sequence and megatron-core (r0.8.0) on H100, dense",
     // NeMo 24.07's GPT configs set cross_entropy_loss_fusion: Megatron-Core's vocabulary-parallel
     // cross-entropy on an fp32 copy of the logits, its steps compiled.
     .cross_entropy = CrossEntropyKernel::megatron,
    },
    // Its default DDP (--DDP-impl local) all-reduces the whole gradient buffer after the
    // backward step (training.py backward_step -> model.allreduce_params), overlapping nothing.
    {.name = "megatron-lm-2020",
     .description = "Megatron-LM v2 (2020): unfused attention (no FlashAttention), fused kernels of its day, "
                    "gradients all-reduced in one buffer after backward",
     .compute_efficiency = 0.619,  // [CAL stack.megatron-lm-2020.compute_efficiency]
     .kernel_launch_overhead_s = kTrainingLaunchGap,
     .attention_kernel = AttentionKernel::flash2,  // its fused kernels predate Hopper
     .calibration = "training.csv rows of megatron-2020 on A100",
     .dp_bucket_params = kOneGradientBuffer,
     // vocab_parallel_cross_entropy on output.float(): one PyTorch op per step.
     .cross_entropy = CrossEntropyKernel::megatron_unfused,
    },
    // Megatron-LM's model code of 2020-2022 on DeepSpeed's engine (BLOOM, MT-NLG): the kernels
    // are Megatron-LM 2020's, so is its fitted efficiency. DeepSpeed's ZeRO stages 0-2 reduce
    // gradients after backward (zero/config.py: overlap_comm defaults to stage == 3; its
    // pipeline engine reduces them after the last micro-batch), and ZeRO-1's step ends with
    // the all-gather of the updated parameters (stage_1_and_2.py). Its pipeline engine's
    // transfers cost their network time only.
    {.name = "megatron-deepspeed",
     .description = "Megatron-DeepSpeed (Megatron-LM's model code on DeepSpeed's engine and ZeRO): Megatron-LM "
                    "2020's kernels, gradients reduced after backward, ZeRO-1's parameter gather at the end of the "
                    "step",
     .compute_efficiency = 0.619,  // [CAL stack.megatron-lm-2020.compute_efficiency]
     .kernel_launch_overhead_s = kTrainingLaunchGap,
     .attention_kernel = AttentionKernel::flash2,  // Megatron-LM's fused kernels of its day
     .calibration = "uncalibrated: no Megatron-DeepSpeed rows in the data; Megatron-LM 2020's kernel constants",
     .dp_bucket_params = kOneGradientBuffer,
     .zero_gather_overlap = false,  // ZeRO-1's step ends with the parameter all-gather
     .cross_entropy = CrossEntropyKernel::megatron_unfused,  // Megatron-LM's model code
    },
    // FSDP reduce-scatters each unit's gradients as its backward ends (the default bucket).
    {.name = "composer-fsdp",
     .description = "MosaicML Composer / llm-foundry on PyTorch FSDP (2023 benchmark tables)",
     .compute_efficiency = 0.822,  // [CAL stack.composer-fsdp.compute_efficiency]
     .kernel_launch_overhead_s = kTrainingLaunchGap,
     // MPT's attn_impl: triton (flash-attn's Triton kernel, ALiBi as its bias): the default of
     // llm-foundry's benchmark submitter until March 2024, after its tables were made.
     .attention_kernel = AttentionKernel::triton,
     .calibration = "training.csv rows of llm-foundry (A100 40/80 GB, H100)",
     // llm-foundry's loss is flash-attn's fused cross-entropy where installed (its gpu extra).
     .cross_entropy = CrossEntropyKernel::fused,
     // Composer's host work on each micro-batch beyond the kernels (slicing and moving it,
     // FSDP's root pre-forward and post-backward synchronisation).
     .micro_batch_overhead_s = 0.128,  // [CAL stack.composer-fsdp.micro_batch_overhead]
    },
    // FSDP2 reduces each block's gradients as its backward ends (the default bucket).
    {.name = "torchtitan",
     .description = "PyTorch torchtitan (FSDP2, torch.compile, async TP), 2024-2025 nightlies",
     .compute_efficiency = 0.706,  // [CAL stack.torchtitan.compute_efficiency]
     .kernel_launch_overhead_s = kTrainingLaunchGap,
     .attention_kernel = AttentionKernel::flash2,  // PyTorch SDPA's FlashAttention-2 backend
     .calibration = "training.csv rows of torchtitan",
     // Its loss is F.cross_entropy(pred.flatten(0, 1).float(), labels) outside the compiled
     // blocks (train.py): the upcast, log-softmax and their gradients as PyTorch ops.
     .cross_entropy = CrossEntropyKernel::eager,
    },
    {.name = "maxtext",
     .description = "MaxText on JAX/XLA for GPUs (NVIDIA DGX-Cloud recipes)",
     .compute_efficiency = 0.631,  // [CAL stack.maxtext.compute_efficiency]
     .kernel_launch_overhead_s = kTrainingLaunchGap,
     .attention_kernel = AttentionKernel::flash3,  // cuDNN fused attention through XLA
     .calibration = "training.csv rows of dgxc MaxText",
    },
    {.name = "paxml",
     .description = "Paxml (Pax) on JAX/XLA for GPUs (NVIDIA DGX-Cloud recipes)",
     .compute_efficiency = 0.464,  // [CAL stack.paxml.compute_efficiency]
     .kernel_launch_overhead_s = kTrainingLaunchGap,
     .attention_kernel = AttentionKernel::flash3,  // cuDNN fused attention through XLA
     .calibration = "training.csv rows of dgxc Paxml",
    },
    {.name = "nanotron",
     .description = "Hugging Face nanotron (eager PyTorch 2, FlashAttention-2, its own 1F1B pipeline engine; the "
                    "2024-2025 runs of nanotron_h100.csv)",
     .compute_efficiency = 0.73,  // [CAL stack.nanotron.compute_efficiency]
     .kernel_launch_overhead_s = 124.4 * kUs,  // [CAL stack.nanotron.kernel_launch_overhead]
     .attention_kernel = AttentionKernel::flash2,  // flash-attn 2's varlen kernels
     .calibration = "nanotron_h100.csv Success rows on one node (their own measured NVLink all-reduce); the "
                    "pipelined TP wait on the rows whose pipeline spans nodes, TP inside a node; other multi-node "
                    "rows are predicted, not fitted",
     // With the pipeline's stages on different nodes, each TP collective holds its pass
     // for a fixed time plus a time per TP rank, whatever the message size: the pass's
     // kernels run under the wait (benchmark rows after the pipeline fix; the mechanism is
     // not in the engine's source, docs/software-stacks.md, "Pipelined TP waits").
     .pipelined_tp_wait_s = 716.9 * kUs,  // [CAL stack.nanotron.pipelined_tp_wait]
     .pipelined_tp_wait_per_rank_s = 264.3 * kUs,  // [CAL stack.nanotron.pipelined_tp_wait_per_rank]
     // ZeRO-1: optim/zero.py's step() ends with all_gather_coalesced of the updated parameters.
     .zero_gather_overlap = false,
     // sharded_cross_entropy on logits.to(torch.float) is Megatron's vocabulary-parallel code
     // (parallel/tensor_parallel/functional.py), one PyTorch op per step.
     .cross_entropy = CrossEntropyKernel::megatron_unfused,
    },
    // The same kernels and pipelined TP wait as nanotron (its constants, kept equal by
    // calibrate.py's tags: fitted on the runs after the fix, the wait carries over to the
    // runs before it, docs/software-stacks.md); the engine of the benchmark's December 2024
    // runs blocked its host on every pipeline send and receive: a polled handshake
    // (nanotron's bench branch, p2p.py, sleeps 100 ms between polls of each metadata
    // transfer).
    {.name = "nanotron-pre-pp-fix",
     .description = "Hugging Face nanotron's benchmarking branch before its pipeline fix (nanotron_h100.csv rows with "
                    "after_pp_fix = False): each pipeline send and receive blocks the host on a polled handshake",
     .compute_efficiency = 0.73,  // [CAL stack.nanotron.compute_efficiency]
     .kernel_launch_overhead_s = 124.4 * kUs,  // [CAL stack.nanotron.kernel_launch_overhead]
     .attention_kernel = AttentionKernel::flash2,  // flash-attn 2's varlen kernels
     .calibration = "the stall on nanotron_h100.csv Success rows with after_pp_fix = False, pp > 1 and tp within a "
                    "node (a TP group across nodes has its own error); the kernel constants and the pipelined TP wait "
                    "are nanotron's",
     .pipeline_transfer_stall_s = 0.261,  // [CAL stack.nanotron-pre-pp-fix.pipeline_transfer_stall]
     .pipelined_tp_wait_s = 716.9 * kUs,  // [CAL stack.nanotron.pipelined_tp_wait]
     .pipelined_tp_wait_per_rank_s = 264.3 * kUs,  // [CAL stack.nanotron.pipelined_tp_wait_per_rank]
     .zero_gather_overlap = false,  // nanotron's ZeRO-1 optimizer (above)
     .cross_entropy = CrossEntropyKernel::megatron_unfused,  // nanotron's sharded cross-entropy (above)
    },
    {.name = "tensorrt-llm",
     .description = "NVIDIA TensorRT-LLM (also the backend of NIM and of NeMo inference)",
     .compute_efficiency = 0.848,  // [CAL stack.tensorrt-llm.compute_efficiency]
     .kernel_launch_overhead_s = 10.35 * kUs,  // [CAL stack.tensorrt-llm.kernel_launch_overhead]
     .attention_kernel = AttentionKernel::flash3,  // its own Hopper FMHA kernels
     .calibration = "inference.csv rows of trtllm, nim-a100 and nemo-llama2-latency",
    },
    // TensorRT-LLM's first public releases (0.5 and 0.6, October-December 2023): the same
    // engine and kernels as `tensorrt-llm` but the generation-phase attention, still
    // FasterTransformer's masked multi-head kernel with a thread block per query head, so a
    // grouped-query model reads each KV head's cache once per query head (its "MMHA
    // optimization for MQA and GQA" came with the December 2023 update, the XQA kernel with
    // 0.8). TurboMind's benchmarked kernel is the same FasterTransformer kernel: its fitted
    // passes stand here.
    {.name = "tensorrt-llm-0.5",
     .description = "NVIDIA TensorRT-LLM 0.5-0.6 (2023): the engine's kernels, with FasterTransformer's "
                    "generation-phase attention (a grouped-query model's KV cache read once per query head)",
     .compute_efficiency = 0.848,  // [CAL stack.tensorrt-llm.compute_efficiency]
     .kernel_launch_overhead_s = 10.35 * kUs,  // [CAL stack.tensorrt-llm.kernel_launch_overhead]
     .attention_kernel = AttentionKernel::flash3,  // its own Hopper FMHA kernels for the context phase
     .calibration = "uncalibrated: TensorRT-LLM's constants; the KV passes of the same decode kernel fitted on "
                    "LMDeploy TurboMind's rows",
     .decode_kv_passes = 3.152,  // [CAL stack.lmdeploy.decode_kv_passes]
    },
    // TurboMind's decode attention of the benchmarked release (FasterTransformer's masked
    // multi-head attention) runs a thread block per query head: each reads its KV head's
    // cache, and L2 catches part of the group's repeats.
    {.name = "lmdeploy",
     .description = "InternLM LMDeploy with its TurboMind engine",
     .compute_efficiency = 0.861,  // [CAL stack.lmdeploy.compute_efficiency]
     .kernel_launch_overhead_s = 12.98 * kUs,  // [CAL stack.lmdeploy.kernel_launch_overhead]
     .attention_kernel = AttentionKernel::flash2,  // TurboMind's own Ampere-era kernels
     .calibration = "inference.csv rows of lmdeploy-a100; the KV passes on its grouped-query rows' TPOT",
     .decode_kv_passes = 3.152,  // [CAL stack.lmdeploy.decode_kv_passes]
    },
    {.name = "rapid-llm",
     .description = "RAPID-LLM's reading of a device file: tech_param.core.util is the whole compute efficiency, no "
                    "framework on top (to compare with that tool on its own files)",
     .compute_efficiency = 1.0,
     .kernel_launch_overhead_s = 9.0 * kUs,  // RAPID-LLM's reference files' kernel_launch_overhead
     .attention_kernel = AttentionKernel::flash3,  // no attention fact in its files: the GEMM util stands
     .calibration = "not fitted: a peer tool's convention (its files set util and the launch gap themselves)",
    },
}};
// clang-format on

}  // namespace

std::optional<SoftwareStackProfile> software_stack_profile(std::string_view name) {
  const auto it = std::find_if(kProfiles.begin(), kProfiles.end(), [&](const auto& p) { return p.name == name; });
  if (it == kProfiles.end()) return std::nullopt;
  return *it;
}

const std::vector<std::string_view>& software_stack_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const auto& p : kProfiles) out.push_back(p.name);
    return out;
  }();
  return names;
}

void apply_software_stack(SoftwareSpec& sw, RunType run_type) {
  const auto profile = software_stack_profile(resolve_framework(sw.framework, run_type));
  if (!profile) return;  // the loader checked the name; a hand-built spec keeps its values
  sw.stack = profile->name;
  if (!sw.compute_efficiency_given) sw.compute_efficiency = profile->compute_efficiency;
  if (!sw.kernel_launch_overhead_given) sw.kernel_launch_overhead_s = profile->kernel_launch_overhead_s;
  if (!sw.attention_kernel_given) sw.attention_kernel = profile->attention_kernel;
  if (!sw.pipeline_transfer_stall_given) sw.pipeline_transfer_stall_s = profile->pipeline_transfer_stall_s;
  if (!sw.dp_bucket_params_given) sw.dp_bucket_params = profile->dp_bucket_params;
  if (!sw.decode_kv_passes_given) sw.decode_kv_passes = profile->decode_kv_passes;
  if (!sw.pipelined_tp_wait_given) sw.pipelined_tp_wait_s = profile->pipelined_tp_wait_s;
  if (!sw.pipelined_tp_wait_per_rank_given) sw.pipelined_tp_wait_per_rank_s = profile->pipelined_tp_wait_per_rank_s;
  if (!sw.zero_gather_overlap_given) sw.zero_gather_overlap = profile->zero_gather_overlap;
  if (!sw.cross_entropy_given) sw.cross_entropy = profile->cross_entropy;
  if (!sw.micro_batch_overhead_given) sw.micro_batch_overhead_s = profile->micro_batch_overhead_s;
  if (!sw.expert_call_overhead_given) sw.expert_call_overhead_s = profile->expert_call_overhead_s;
}

bool stack_resolved_for(const SoftwareSpec& sw, RunType run_type) {
  return sw.stack.empty() || sw.stack == resolve_framework(sw.framework, run_type);
}

SoftwareSpec effective_software(const SoftwareSpec& sw, RunType run_type) {
  SoftwareSpec out = sw;
  if (!stack_resolved_for(sw, run_type)) apply_software_stack(out, run_type);
  return out;
}

std::string_view resolve_framework(std::string_view framework, RunType run_type) {
  if (framework != kAutoFramework) return framework;
  return run_type == RunType::training ? "megatron-core" : "tensorrt-llm";
}

}  // namespace rapidllm
