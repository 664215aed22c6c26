// How a collective over several network dimensions (its spans, innermost first) runs as one
// phase per span, the order both the flow plan (collective_flows) and its work estimate
// (work_estimate) follow.
#pragma once

#include <cstddef>
#include <vector>

#include "rapidllm/collective.hpp"

namespace rapidllm::network {

struct SpanPhase {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::size_t span = 0;  // index into the spans
  double bytes = 0.0;    // per rank, entering the phase
};

// All-reduce: reduce-scatter inside out, all-reduce on the outermost span, all-gather back
// (each span sees the buffer the spans inside it left); reduce-scatter inside out and
// all-gather outside in alike; all-to-all span by span on the whole buffer; broadcast
// outermost first; send/recv one step on the outermost span. `span_ranks`: each span's ranks.
[[nodiscard]] std::vector<SpanPhase> span_phases(CollectiveOp op, double bytes, const std::vector<int>& span_ranks);

}  // namespace rapidllm::network
