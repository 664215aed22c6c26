// Model document -> ModelSpec (GEMM or LLM workload), with cross-field checks.
#pragma once

#include "config/document.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::config {

[[nodiscard]] ModelSpec read_model(const Document& doc);

}  // namespace rapidllm::config
