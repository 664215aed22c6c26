// One training step (optimizer update) of a dense transformer: per-layer kernels costed
// once, TP/CP collectives per layer, pipeline stages and schedule, data-parallel gradient
// synchronisation with ZeRO and bucketed overlap, and the optimizer. See
// docs/llm-step-model.md.
#pragma once

#include <string>

#include "exec/cost_cache.hpp"
#include "exec/llm_context.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/llm_prediction.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::exec {

// `costs` carries kernel costs across predictions (sweeps); nullptr = a private one.
// Throws InfeasibleError when the parallelism cannot run the model, ConfigError for an
// architecture not modelled yet.
// `executor` runs the op graphs (the analytical evaluator unless told otherwise).
[[nodiscard]] TrainingPrediction predict_training(const HardwareSpec& hardware, const LlmModelSpec& model,
                                                  const std::string& model_source,
                                                  CostCache* costs = nullptr,
                                                  ExecutorKind executor = ExecutorKind::analytical);

}  // namespace rapidllm::exec
