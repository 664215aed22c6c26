// An inference run: prefill of the prompt (time to first token), then decode of
// decode_len tokens with the KV cache growing from the prompt length. Static batching:
// global_batch_size sequences per replica, replica_count replicas scaling throughput.
#pragma once

#include <string>

#include "exec/cost_cache.hpp"
#include "exec/llm_context.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/llm_prediction.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::exec {

[[nodiscard]] InferencePrediction predict_inference(const HardwareSpec& hardware, const LlmModelSpec& model,
                                                    const std::string& model_source, CostCache* costs = nullptr,
                                                    ExecutorKind executor = ExecutorKind::analytical,
                                                    NetworkKind network = NetworkKind::analytical);

}  // namespace rapidllm::exec
