// Names of the spec enums as they are spelled in configs and reports, and small
// accessors of the spec structs.
#include <cmath>
#include <optional>
#include <string_view>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm {

std::string_view to_string(Parallelism p) {
  switch (p) {
    case Parallelism::tp: return "tp";
    case Parallelism::cp: return "cp";
    case Parallelism::ep: return "ep";
    case Parallelism::pp: return "pp";
    case Parallelism::dp: return "dp";
  }
  return "?";
}

std::string_view to_string(TopologyType t) {
  switch (t) {
    case TopologyType::ring: return "Ring";
    case TopologyType::fully_connected: return "FullyConnected";
    case TopologyType::switch_: return "Switch";
    case TopologyType::torus2d: return "Torus2D";
    case TopologyType::mesh2d: return "Mesh2D";
    case TopologyType::superpod: return "SuperPOD";
  }
  return "?";
}

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::all_to_all: return "all_to_all";
    case CollectiveOp::broadcast: return "broadcast";
    case CollectiveOp::send_recv: return "send_recv";
  }
  return "?";
}

std::string_view to_string(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::auto_: return "auto";
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::direct: return "direct";
    case CollectiveAlgorithm::halving_doubling: return "halvingDoubling";
    case CollectiveAlgorithm::double_binary_tree: return "doubleBinaryTree";
    case CollectiveAlgorithm::mesh: return "mesh";
    case CollectiveAlgorithm::mesh2d: return "mesh2d";
    case CollectiveAlgorithm::hypercube: return "hypercube";
    case CollectiveAlgorithm::torus2d: return "torus2d";
    case CollectiveAlgorithm::nvls: return "nvls";
  }
  return "?";
}

std::string_view to_string(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::ll: return "LL";
    case NcclProtocol::ll128: return "LL128";
    case NcclProtocol::simple: return "Simple";
  }
  return "?";
}

std::string_view to_string(ExecutionMode m) {
  switch (m) {
    case ExecutionMode::analytical: return "analytical";
    case ExecutionMode::hybrid: return "hybrid";
    case ExecutionMode::full_astrasim_hierarchical: return "full_astrasim_hierarchical";
    case ExecutionMode::full_astrasim_flattened: return "full_astrasim_flattened";
  }
  return "?";
}

std::string_view to_string(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::gpipe: return "gpipe";
    case PipelineSchedule::one_f_one_b: return "1f1b";
    case PipelineSchedule::interleaved_1f1b: return "interleaved_1f1b";
    case PipelineSchedule::zero_bubble: return "zero_bubble";
    case PipelineSchedule::dualpipe: return "dualpipe";
  }
  return "?";
}

namespace {
// The enum value whose to_string is `name`, trying first..last in order.
template <class Enum>
std::optional<Enum> parse_enum(std::string_view name, Enum first, Enum last) {
  for (int i = static_cast<int>(first); i <= static_cast<int>(last); ++i) {
    if (to_string(static_cast<Enum>(i)) == name) return static_cast<Enum>(i);
  }
  return std::nullopt;
}
}  // namespace

std::string_view to_string(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::flash2: return "flash2";
    case AttentionKernel::flash3: return "flash3";
    case AttentionKernel::triton: return "triton";
  }
  return "?";
}

std::string_view to_string(ElementwiseKernels k) { return k == ElementwiseKernels::eager ? "eager" : "fused"; }

std::string_view to_string(CrossEntropyKernel k) {
  switch (k) {
    case CrossEntropyKernel::fused: return "fused";
    case CrossEntropyKernel::megatron: return "megatron";
    case CrossEntropyKernel::megatron_unfused: return "megatron-unfused";
    case CrossEntropyKernel::eager: return "eager";
  }
  return "?";
}

std::optional<CrossEntropyKernel> parse_cross_entropy_kernel(std::string_view name) {
  return parse_enum(name, CrossEntropyKernel::fused, CrossEntropyKernel::eager);
}

std::string_view to_string(ActivationRecompute r) {
  switch (r) {
    case ActivationRecompute::none: return "none";
    case ActivationRecompute::selective: return "selective";
    case ActivationRecompute::full: return "full";
    case ActivationRecompute::op: return "op";
  }
  return "?";
}

std::optional<PipelineSchedule> parse_pipeline_schedule(std::string_view name) {
  return parse_enum(name, PipelineSchedule::gpipe, PipelineSchedule::dualpipe);
}

std::optional<ActivationRecompute> parse_activation_recompute(std::string_view name) {
  return parse_enum(name, ActivationRecompute::none, ActivationRecompute::op);
}

std::optional<CollectiveOp> parse_collective_op(std::string_view name) {
  return parse_enum(name, CollectiveOp::all_reduce, CollectiveOp::send_recv);
}

std::string_view to_string(ShardAxis axis) { return axis == ShardAxis::row ? "row" : "column"; }

std::string_view to_string(RunType run_type) {
  return run_type == RunType::training ? "training" : "inference";
}

std::optional<double> CoreSpec::peak_flops_per_s(DType dtype) const {
  double scale = 1.0;
  if (dtype != DType::fp16 && dtype != DType::bf16) {
    auto it = dtype_flop_scale.find(dtype);
    if (it == dtype_flop_scale.end()) return std::nullopt;
    scale = it->second;
  }
  return frequency_hz * num_sms * tensor_cores_per_sm * flop_per_cycle_per_tensor_core * scale;
}

FusedAttentionFacts CoreSpec::attention_facts(AttentionKernel kernel, DType dtype) const {
  if (const auto it = attention.find(kernel); it != attention.end()) return it->second;
  // Both run FlashAttention-2's algorithm class: without facts of their own, flash2's stand.
  if (kernel != AttentionKernel::flash2) return attention_facts(AttentionKernel::flash2, dtype);
  const auto it = dtype_util.find(dtype);
  const double share = it == dtype_util.end() ? util : it->second;
  return {share, share, std::nullopt, 0.0, 0.0};
}

double CoreSpec::power_capped_clock_factor() const {
  if (!(power_limit_w > 0.0) || !(power_limit_w < max_power_w)) return 1.0;
  return std::cbrt((power_limit_w - static_power_w) / (max_power_w - static_power_w));
}

double CoreSpec::energy_per_flop(DType dtype) const {
  const auto it = dtype_flop_scale.find(dtype);
  // The energy of a switching op goes as V^2, the voltage in step with the capped clock.
  const double volts = power_capped_clock_factor();
  return (it == dtype_flop_scale.end() ? energy_per_flop_j : energy_per_flop_j / it->second) * volts * volts;
}

std::optional<double> CoreSpec::achievable_flops_per_s(DType dtype) const {
  const auto peak = peak_flops_per_s(dtype);
  if (!peak) return std::nullopt;
  const auto it = dtype_util.find(dtype);
  return *peak * (it == dtype_util.end() ? util : it->second) * power_capped_clock_factor();
}

const NetworkDimension* NetworkSpec::dimension_for(Parallelism p) const {
  for (const auto& d : dimensions) {
    for (auto q : d.parallelisms) {
      if (q == p) return &d;
    }
  }
  return nullptr;
}

}  // namespace rapidllm
