// Collective communication estimates (network/): the time of one collective over a group
// of ranks laid across one or more network dimensions.
#pragma once

#include <string>
#include <vector>

#include "rapidllm/hardware_spec.hpp"

namespace rapidllm {

// The part of a communicator that lies in one network dimension: `ranks` peers on it.
struct GroupSpan {
  const NetworkDimension* dimension = nullptr;
  int ranks = 1;
};

// One phase of a (possibly hierarchical) collective on one dimension.
struct CollectivePhase {
  std::string dimension_id;
  CollectiveOp op = CollectiveOp::all_reduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  int ranks = 1;
  double bytes = 0.0;  // message size this phase operates on (per rank, as nccl-tests count)
  double time_s = 0.0;
};

struct CollectiveEstimate {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;  // nccl-tests "size": the per-rank buffer
  int ranks = 1;
  double time_s = 0.0;
  double algbw_bytes_per_s = 0.0;  // bytes / time
  double busbw_bytes_per_s = 0.0;  // algbw x the nccl-tests bus factor for the op
  std::vector<CollectivePhase> phases;
};

// nccl-tests bus-bandwidth factor: 2(n-1)/n for all-reduce, (n-1)/n for all-gather,
// reduce-scatter and all-to-all, 1 for broadcast and send/recv.
[[nodiscard]] double bus_bandwidth_factor(CollectiveOp op, int ranks);

}  // namespace rapidllm
