#include "parallel/layer_graph.hpp"

#include "model/tp_share.hpp"
#include "parallel/expert_parallel.hpp"
#include "parallel/tensor_parallel.hpp"

namespace rapidllm::parallel {

namespace {

using model::CommOp;
using model::CommPurpose;
using model::HiddenUnder;
using model::OpGraph;
using model::Pass;

double as_double(std::int64_t v) { return static_cast<double>(v); }

// Adds the op lists' nodes in program order (forward, then backward in reverse), each TP-split
// op with its collectives; `tp_hidden` says how the analytical evaluator overlaps those.
class GraphBuilder {
 public:
  // Builds into `out`, which it empties first.
  GraphBuilder(OpGraph& out, const model::LlmDims& d, const model::LocalShape& s, CommOp tp_template)
      : d_(d), s_(s), tp_(tp_template), graph_(out) {
    graph_.clear();
  }

  // The part's kernels; gather_output: a column-parallel output must be whole on every rank.
  void add_ops(std::vector<model::Op>&& ops, bool gather_output) {
    gather_output_ = gather_output;
    // Each op: at most four collectives around its forward and backward nodes.
    graph_.reserve(ops.size(), 4 * ops.size());
    for (auto& op : ops) graph_.add_op(std::move(op));
  }

  // Comm nodes added just before / after an op's node in the pass.
  void before(std::size_t op, Pass pass, const CommOp& c) { extra_.push_back({op, pass, true, c}); }
  void after(std::size_t op, Pass pass, const CommOp& c) { extra_.push_back({op, pass, false, c}); }

  void build(bool training) {
    const std::size_t ops = graph_.ops().size();
    int prev = -1;
    for (std::size_t i = 0; i < ops; ++i) prev = add_op_nodes(i, Pass::forward, prev);
    if (training) {
      prev = -1;
      for (std::size_t i = ops; i-- > 0;) prev = add_op_nodes(i, Pass::backward, prev);
    }
  }

 private:
  struct Extra {
    std::size_t op;
    Pass pass;
    bool before;
    CommOp comm;
  };

  int add_op_nodes(std::size_t i, Pass pass, int prev) {
    const TpCollectives tp = tp_collectives(graph_.ops()[i], gather_output_);
    for (const auto& c : tp) {
      if (c.pass == pass && c.before) prev = graph_.add_comm(tp_op(c), pass, {prev});
    }
    for (const auto& e : extra_) {
      if (e.op == i && e.pass == pass && e.before) prev = graph_.add_comm(e.comm, pass, {prev});
    }
    prev = graph_.add_compute(static_cast<std::uint32_t>(i), pass, {prev});
    for (const auto& c : tp) {
      if (c.pass == pass && !c.before) prev = graph_.add_comm(tp_op(c), pass, {prev});
    }
    for (const auto& e : extra_) {
      if (e.op == i && e.pass == pass && !e.before) prev = graph_.add_comm(e.comm, pass, {prev});
    }
    return prev;
  }

  // The whole X and Y of a TP-split op (tokens x features, in the activation format).
  TpCollectives tp_collectives(const model::Op& op, bool gather_output) const {
    if (s_.tp <= 1 || op.tp_role == model::TpRole::none) return {};
    const double eb = s_.element_bytes;
    if (op.kind != model::OpKind::gemm) {  // the vocabulary-parallel embedding: rows of width h
      const double rows = as_double(s_.tokens()) * as_double(d_.hidden) * eb;
      return linear_collectives(op.tp_role, s_.sequence_parallel, false, rows, rows);
    }
    const double m = as_double(op.gemm.m);
    const bool column = op.tp_role == model::TpRole::column;
    const double k = as_double(op.gemm.k) * (column ? 1.0 : s_.tp);
    const double n = op.cls == model::OpClass::lm_head ? as_double(d_.vocab)
                                                       : as_double(op.gemm.n) * (column ? s_.tp : 1.0);
    return linear_collectives(op.tp_role, s_.sequence_parallel, gather_output, m * k * eb, m * n * eb);
  }

  CommOp tp_op(const TpCollective& c) const {
    CommOp op = tp_;
    op.op = c.op;
    op.bytes = c.bytes;
    return op;
  }

  const model::LlmDims& d_;
  const model::LocalShape& s_;
  CommOp tp_;
  OpGraph& graph_;
  bool gather_output_ = false;
  std::vector<Extra> extra_;
};

CommOp exposed_tp() { return CommOp{CollectiveOp::all_reduce, Parallelism::tp, 0.0, CommPurpose::tp, HiddenUnder::nothing, 0.0}; }

}  // namespace

void layer_graph(const model::LlmDims& d, const model::LocalShape& s, const PartSettings& p, OpGraph& g, bool moe) {
  const CommOp tp{CollectiveOp::all_reduce, Parallelism::tp, 0.0, CommPurpose::tp, HiddenUnder::pass_compute,
                  p.tp_overlap};
  GraphBuilder b(g, d, s, tp);
  std::vector<model::Op> ops = model::transformer_layer_ops(d, s, moe);
  std::size_t attention = ops.size();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == model::OpKind::attention) attention = i;
  }
  if (moe) {
    for (const PlacedComm& c : moe_block_collectives(d, s, ops, p, tp)) {
      if (c.before) {
        b.before(c.op, c.pass, c.comm);
      } else {
        b.after(c.op, c.pass, c.comm);
      }
    }
  }
  b.add_ops(std::move(ops), false);
  if (p.cp > 1 && s.decode) {
    // Decode over a cache sharded by position: each rank attends over its shard, then the
    // ranks exchange their partial outputs with their softmax statistics (fp32 output and
    // log-sum-exp per head) and merge them, as flash-decoding merges its splits.
    const double partial_bytes = as_double(s.micro_batch * d.heads / s.tp) * as_double(d.head_dim + 1) * 4.0 * p.cp;
    b.after(attention, Pass::forward,
            CommOp{CollectiveOp::all_gather, Parallelism::cp, partial_bytes, CommPurpose::cp, HiddenUnder::nothing, 0.0});
  } else if (p.cp > 1) {
    // Ring attention: each rank gathers the keys and values of the whole sequence in
    // forward; backward gathers them again and reduce-scatters their gradients.
    const double kv_bytes = as_double(s.micro_batch * s.seq) * 2.0 *
                            as_double(model::local_kv_heads(d.kv_heads, s.tp) * d.head_dim) * s.element_bytes;
    const CommOp gather{CollectiveOp::all_gather, Parallelism::cp, kv_bytes, CommPurpose::cp, HiddenUnder::attention,
                        p.cp_overlap};
    CommOp scatter = gather;
    scatter.op = CollectiveOp::reduce_scatter;
    b.before(attention, Pass::forward, gather);
    if (p.training) {
      b.before(attention, Pass::backward, gather);
      b.after(attention, Pass::backward, scatter);
    }
  }
  b.build(p.training);
  if (p.zero3_parameter_bytes > 0.0) {
    // Prefetched: no op waits for them, they run beside the whole pass.
    CommOp gather{CollectiveOp::all_gather, Parallelism::dp, p.zero3_parameter_bytes, CommPurpose::zero3,
                  HiddenUnder::pass_time, 1.0};
    g.add_comm(gather, Pass::forward);
    if (p.training) {
      g.add_comm(gather, Pass::backward);
      CommOp scatter = gather;
      scatter.op = CollectiveOp::reduce_scatter;
      scatter.bytes = p.zero3_gradient_bytes;
      g.add_comm(scatter, Pass::backward);
    }
  }
  if (p.training) g.recompute = p.recompute;
}

void embedding_graph(const model::LlmDims& d, const model::LocalShape& s, const PartSettings& p, OpGraph& g) {
  GraphBuilder b(g, d, s, exposed_tp());
  b.add_ops(model::embedding_ops(d, s), false);
  b.build(p.training);
}

void head_graph(const model::LlmDims& d, const model::LocalShape& s, const PartSettings& p, OpGraph& g) {
  if (!p.training) {
    // The LM head runs on the last position of each sequence only.
    model::LocalShape last = s;
    last.decode = true;
    last.sequence_parallel = false;
    GraphBuilder b(g, d, last, exposed_tp());
    b.add_ops(model::head_ops(d, last, false), true);
    b.build(false);
    return;
  }
  GraphBuilder b(g, d, s, exposed_tp());
  std::vector<model::Op> ops = model::head_ops(d, s, true);
  const std::size_t loss = ops.size() - 1;
  b.add_ops(std::move(ops), false);
  if (s.tp > 1) {
    // Vocabulary-parallel cross-entropy: all-reduces of the row max, the target logit and
    // the sum of exponentials (fp32, one value per token).
    CommOp sum = exposed_tp();
    sum.bytes = as_double(s.tokens()) * 4.0;
    for (int i = 0; i < 3; ++i) b.after(loss, Pass::forward, sum);
  }
  b.build(true);
}

StepComms training_step_comms(const StepCommInputs& in) {
  StepComms c;
  c.boundary = CommOp{CollectiveOp::send_recv, Parallelism::pp, in.boundary_bytes, CommPurpose::pp,
                      HiddenUnder::nothing, 0.0};
  const double gradients = in.stage_parameters * in.gradient_bytes;
  c.gradient_sync = CommOp{in.zero_stage == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter,
                           Parallelism::dp, in.zero_stage >= 3 ? 0.0 : gradients, CommPurpose::dp,
                           HiddenUnder::nothing, 0.0};
  c.parameter_gather = CommOp{CollectiveOp::all_gather, Parallelism::dp,
                              in.zero_stage >= 1 && in.zero_stage < 3 ? in.stage_parameters * in.parameter_bytes : 0.0,
                              CommPurpose::dp, HiddenUnder::nothing, 0.0};
  const double dense = in.ep_dense_parameters;
  const bool sharded = in.zero_stage >= 1;
  c.ep_gradient_scatter = CommOp{CollectiveOp::reduce_scatter, Parallelism::ep, dense * in.gradient_bytes,
                                 CommPurpose::dp, HiddenUnder::nothing, 0.0};
  c.ep_gradient_gather = CommOp{CollectiveOp::all_gather, Parallelism::ep, sharded ? 0.0 : dense * in.gradient_bytes,
                                CommPurpose::dp, HiddenUnder::nothing, 0.0};
  c.ep_parameter_gather = CommOp{CollectiveOp::all_gather, Parallelism::ep, sharded ? dense * in.parameter_bytes : 0.0,
                                 CommPurpose::dp, HiddenUnder::nothing, 0.0};
  c.embedding_sync = CommOp{CollectiveOp::send_recv, Parallelism::pp, in.tied_table_parameters * in.gradient_bytes,
                            CommPurpose::embedding_sync, HiddenUnder::nothing, 0.0};
  return c;
}

}  // namespace rapidllm::parallel
