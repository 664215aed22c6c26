#include "exec/pipelined_tp_wait.hpp"

namespace rapidllm::exec {

bool pipeline_spans_nodes(const parallel::Placement& placement, const NetworkSpec& network) {
  if (network.dimensions.empty()) return false;
  for (const GroupSpan& span : placement.group(Parallelism::pp)) {
    if (span.ranks > 1 && span.dimension != &network.dimensions.front()) return true;
  }
  return false;
}

double pipelined_tp_wait_s(const SoftwareSpec& sw, const parallel::Placement& placement, const NetworkSpec& network) {
  const int tp = placement.degree(Parallelism::tp);
  if (tp <= 1 || !pipeline_spans_nodes(placement, network)) return 0.0;
  return sw.pipelined_tp_wait_s + sw.pipelined_tp_wait_per_rank_s * (tp - 1);
}

}  // namespace rapidllm::exec
