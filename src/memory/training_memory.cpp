#include "memory/training_memory.hpp"

#include <algorithm>

#include "memory/memory_categories.hpp"

namespace rapidllm::memory {

namespace {
// NCCL keeps 2 x NCCL_BUFFSIZE (4 MiB by default) per channel and peer connection; with the
// ring and tree channels of a DGX this is about 128 MiB per communicator (2 x 4 MiB x 16).
constexpr double kBytesPerCommunicator = 2.0 * 4.0 * 1024 * 1024 * 16;
}  // namespace

MemoryBreakdown training_stage_memory(const HardwareSpec& hw, const StageMemoryInputs& in, int stage, int dp,
                                      int communicators) {
  MemoryBreakdown b;
  to_breakdown(hw, training_stage_terms(hw, in, dp, communicators), stage, b);
  return b;
}

StageMemoryTerms training_stage_terms(const HardwareSpec& hw, const StageMemoryInputs& in, int dp, int communicators) {
  const auto& p = hw.sw.precision;
  const int zero = dp > 1 ? hw.sw.dp_zero_stage : 0;
  // What one ZeRO shard holds: the dense parameters over dp, the experts over expert_dp.
  const double shard = (in.parameters - in.expert_parameters) / dp + in.expert_parameters / std::max(1, in.expert_dp);
  StageMemoryTerms t;
  std::size_t n = 0;
  const auto add = [&t, &n](std::string_view name, double bytes) {
    t.bytes[n++] = {name, bytes};
    t.total_bytes += bytes;
  };
  add(kWeights, (zero >= 3 ? shard : in.parameters) * p.parameters.bytes);
  add(kGradients, (zero >= 2 ? shard : in.parameters) * p.gradients.bytes);
  // Adam: two moments per parameter, plus the master copy when configured.
  add(kOptimizerStates,
      (zero >= 1 ? shard : in.parameters) * (2.0 * p.optimizer_states.bytes + p.master_parameters_bytes));
  add(kActivations, in.layers * in.layer_activation_bytes * in.in_flight_micro_batches +
                         in.extra_activation_bytes * in.in_flight_micro_batches);
  add(kTemporaries, in.transient_bytes);
  // ZeRO-3 gathers a layer's full parameters, prefetching the next one.
  // (in the compute format: what the layer's kernels read).
  add(kZero3GatheredParameters, zero >= 3 ? 2.0 * in.layer_parameters * p.tensor_format.bytes : 0.0);
  add(kCommunicationBuffers, communicators * kBytesPerCommunicator);
  add(kFrameworkOffset, hw.sw.const_mem_offset_bytes);
  return t;
}

void to_breakdown(const HardwareSpec& hw, const StageMemoryTerms& terms, int stage, MemoryBreakdown& b) {
  b.bytes.assign(terms.bytes.begin(), terms.bytes.end());
  b.total_bytes = terms.total_bytes;
  b.stage = stage;
  b.capacity_bytes = hw.dram().size_bytes;
}

}  // namespace rapidllm::memory
