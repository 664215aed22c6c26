#include "rapidllm/parameter_count.hpp"

#include "model/llm_dims.hpp"

namespace rapidllm {

ParameterCounts parameter_counts(const LlmModelSpec& model) {
  const model::LlmDims d = model::llm_dims(model, {});
  return ParameterCounts{model::parameter_count(d), model::active_parameter_count(d)};
}

}  // namespace rapidllm
