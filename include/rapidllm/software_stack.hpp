// Software-stack profiles (docs/software-stacks.md): what a training framework or an
// inference engine makes of the hardware. A device file says what the GPU's kernels can
// do (tech_param.core.util: the vendor GEMM's share of the tensor-core peak); a profile
// says what share of that a stack's step sustains, and the host gap it leaves between
// kernels. Picked with sw_param.framework; each value overridable in sw_param.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm {

struct SoftwareStackProfile {
  std::string_view name;
  std::string_view description;
  // Share of the device's kernel-level tensor-core rate the stack's GEMMs and attention
  // sustain inside a step: what it loses to kernels the model does not list one by one
  // (unfused epilogues, casts, synchronisation stalls, a CPU-bound launch queue).
  double compute_efficiency = 1.0;
  double kernel_launch_overhead_s = 0.0;  // host gap per kernel launch
  AttentionKernel attention_kernel = AttentionKernel::flash3;  // its fused attention, on Hopper
  // The rows its constants were fitted on (even rows; odd rows held out), or why it is
  // uncalibrated.
  std::string_view calibration;
  // Host time its pipeline engine blocks on each send and receive between stages (0: the
  // transfers are asynchronous, only their network time counts).
  double pipeline_transfer_stall_s = 0.0;
  // Parameters per data-parallel gradient bucket (Megatron-LM's 40M); kOneGradientBuffer: the
  // whole buffer reduced once backward has finished, nothing overlapped.
  double dp_bucket_params = 40e6;
  // HBM passes its decode attention makes over each KV head's cache per step (1: shared by
  // the query heads of a group, as FlashDecoding-style and TensorRT-LLM's kernels do; more
  // where each query head reads it, less what L2 catches of the repeats).
  double decode_kv_passes = 1.0;
  // Host wait on each tensor-parallel collective while the pipeline spans nodes: the fixed
  // part and the part per TP rank beyond the first (SoftwareSpec::pipelined_tp_wait_s).
  double pipelined_tp_wait_s = 0.0;
  double pipelined_tp_wait_per_rank_s = 0.0;
  // ZeRO's parameter all-gather after the optimizer runs behind the next step's forward
  // (SoftwareSpec::zero_gather_overlap).
  bool zero_gather_overlap = true;
  // Its cross-entropy kernel over the vocabulary (SoftwareSpec::cross_entropy).
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::fused;
  // Host time its trainer adds to every micro-batch, the GPUs idle
  // (SoftwareSpec::micro_batch_overhead_s).
  double micro_batch_overhead_s = 0.0;
  // Host time of each per-expert call its mixture-of-experts layers make (0: one grouped
  // kernel per pass; SoftwareSpec::expert_call_overhead_s).
  double expert_call_overhead_s = 0.0;
};

// A bucket no model fills: the gradients are reduced in one piece after backward.
inline constexpr double kOneGradientBuffer = 1e15;

// "auto" picks megatron-core for training and tensorrt-llm for inference.
inline constexpr std::string_view kAutoFramework = "auto";

// nullopt for an unknown name ("auto" is not a profile: resolve it first).
[[nodiscard]] std::optional<SoftwareStackProfile> software_stack_profile(std::string_view name);
[[nodiscard]] const std::vector<std::string_view>& software_stack_names();
// Fills sw's compute_efficiency, kernel_launch_overhead_s, attention_kernel,
// pipeline_transfer_stall_s, dp_bucket_params, decode_kv_passes, the pipelined TP waits,
// zero_gather_overlap, cross_entropy and micro_batch_overhead_s from the profile sw.framework
// names ("auto" resolved for run_type), except the values the config set itself.
void apply_software_stack(SoftwareSpec& sw, RunType run_type);
// Whether sw's profile is the one run_type resolves to (a spec built by hand, with none
// applied, counts as resolved: it keeps its values).
[[nodiscard]] bool stack_resolved_for(const SoftwareSpec& sw, RunType run_type);
// The software spec an LLM step of run_type runs under: sw itself when stack_resolved_for,
// else the profile re-applied.
[[nodiscard]] SoftwareSpec effective_software(const SoftwareSpec& sw, RunType run_type);
// The profile `framework` names, "auto" resolved for the run type.
[[nodiscard]] std::string_view resolve_framework(std::string_view framework, RunType run_type);

}  // namespace rapidllm
