#include "parallel/expert_parallel.hpp"

#include "model/moe_ops.hpp"

namespace rapidllm::parallel {

namespace {
using model::CommOp;
using model::Pass;

std::size_t index_of(const std::vector<model::Op>& ops, std::string_view name) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name == name) return i;
  }
  return ops.size();
}
}  // namespace

std::vector<PlacedComm> moe_block_collectives(const model::LlmDims& d, const model::LocalShape& s,
                                              const std::vector<model::Op>& ops, const PartSettings& p,
                                              const CommOp& tp) {
  const std::size_t router = index_of(ops, model::kMoeRouter);
  const std::size_t permute = index_of(ops, model::kMoePermute);
  const std::size_t unpermute = index_of(ops, model::kMoeUnpermute);
  const double eb = s.element_bytes;
  const double h = static_cast<double>(d.hidden);
  const double tokens = static_cast<double>(s.tokens());
  const model::ExpertLoad load = model::expert_load(d, s);
  const bool tp_split = s.tp > 1;
  const bool sp = s.sequence_parallel && tp_split;

  std::vector<PlacedComm> out;
  // The dispatcher's own collectives over the TP group: plain NCCL calls between its
  // permutations, which Transformer Engine's userbuffer overlap of the linear layers
  // (the layer's TP rule) does not reach; they hide only where the dispatch does.
  const auto tp_comm = [&](CollectiveOp op, double bytes) {
    CommOp c = tp;
    c.op = op;
    c.bytes = bytes;
    c.overlap = p.ep_overlap;
    return c;
  };
  const auto add = [&](std::size_t op, Pass pass, bool before, const CommOp& c) {
    if (pass == Pass::forward || p.training) out.push_back({op, pass, before, c});
  };
  // The block's input and output around the TP group: the gather / reduce-scatter of the
  // token stream (SP), or the all-reduce of a partial output and input gradient.
  const double stream = tokens * h * eb;
  const bool stream_collectives = tp_split && (s.ep == 1 || !sp);
  if (stream_collectives && sp) {
    add(router, Pass::forward, true, tp_comm(CollectiveOp::all_gather, stream));
    add(unpermute, Pass::forward, false, tp_comm(CollectiveOp::reduce_scatter, stream));
    add(unpermute, Pass::backward, false, tp_comm(CollectiveOp::all_gather, stream));
  } else if (stream_collectives) {
    add(unpermute, Pass::forward, false, tp_comm(CollectiveOp::all_reduce, stream));
  }
  if (s.ep > 1) {
    // Each rank's copies (SP: its sequence shard's), sized for the hot rank.
    const double routed = static_cast<double>(s.norm_tokens()) * d.moe.top_k * h * eb * load.hot_rank_factor;
    const CommOp a2a{CollectiveOp::all_to_all, Parallelism::ep, routed, model::CommPurpose::ep,
                     model::HiddenUnder::pass_compute, p.ep_overlap};
    // The rows the TP ranks exchange: every TP rank's received copies.
    const double rows = load.rows * load.hot_rank_factor * h * eb;
    add(permute, Pass::forward, false, a2a);
    if (sp) add(permute, Pass::forward, false, tp_comm(CollectiveOp::all_gather, rows));
    if (sp) add(unpermute, Pass::forward, true, tp_comm(CollectiveOp::reduce_scatter, rows));
    add(unpermute, Pass::forward, true, a2a);
    add(unpermute, Pass::backward, false, a2a);
    if (sp) add(unpermute, Pass::backward, false, tp_comm(CollectiveOp::all_gather, rows));
    if (sp) add(permute, Pass::backward, true, tp_comm(CollectiveOp::reduce_scatter, rows));
    add(permute, Pass::backward, true, a2a);
  }
  if (stream_collectives) {
    add(router, Pass::backward, false, tp_comm(sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce, stream));
  }
  return out;
}

}  // namespace rapidllm::parallel
