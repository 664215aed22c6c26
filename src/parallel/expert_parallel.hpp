// The collectives around an MoE layer's experts (Megatron-Core's all-to-all token
// dispatcher with expert tensor parallelism = tp):
//   ep > 1: each rank sends its tokens' top_k copies to the EP ranks holding their experts
//           (all-to-all, nccl-tests size = T/tp x top_k x h per rank with SP, where every
//           rank puts (ep-1)/ep of it on the network) and, with SP, the TP ranks gather the
//           received rows (each holds every expert's 1/tp); after the experts the reverse:
//           reduce-scatter over TP, then the combine all-to-all. The rank holding the hot
//           expert receives hot_rank_factor x the balanced rows: its all-to-alls are sized
//           so (it sets the layer's pace).
//   ep = 1: the TP group's tokens are gathered before the router (SP) and the expert
//           outputs reduce-scattered after the un-permutation, as around a dense MLP.
// Without SP (tokens whole on every TP rank) the output is all-reduced, and in backward
// the input gradient. Backward runs each forward collective's transpose.
#pragma once

#include <cstddef>
#include <vector>

#include "model/op_graph.hpp"
#include "parallel/layer_graph.hpp"

namespace rapidllm::parallel {

struct PlacedComm {
  std::size_t op = 0;  // index into the layer's ops
  model::Pass pass = model::Pass::forward;
  bool before = false;
  model::CommOp comm;
};

// The MoE block's collectives, in the order they run at each op; `tp` is the layer's TP
// collective template, whose overlap the dispatcher's own TP collectives do not take: they
// hide as the dispatch does (ep_overlap).
[[nodiscard]] std::vector<PlacedComm> moe_block_collectives(const model::LlmDims& d, const model::LocalShape& s,
                                                            const std::vector<model::Op>& ops, const PartSettings& p,
                                                            const model::CommOp& tp);

}  // namespace rapidllm::parallel
