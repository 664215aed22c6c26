#include "exec/breakdown_categories.hpp"

#include "exec/op_list_cost.hpp"
#include "model/layer_ops.hpp"
#include "model/op_graph.hpp"

namespace rapidllm::exec {

const std::vector<std::string_view>& breakdown_categories() {
  // Built from the enums, so a new op class or purpose gets its column without an edit here.
  static const std::vector<std::string_view> categories = [] {
    std::vector<std::string_view> out;
    for (std::size_t k = 0; k < kOpClasses; ++k) out.push_back(model::compute_category(static_cast<model::OpClass>(k)));
    out.push_back(kRecomputeCategory);
    for (std::size_t k = 0; k < model::kCommPurposes; ++k) {
      out.push_back(model::comm_category(static_cast<model::CommPurpose>(k)));
    }
    out.push_back(kPipelineBubbleCategory);
    out.push_back(kOptimizerCategory);
    out.push_back(kHostOverheadCategory);
    return out;
  }();
  return categories;
}

}  // namespace rapidllm::exec
