// Result of an LLM prediction (training step or inference run), with its explanation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rapidllm/memory_breakdown.hpp"

namespace rapidllm {

// Energy of a prediction (all GPUs), by component, and what it means per GPU and token.
struct EnergyReport {
  double energy_j = 0.0;
  double compute_j = 0.0;   // tensor-core and CUDA-core FLOPs
  double on_chip_j = 0.0;   // registers, shared memory, L2
  double hbm_j = 0.0;
  double network_j = 0.0;
  double static_j = 0.0;    // static power x time
  double average_power_w = 0.0;  // per GPU
  double j_per_token = 0.0;      // training: per token trained; inference: per generated token
  bool exceeds_max_power = false;
};

// Seconds by category; the entries of a prediction sum to its total time. The category
// names are string literals (no allocation per prediction).
using Breakdown = std::vector<std::pair<std::string_view, double>>;

// Every category a Breakdown (training, prefill or decode) can hold, in a fixed order:
// compute.<op class>, compute.recompute, communication.<purpose>, pipeline_bubble,
// optimizer (docs/output-schema.md). A prediction lists only those it spent time on; a
// table with a column per category takes the columns from here.
[[nodiscard]] const std::vector<std::string_view>& breakdown_categories();
// Every category a MemoryBreakdown (training or inference) can hold, in a fixed order.
[[nodiscard]] std::vector<std::string_view> memory_categories();

// How a prediction was evaluated (RAPID-LLM's execution modes, docs/execution-modes.md)
// and which symmetry reductions the simulation used.
struct ExecutionSummary {
  std::string mode = "analytical";       // analytical | hybrid | full_astrasim_hierarchical | full_astrasim_flattened
  std::string network = "analytical";    // analytical | flow_isolated | flow_shared
  std::string pipeline = "formula";      // formula (bubble formulas) | simulated (event-driven step)
  int simulated_units = 0;               // GPU groups simulated as one (a TP group in lockstep)
  bool symmetry = false;                 // one unit per stage stood for its DP replicas and CP ranks
  std::string reductions;                // what symmetry was used, or why not
  std::size_t simulated_nodes = 0;       // step-graph nodes played, all units
  std::size_t network_simulations = 0;   // collectives simulated alone + submissions sharing links
  std::vector<double> peak_in_flight_micro_batches;  // simulated, per stage
};

struct TrainingPrediction {
  int num_gpus = 0;
  int micro_batches = 0;          // per pipeline flush
  int micro_batch_size = 0;       // sequences per micro-batch
  int gradient_accumulation = 1;  // pipeline flushes per optimizer step
  double step_time_s = 0.0;       // one optimizer step
  double tokens_per_s = 0.0;      // all GPUs
  double model_flops_per_step = 0.0;  // 6 N T + attention (see mfu_formula)
  double mfu = 0.0;
  std::string mfu_formula;
  double pipeline_bubble_fraction = 0.0;
  double stage_forward_s = 0.0;   // slowest stage, one micro-batch, incl. exposed TP/CP comm
  double stage_backward_s = 0.0;
  Breakdown breakdown;
  MemoryBreakdown memory;                 // the stage with the highest peak
  std::vector<MemoryBreakdown> stage_memory;  // every stage
  EnergyReport energy;
  ExecutionSummary execution;
};

// Per-output-token latency over the decode phase (it grows with the KV cache).
struct TpotStats {
  double mean_s = 0.0;
  double min_s = 0.0;  // first decode step
  double max_s = 0.0;  // last decode step
};

struct InferencePrediction {
  int num_gpus = 0;
  int batch_size = 0;  // sequences per replica
  int replicas = 1;
  std::int64_t prompt_len = 0;
  std::int64_t decode_len = 0;
  double prefill_time_s = 0.0;  // time to first token
  double decode_time_s = 0.0;
  TpotStats tpot;
  double total_time_s = 0.0;
  double decode_tokens_per_s = 0.0;  // all replicas
  double prefill_tokens_per_s = 0.0;
  Breakdown prefill_breakdown;
  Breakdown decode_breakdown;
  MemoryBreakdown memory;
  EnergyReport energy;
  ExecutionSummary execution;  // simulated: the prefill's and first decode step's simulations
};

}  // namespace rapidllm
