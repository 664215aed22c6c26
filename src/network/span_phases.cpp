#include "network/span_phases.hpp"

namespace rapidllm::network {

std::vector<SpanPhase> span_phases(CollectiveOp op, double bytes, const std::vector<int>& span_ranks) {
  const std::size_t k = span_ranks.size();
  std::vector<SpanPhase> out;
  if (k == 0) return out;
  // The buffer each span's phase works on: what the spans inside it left.
  std::vector<double> inner(k);
  inner[0] = bytes;
  for (std::size_t i = 1; i < k; ++i) inner[i] = inner[i - 1] / span_ranks[i - 1];
  const auto add = [&out](CollectiveOp o, std::size_t span, double b) { out.push_back({o, span, b}); };
  switch (op) {
    case CollectiveOp::all_reduce:
      for (std::size_t i = 0; i + 1 < k; ++i) add(CollectiveOp::reduce_scatter, i, inner[i]);
      add(CollectiveOp::all_reduce, k - 1, inner[k - 1]);
      for (std::size_t i = k - 1; i-- > 0;) add(CollectiveOp::all_gather, i, inner[i]);
      break;
    case CollectiveOp::reduce_scatter:
      for (std::size_t i = 0; i < k; ++i) add(CollectiveOp::reduce_scatter, i, inner[i]);
      break;
    case CollectiveOp::all_gather:
      for (std::size_t i = k; i-- > 0;) add(CollectiveOp::all_gather, i, inner[i]);
      break;
    case CollectiveOp::all_to_all:
      for (std::size_t i = 0; i < k; ++i) add(CollectiveOp::all_to_all, i, bytes);
      break;
    case CollectiveOp::broadcast:
      for (std::size_t i = k; i-- > 0;) add(CollectiveOp::broadcast, i, bytes);
      break;
    case CollectiveOp::send_recv:
      add(CollectiveOp::send_recv, k - 1, bytes);
      break;
  }
  return out;
}

}  // namespace rapidllm::network
