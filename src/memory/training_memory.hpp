// Per-GPU memory of a training step on each pipeline stage: weights, gradients, optimizer
// states and master weights (ZeRO-sharded), activations held by the micro-batches in flight
// under the schedule, the largest transient (logits in fp32 for the loss), ZeRO-3 gathered
// parameters, communication buffers and the configured constant offset.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/memory_breakdown.hpp"

namespace rapidllm::memory {

struct StageMemoryInputs {
  double parameters = 0.0;            // parameters this rank holds (after TP and EP, before ZeRO)
  // Of those, the routed experts': ZeRO shards them over their own data-parallel group of
  // `expert_dp` ranks (the dense ones over the whole dp group).
  double expert_parameters = 0.0;
  int expert_dp = 1;
  double layer_parameters = 0.0;      // one layer's, after TP (ZeRO-3 gathers one at a time)
  int layers = 0;
  double layer_activation_bytes = 0.0;  // one layer, one micro-batch
  double extra_activation_bytes = 0.0;  // embedding output, head input (first/last stage)
  // How many micro-batches' activations are live (parallel::Schedule::in_flight_micro_batches).
  double in_flight_micro_batches = 1.0;
  double transient_bytes = 0.0;         // the largest temporary (logits of the loss, a layer's weight gradients)
};

// One rank's memory by category, in a fixed array (a plan search sizes several ranks of
// every plan to keep one).
struct StageMemoryTerms {
  std::array<std::pair<std::string_view, double>, 8> bytes{};
  double total_bytes = 0.0;
};
// `dp`: the ranks the dense parameters are data-parallel over (dp x ep with experts).
[[nodiscard]] StageMemoryTerms training_stage_terms(const HardwareSpec& hw, const StageMemoryInputs& in, int dp,
                                                    int communicators);
// The terms as rank `stage`'s breakdown (the device's capacity filled in).
void to_breakdown(const HardwareSpec& hw, const StageMemoryTerms& terms, int stage, MemoryBreakdown& out);

// Rank `stage`'s breakdown: its terms, as to_breakdown gives them.
[[nodiscard]] MemoryBreakdown training_stage_memory(const HardwareSpec& hw, const StageMemoryInputs& in, int stage,
                                                    int dp, int communicators);

}  // namespace rapidllm::memory
