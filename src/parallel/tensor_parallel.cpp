#include "parallel/tensor_parallel.hpp"

namespace rapidllm::parallel {

TpCollectives linear_collectives(model::TpRole role, bool sp, bool gather_output, double x_bytes, double y_bytes) {
  using model::Pass;
  TpCollectives out;
  const auto add = [&out](CollectiveOp op, double bytes, Pass pass, bool before, std::string_view tensor) {
    out.items[static_cast<std::size_t>(out.count++)] = TpCollective{op, bytes, pass, before, tensor};
  };
  switch (role) {
    case model::TpRole::none: break;
    case model::TpRole::column:
      if (sp) {
        add(CollectiveOp::all_gather, x_bytes, Pass::forward, true, "A");
      } else if (gather_output) {
        add(CollectiveOp::all_gather, y_bytes, Pass::forward, false, "C");
      }
      add(sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce, x_bytes, Pass::backward, false, "dA");
      break;
    case model::TpRole::row:
      add(sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce, y_bytes, Pass::forward, false, "C");
      if (sp) add(CollectiveOp::all_gather, y_bytes, Pass::backward, true, "dC");
      break;
  }
  return out;
}

}  // namespace rapidllm::parallel
