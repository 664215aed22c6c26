#include "exec/step_builder.hpp"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "exec/step_templates.hpp"
#include "model/model_flops.hpp"
#include "parallel/pipeline_schedule.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::exec {

namespace {

using parallel::PassKind;
using parallel::PassTask;

std::string_view pass_name(PassKind kind) {
  switch (kind) {
    case PassKind::forward: return "fwd";
    case PassKind::backward: return "bwd";
    case PassKind::weight_grad: return "wgrad";
  }
  return "?";
}

// Where a stage's chunk sits: its position in its pipeline (interleaved: one pipeline of
// pp x v chunks, chunk c of stage s at c pp + s; DualPipe: two pipelines of pp stages,
// chunk 0 fed from rank 0, chunk 1 from the last rank), the neighbours it receives from and
// sends to, and a slot that tells its messages apart.
struct Place {
  int position = 0;
  int length = 1;
  int slot = 0;
  int prev_stage = -1, prev_chunk = 0, next_stage = -1, next_chunk = 0;
};

// What every stage's program draws on: the templates, the layer split, the parameters and
// the plan's settings; writes one stage's program at a time.
class TrainingStepWriter {
 public:
  TrainingStepWriter(LlmContext& ctx, const TrainingStepInputs& in)
      : ctx_(ctx),
        in_(in),
        d_(ctx.dims()),
        deg_(ctx.degrees()),
        pp_(deg_.pp),
        v_(in.vpp),
        m_(in.batching.micro_batches),
        schedule_(ctx.hardware().parallelism.pp_schedule),
        w_fills_(parallel::schedule_of(schedule_).weight_grads_fill_bubbles()),
        dual_(parallel::schedule_of(schedule_).mirrored()),
        parts_(model_templates(ctx, in.shape)),
        slots_(dual_ ? 2 * pp_ : pp_ * v_),
        stage_chunks_(dual_ ? 2 : v_),
        table_params_(static_cast<double>(d_.vocab) * static_cast<double>(d_.hidden) / deg_.tp),
        head_has_table_(!d_.tied_embeddings || pp_ > 1),
        bucketed_sync_(deg_.dp * deg_.ep > 1 && in.zero_stage < 3),
        sync_every_mb_(ctx.hardware().sw.dp_microbatch == DpMicrobatchSync::every_mb),
        bucket_params_(ctx.hardware().sw.dp_bucket_params),
        stall_s_(ctx.hardware().sw.pipeline_transfer_stall_s) {
    const int positions = dual_ ? pp_ : pp_ * v_;
    position_layers_.resize(static_cast<std::size_t>(positions));
    for (int c = 0; c < positions; ++c) position_layers_[static_cast<std::size_t>(c)] = ctx.chunk_layers(c, positions);
    // Each layer's parameters on one rank, once: the gradient buckets of every micro-batch's
    // backward read them.
    layer_params_.resize(static_cast<std::size_t>(d_.layers));
    for (int l = 0; l < d_.layers; ++l) layer_params_[static_cast<std::size_t>(l)] = ctx.rank_layer_parameters(l);
  }

  void write_stage(StepGraph& out, int s);

 private:
  // What one stage's program has written so far that later nodes wait for.
  struct StageState {
    std::vector<int> gradient_syncs;  // bucket reductions the optimizer waits for
    std::map<std::pair<int, int>, std::vector<int>> backward_end;  // (mb, chunk) -> last B nodes
    std::vector<int> weight_grad_ends;  // the optimizer waits for every W pass too
  };

  [[nodiscard]] Place place(int stage, int c) const;
  [[nodiscard]] model::LayerParameters stage_parameters(int s) const;
  [[nodiscard]] int tag(int flush, int k, int slot, int dir) const { return ((flush * m_ + k) * slots_ + slot) * 2 + dir; }
  void write_task(ProgramWriter& w, StageState& state, int s, int flush, const PassTask& task, bool syncs_here);
  void write_tail(StepGraph& out, ProgramWriter& w, int s, const StageState& state,
                  const model::LayerParameters& stage_params);

  LlmContext& ctx_;
  const TrainingStepInputs& in_;
  const model::LlmDims& d_;
  const parallel::Degrees& deg_;
  const int pp_, v_, m_;
  const PipelineSchedule schedule_;
  // ZB-H1's W passes are filler work (step_simulator); DualPipe's run where its order puts them.
  const bool w_fills_, dual_;
  const ModelTemplates parts_;
  const int slots_, stage_chunks_;
  const double table_params_;
  const bool head_has_table_;
  // Dense parameters are data-parallel over dp x ep (reduce-scattered over ep first, then
  // over dp, and with ZeRO-0 gathered back over ep); the routed experts over dp only.
  const bool bucketed_sync_, sync_every_mb_;
  const double bucket_params_, stall_s_;
  std::vector<ModelPartition::LayerRange> position_layers_;  // the layers at each position of a pipeline
  std::vector<model::LayerParameters> layer_params_;
};

Place TrainingStepWriter::place(int stage, int c) const {
  Place p;
  if (dual_) {
    p.length = pp_;
    p.position = c == 0 ? stage : pp_ - 1 - stage;
    p.slot = c * pp_ + p.position;
    const int step = c == 0 ? 1 : -1;
    p.prev_stage = stage - step;
    p.next_stage = stage + step;
    p.prev_chunk = p.next_chunk = c;
  } else {
    p.length = pp_ * v_;
    p.position = c * pp_ + stage;
    p.slot = p.position;
    p.prev_stage = (p.position - 1 + pp_) % pp_;
    p.prev_chunk = (p.position - 1) / pp_;
    p.next_stage = (p.position + 1) % pp_;
    p.next_chunk = (p.position + 1) / pp_;
  }
  return p;
}

model::LayerParameters TrainingStepWriter::stage_parameters(int s) const {
  model::LayerParameters stage_params;
  for (int c = 0; c < stage_chunks_; ++c) {
    const Place pl = place(s, c);
    const ModelPartition::LayerRange r = position_layers_[static_cast<std::size_t>(pl.position)];
    for (int l = r.first; l < r.first + r.count; ++l) {
      const model::LayerParameters& p = layer_params_[static_cast<std::size_t>(l)];
      stage_params.dense += p.dense;
      stage_params.routed_experts += p.routed_experts;
    }
    if (pl.position == 0) stage_params.dense += table_params_;
    if (pl.position == pl.length - 1 && head_has_table_) stage_params.dense += table_params_;
  }
  return stage_params;
}

bool makes_weight_grads(const PassTask& t) {
  return t.kind == PassKind::weight_grad || (t.kind == PassKind::backward && !t.defers_weight_grads);
}

void TrainingStepWriter::write_stage(StepGraph& out, int s) {
  ProgramWriter w(out, s);
  const std::vector<PassTask> order = parallel::schedule_of(schedule_).stage_order(s, pp_, m_, v_);
  // The last pass of each chunk that produces weight gradients: where its buckets go.
  std::vector<int> last_grad_task(static_cast<std::size_t>(stage_chunks_), -1);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (makes_weight_grads(order[i])) last_grad_task[static_cast<std::size_t>(order[i].chunk)] = static_cast<int>(i);
  }
  StageState state;
  const model::LayerParameters stage_params = stage_parameters(s);
  for (int flush = 0; flush < in_.batching.flushes; ++flush) {
    const bool final_flush = flush + 1 == in_.batching.flushes;
    for (std::size_t ti = 0; ti < order.size(); ++ti) {
      const PassTask& task = order[ti];
      const bool syncs_here =
          bucketed_sync_ && makes_weight_grads(task) &&
          (sync_every_mb_ || (final_flush && static_cast<int>(ti) == last_grad_task[static_cast<std::size_t>(task.chunk)]));
      write_task(w, state, s, flush, task, syncs_here);
    }
  }
  write_tail(out, w, s, state, stage_params);
}

void TrainingStepWriter::write_task(ProgramWriter& w, StageState& state, int s, int flush, const PassTask& task,
                                    bool syncs_here) {
  const Place pl = place(s, task.chunk);
  const bool first_chunk = pl.position == 0;
  const bool last_chunk = pl.position == pl.length - 1;
  const int layers = position_layers_[static_cast<std::size_t>(pl.position)].count;
  const int layer0 = position_layers_[static_cast<std::size_t>(pl.position)].first;
  const int mb = flush * m_ + task.micro_batch;
  const int ep = deg_.ep;
  const double boundary = in_.comms.boundary.bytes;
  const auto pass = task.kind == PassKind::forward ? model::Pass::forward : model::Pass::backward;
  auto prefix = [&](int layer_no) {
    return layer_no >= 0 ? fmt::format("L{}.mb{}.{}.", layer_no, mb, pass_name(task.kind))
                         : fmt::format("mb{}.{}.", mb, pass_name(task.kind));
  };
  model::LayerParameters bucket;
  auto add_gradients = [&](const model::LayerParameters& params, const std::vector<int>& after, bool flush_all) {
    if (!syncs_here) return;
    bucket.dense += params.dense;
    bucket.routed_experts += params.routed_experts;
    if (bucket.total() < bucket_params_ && !flush_all) return;
    if (bucket.total() <= 0.0) return;
    const auto collective = [&](CollectiveOp op, Parallelism group, double params_in, std::vector<int> deps) {
      StepNode n;
      n.kind = StepNodeKind::collective;
      n.op = op;
      n.group = group;
      n.purpose = model::CommPurpose::dp;
      n.bytes = params_in * in_.gradient_bytes;
      n.micro_batch = mb;
      n.chunk = task.chunk;
      n.pass = model::Pass::backward;
      n.name = w.name(fmt::format("mb{}.{}_{}", mb, to_string(group), to_string(op)));
      return w.add(n, deps);
    };
    const int zero = in_.zero_stage;
    std::vector<int> deps = after;
    if (ep > 1 && bucket.dense > 0.0) deps = {collective(CollectiveOp::reduce_scatter, Parallelism::ep, bucket.dense, deps)};
    if (deg_.dp > 1) {
      deps = {collective(zero == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter, Parallelism::dp,
                         ep > 1 ? bucket.dense / ep + bucket.routed_experts : bucket.total(), deps)};
    }
    if (ep > 1 && bucket.dense > 0.0 && zero == 0) {
      deps = {collective(CollectiveOp::all_gather, Parallelism::ep, bucket.dense, deps)};
    }
    state.gradient_syncs.push_back(deps.front());
    bucket = {};
  };
  std::vector<int> entry;
  // A weight-gradient pass needs its micro-batch's input-gradient pass first.
  if (task.kind == PassKind::weight_grad) entry = state.backward_end[{mb, task.chunk}];
  // Activations come from the previous position, gradients from the next.
  const bool forward = task.kind == PassKind::forward;
  if (pp_ > 1 && ((forward && !first_chunk) || (task.kind == PassKind::backward && !last_chunk))) {
    StepNode r = message(StepNodeKind::recv, pass, boundary, forward ? pl.prev_stage : pl.next_stage,
                         tag(flush, task.micro_batch, pl.slot, forward ? 0 : 1), model::CommPurpose::pp);
    r.micro_batch = mb;
    r.chunk = task.chunk;
    r.name = w.name(prefix(-1) + (forward ? "recv_activations" : "recv_gradients"));
    entry = {w.add(r, {})};
    if (stall_s_ > 0.0) {
      // Posted in issue order, it stalls while the message is still on its way: the
      // two ends of a hop wait on the handshake at the same time.
      StepNode st = transfer_stall(pass, stall_s_, mb, task.chunk);
      st.name = w.name(prefix(-1) + (forward ? "recv_activations_stall" : "recv_gradients_stall"));
      entry.push_back(w.add(st, {}));
    }
  }
  if (forward) {
    if (first_chunk) entry = w.stamp(parts_.embedding.forward, entry, prefix(-1) + "embedding.", pass, -1, mb, task.chunk);
    for (int l = 0; l < layers; ++l) {
      entry = w.stamp(parts_.layer(d_, layer0 + l).forward, entry, prefix(layer0 + l), pass, layer0 + l, mb, task.chunk);
    }
    if (last_chunk) entry = w.stamp(parts_.head.forward, entry, prefix(-1) + "head.", pass, -1, mb, task.chunk);
  } else {
    const bool wgrad = task.kind == PassKind::weight_grad;
    w.weight_grad_ = wgrad && w_fills_;
    auto body = [&](const PartTemplates& p) -> const Template& {
      return wgrad ? p.weight_grad : task.defers_weight_grads ? p.input_backward : p.backward;
    };
    if (last_chunk) {
      entry = w.stamp(body(parts_.head), entry, prefix(-1) + "head.", pass, -1, mb, task.chunk);
      add_gradients({head_has_table_ ? table_params_ : 0.0, 0.0}, entry, false);
    }
    for (int l = layers - 1; l >= 0; --l) {
      entry = w.stamp(body(parts_.layer(d_, layer0 + l)), entry, prefix(layer0 + l), pass, layer0 + l, mb, task.chunk);
      add_gradients(layer_params_[static_cast<std::size_t>(layer0 + l)], entry, false);
    }
    if (first_chunk) {
      entry = w.stamp(body(parts_.embedding), entry, prefix(-1) + "embedding.", pass, -1, mb, task.chunk);
      add_gradients({table_params_, 0.0}, entry, false);
    }
    add_gradients({}, entry, true);
    w.weight_grad_ = false;
    if (wgrad) {
      state.weight_grad_ends.insert(state.weight_grad_ends.end(), entry.begin(), entry.end());
    } else if (task.defers_weight_grads) {
      state.backward_end[{mb, task.chunk}] = entry;
    }
  }
  if (pp_ > 1 && ((forward && !last_chunk) || (task.kind == PassKind::backward && !first_chunk))) {
    const Place to = forward ? place(pl.next_stage, pl.next_chunk) : place(pl.prev_stage, pl.prev_chunk);
    StepNode sn = message(StepNodeKind::send, pass, boundary, forward ? pl.next_stage : pl.prev_stage,
                          tag(flush, task.micro_batch, to.slot, forward ? 0 : 1), model::CommPurpose::pp);
    sn.micro_batch = mb;
    sn.chunk = task.chunk;
    sn.name = w.name(prefix(-1) + (forward ? "send_activations" : "send_gradients"));
    if (stall_s_ > 0.0) {
      StepNode st = transfer_stall(pass, stall_s_, mb, task.chunk);
      st.name = w.name(prefix(-1) + (forward ? "send_activations_stall" : "send_gradients_stall"));
      entry = {w.add(st, entry)};
    }
    (void)w.add(sn, entry);
  }
}

// After the last pass: the tied-embedding exchange, the optimizer and the parameter
// all-gathers that overlap the next step.
void TrainingStepWriter::write_tail(StepGraph& out, ProgramWriter& w, int s, const StageState& state,
                                    const model::LayerParameters& stage_params) {
  const int ep = deg_.ep;
  const int zero = in_.zero_stage;
  // Tied embeddings: the first and last stage exchange their table gradients.
  std::vector<int> before_optimizer = state.gradient_syncs;
  before_optimizer.insert(before_optimizer.end(), state.weight_grad_ends.begin(), state.weight_grad_ends.end());
  const double tied = in_.comms.embedding_sync.bytes;
  if (tied > 0.0 && pp_ > 1 && (s == 0 || s == pp_ - 1)) {
    const int peer = s == 0 ? pp_ - 1 : 0;
    const int last = static_cast<int>(out.stages[static_cast<std::size_t>(s)].nodes.size()) - 1;
    StepNode sn = message(StepNodeKind::send, model::Pass::backward, tied, peer, -1 - s,
                          model::CommPurpose::embedding_sync);
    sn.name = w.name("embedding_sync.send");
    (void)w.add(sn, {last});
    StepNode rn = message(StepNodeKind::recv, model::Pass::backward, tied, peer, -1 - peer,
                          model::CommPurpose::embedding_sync);
    rn.name = w.name("embedding_sync.recv");
    before_optimizer.push_back(w.add(rn, {last}));
  }
  // Adam over this rank's shard (ZeRO >= 1 shards it over DP).
  StepNode opt;
  opt.cls = model::OpClass::elementwise;
  const double opt_params =
      zero >= 1 ? stage_params.dense / (deg_.dp * ep) + stage_params.routed_experts / deg_.dp : stage_params.total();
  opt.bytes = opt_params * in_.optimizer_bytes_per_parameter;
  opt.duration_s = ctx_.coster().memory_kernel_s(opt.bytes);
  opt.name = w.name("optimizer");
  opt.pass = model::Pass::backward;
  const int opt_id = w.add(opt, before_optimizer);
  if (deg_.dp * ep <= 1 || zero < 1 || zero >= 3) return;
  // Updated parameters all-gathered bucket by bucket behind the next step's forward (or
  // before it, sw_param.zero_gather_overlap: training_predictor counts them whole): over
  // dp, then (expert parallelism) the dense ones over ep.
  const auto gathers = [&](Parallelism group, double params, int prev) {
    for (double left = params; left > 0.0;) {
      const double b = std::min(left, bucket_params_);
      left -= b;
      StepNode gn;
      gn.kind = StepNodeKind::collective;
      gn.op = CollectiveOp::all_gather;
      gn.group = group;
      gn.purpose = model::CommPurpose::dp;
      gn.bytes = b * in_.parameter_bytes;
      gn.next_step = true;
      gn.name = w.name(group == Parallelism::dp ? "parameter_all_gather" : "ep_parameter_all_gather");
      prev = w.add(gn, {prev});
    }
    return prev;
  };
  int prev = opt_id;
  if (deg_.dp > 1) {
    prev = gathers(Parallelism::dp, ep > 1 ? stage_params.dense / ep + stage_params.routed_experts : stage_params.total(),
                   prev);
  }
  if (ep > 1) (void)gathers(Parallelism::ep, stage_params.dense, prev);
}

}  // namespace

StepGraph build_training_step(LlmContext& ctx, const TrainingStepInputs& in) {
  TrainingStepWriter writer(ctx, in);
  StepGraph out;
  out.pp = ctx.degrees().pp;
  out.num_ranks = static_cast<int>(ctx.degrees().total());
  out.stages.resize(static_cast<std::size_t>(out.pp));
  for (int s = 0; s < out.pp; ++s) writer.write_stage(out, s);
  return out;
}

}  // namespace rapidllm::exec
