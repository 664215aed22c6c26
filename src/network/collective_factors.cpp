#include "rapidllm/collective.hpp"

namespace rapidllm {

double bus_bandwidth_factor(CollectiveOp op, int ranks) {
  if (ranks <= 1) return 0.0;
  const double n = ranks;
  switch (op) {
    case CollectiveOp::all_reduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all: return (n - 1.0) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::send_recv: return 1.0;
  }
  return 1.0;
}

}  // namespace rapidllm
