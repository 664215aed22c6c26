// How many weights an LLM has, as rapidllm's memory and FLOP models count them.
#pragma once

#include "rapidllm/model_spec.hpp"

namespace rapidllm {

struct ParameterCounts {
  double total = 0.0;   // every weight; tied embeddings counted once
  double active = 0.0;  // what one token passes through: top_k routed plus the shared experts (= total when dense)
};

// Embedding and head tables, attention and MLP (or expert and router) matrices and norm
// weights; linear biases are not counted. Throws ConfigError for a spec the models refuse
// (e.g. dense layers of width 0).
[[nodiscard]] ParameterCounts parameter_counts(const LlmModelSpec& model);

}  // namespace rapidllm
