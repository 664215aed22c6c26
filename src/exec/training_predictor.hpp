// One training step (optimizer update) of a dense transformer: per-layer kernels costed
// once, TP/CP collectives per layer, pipeline stages and schedule, data-parallel gradient
// synchronisation with ZeRO and bucketed overlap, and the optimizer. See
// docs/llm-step-model.md.
#pragma once

#include <string>

#include "exec/cost_cache.hpp"
#include "exec/llm_context.hpp"
#include "exec/run_options.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/llm_prediction.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::exec {

// How to evaluate the step (exec/run_options.hpp), and how to size its memory.
struct TrainingRunOptions : StepRunOptions {
  bool stage_memory = true;      // every rank's memory in stage_memory (false: the peak rank's only)
  // The peak rank's memory as training_memory sized it for this very plan: taken as is
  // (stage_memory left empty), not sized again.
  const MemoryBreakdown* known_memory = nullptr;
};

// `costs` carries kernel costs across predictions (sweeps); nullptr = a private one.
// Throws InfeasibleError when the parallelism cannot run the model, ConfigError for an
// architecture not modelled yet.
// `executor` runs the op graphs (the analytical evaluator unless told otherwise).
[[nodiscard]] TrainingPrediction predict_training(const HardwareSpec& hardware, const LlmModelSpec& model,
                                                  const std::string& model_source, CostCache* costs,
                                                  const TrainingRunOptions& options);
// The per-GPU memory of the step's peak stage (`memory`) without timing it: what a plan
// search prunes with. Only num_gpus, micro-batching and memory are filled.
// Throws InfeasibleError as predict_training does.
[[nodiscard]] TrainingPrediction training_memory(const HardwareSpec& hardware, const LlmModelSpec& model,
                                                 const std::string& model_source);

[[nodiscard]] inline TrainingPrediction predict_training(const HardwareSpec& hardware, const LlmModelSpec& model,
                                                         const std::string& model_source, CostCache* costs = nullptr,
                                                         ExecutorKind executor = ExecutorKind::analytical) {
  TrainingRunOptions options;
  options.executor = executor;
  return predict_training(hardware, model, model_source, costs, options);
}

}  // namespace rapidllm::exec
