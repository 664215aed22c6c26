// An inference run: prefill of the prompt (time to first token), then decode of
// decode_len tokens with the KV cache growing from the prompt length. Static batching:
// global_batch_size sequences per replica, replica_count replicas scaling throughput.
#pragma once

#include <string>

#include "exec/cost_cache.hpp"
#include "exec/llm_context.hpp"
#include "exec/run_options.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/llm_prediction.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::exec {

// `costs` carries kernel costs across predictions; nullptr = a private one. With
// `options.simulate_step` the prefill and a decode step run as step graphs on the cluster
// network (exec/inference_step.hpp): the prefill's time is the simulated one, and every
// decode step is its closed form plus what the simulated first step took beyond it (the
// attention core's growth with the cache stays the closed form's sum).
[[nodiscard]] InferencePrediction predict_inference(const HardwareSpec& hardware, const LlmModelSpec& model,
                                                    const std::string& model_source, CostCache* costs,
                                                    const StepRunOptions& options);

[[nodiscard]] inline InferencePrediction predict_inference(const HardwareSpec& hardware, const LlmModelSpec& model,
                                                           const std::string& model_source, CostCache* costs = nullptr,
                                                           ExecutorKind executor = ExecutorKind::analytical,
                                                           NetworkKind network = NetworkKind::analytical) {
  StepRunOptions options;
  options.executor = executor;
  options.network = network;
  return predict_inference(hardware, model, model_source, costs, options);
}

}  // namespace rapidllm::exec
