// The public lists of breakdown and memory categories (llm_prediction.hpp): the predictors'
// own, so they cannot drift from what a prediction holds.
#include "exec/breakdown_categories.hpp"
#include "memory/memory_categories.hpp"
#include "rapidllm/llm_prediction.hpp"

namespace rapidllm {

const std::vector<std::string_view>& breakdown_categories() { return exec::breakdown_categories(); }

std::vector<std::string_view> memory_categories() {
  return {memory::kMemoryCategories.begin(), memory::kMemoryCategories.end()};
}

}  // namespace rapidllm
