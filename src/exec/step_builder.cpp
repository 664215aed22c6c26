#include "exec/step_builder.hpp"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "model/model_flops.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::exec {

namespace {

// One pass of a part's op graph (a layer, the embedding, the head) as nodes to stamp out
// per micro-batch, with dependencies local to the template.
struct TemplateNode {
  StepNodeKind kind = StepNodeKind::compute;
  std::string_view op_name;
  model::OpClass cls = model::OpClass::elementwise;
  double duration_s = 0.0;
  double flops = 0.0;
  double bytes = 0.0;
  model::CommOp comm;
  bool recompute = false;
  bool prefetch = false;  // a parameter gather nothing in its pass waits on but its consumer
  std::vector<int> deps;
};
using Template = std::vector<TemplateNode>;

double op_bytes(const model::Op& op, double element_bytes) {
  if (op.kind == model::OpKind::gemm) {
    const auto& g = op.gemm;
    return static_cast<double>(g.m * g.k + g.k * g.n + g.m * g.n) * static_cast<double>(g.batch) * element_bytes;
  }
  return op.forward_bytes;
}

// `pass`: forward or backward; `input_grads_only`: backward without the weight-gradient
// GEMMs (zero-bubble schedules run those as their own pass).
Template make_template(const model::OpGraph& g, model::Pass pass, const std::vector<compute::OpTime>& times,
                       double element_bytes, bool input_grads_only) {
  Template t;
  std::vector<int> id(g.nodes().size(), -1);
  auto add = [&](std::size_t i, bool recompute, bool forward_kernel) {
    const model::Node& n = g.nodes()[i];
    TemplateNode tn;
    tn.recompute = recompute;
    for (const int* d = g.deps_begin(n); d != g.deps_end(n); ++d) {
      if (id[static_cast<std::size_t>(*d)] >= 0) tn.deps.push_back(id[static_cast<std::size_t>(*d)]);
    }
    if (n.kind == model::NodeKind::compute) {
      const model::Op& op = g.ops()[n.index];
      const compute::OpTime& ot = times[n.index];
      tn.op_name = op.name;
      tn.cls = op.cls;
      tn.flops = forward_kernel ? ot.forward_flops : 2.0 * ot.forward_flops;
      tn.bytes = op_bytes(op, element_bytes);
      tn.duration_s = forward_kernel ? ot.forward_s
                                     : ot.backward_s - (input_grads_only ? ot.weight_grad_s : 0.0);
    } else {
      tn.kind = StepNodeKind::collective;
      tn.comm = g.comms()[n.index];
      tn.prefetch = tn.comm.hidden_under == model::HiddenUnder::pass_time;
    }
    id[i] = static_cast<int>(t.size());
    t.push_back(std::move(tn));
  };
  if (pass == model::Pass::backward) {
    if (g.recompute == model::Recompute::full) {
      // Backward re-runs the forward first; prefetched gathers are still resident.
      for (std::size_t i = 0; i < g.nodes().size(); ++i) {
        const model::Node& n = g.nodes()[i];
        if (n.pass != model::Pass::forward) continue;
        if (n.kind == model::NodeKind::communication &&
            g.comms()[n.index].hidden_under == model::HiddenUnder::pass_time) {
          continue;
        }
        add(i, true, true);
      }
      std::fill(id.begin(), id.end(), -1);  // backward nodes depend on backward nodes only
      const int replay_end = static_cast<int>(t.size());
      for (std::size_t i = 0; i < g.nodes().size(); ++i) {
        if (g.nodes()[i].pass != model::Pass::backward) continue;
        add(i, false, false);
        // The first backward kernels wait for the replay (its last node).
        if (t.back().deps.empty() && !t.back().prefetch && replay_end > 0) t.back().deps.push_back(replay_end - 1);
      }
      return t;
    }
    if (g.recompute == model::Recompute::attention_core) {
      TemplateNode r;
      r.op_name = "attention_recompute";
      r.cls = model::OpClass::attention;
      r.recompute = true;
      for (std::size_t i = 0; i < g.nodes().size(); ++i) {
        const model::Node& n = g.nodes()[i];
        if (n.pass == model::Pass::forward && n.kind == model::NodeKind::compute &&
            g.ops()[n.index].kind == model::OpKind::attention) {
          r.duration_s += times[n.index].forward_s;
          r.flops += times[n.index].forward_flops;
        }
      }
      if (r.duration_s > 0.0) t.push_back(std::move(r));
    }
  }
  const int lead = static_cast<int>(t.size());
  for (std::size_t i = 0; i < g.nodes().size(); ++i) {
    if (g.nodes()[i].pass != pass) continue;
    add(i, false, pass == model::Pass::forward);
    if (lead > 0 && t.back().deps.empty() && !t.back().prefetch) t.back().deps.push_back(lead - 1);
  }
  return t;
}

// The weight-gradient GEMMs of a backward pass, one node each (zero-bubble W pass).
Template weight_grad_template(const model::OpGraph& g, const std::vector<compute::OpTime>& times) {
  Template t;
  for (const auto& n : g.nodes()) {
    if (n.pass != model::Pass::backward || n.kind != model::NodeKind::compute) continue;
    const compute::OpTime& ot = times[n.index];
    if (ot.weight_grad_s <= 0.0) continue;
    TemplateNode tn;
    tn.op_name = g.ops()[n.index].name;
    tn.cls = g.ops()[n.index].cls;
    tn.duration_s = ot.weight_grad_s;
    tn.flops = ot.forward_flops;
    if (!t.empty()) tn.deps.push_back(static_cast<int>(t.size()) - 1);
    t.push_back(std::move(tn));
  }
  return t;
}

struct PartTemplates {
  Template forward, backward, weight_grad;
};

PartTemplates part_templates(const model::OpGraph& g, compute::OpCoster& coster, double element_bytes, bool split) {
  std::vector<compute::OpTime> times;
  times.reserve(g.ops().size());
  for (const auto& op : g.ops()) times.push_back(coster.time(op));
  PartTemplates p;
  p.forward = make_template(g, model::Pass::forward, times, element_bytes, false);
  p.backward = make_template(g, model::Pass::backward, times, element_bytes, split);
  if (split) p.weight_grad = weight_grad_template(g, times);
  return p;
}

std::string_view pass_name(int kind) { return kind == 0 ? "fwd" : kind == 1 ? "bwd" : "wgrad"; }

class ProgramWriter {
 public:
  ProgramWriter(StepGraph& graph, int stage) : g_(graph), prog_(graph.stages[static_cast<std::size_t>(stage)]) {}

  std::uint32_t name(std::string text) {
    g_.names.push_back(std::move(text));
    return static_cast<std::uint32_t>(g_.names.size() - 1);
  }

  int add(StepNode n, const std::vector<int>& deps) {
    n.deps_begin = static_cast<std::uint32_t>(prog_.deps.size());
    for (int d : deps) {
      if (d >= 0) prog_.deps.push_back(static_cast<std::uint32_t>(d));
    }
    n.deps_end = static_cast<std::uint32_t>(prog_.deps.size());
    prog_.nodes.push_back(n);
    return static_cast<int>(prog_.nodes.size() - 1);
  }

  // Stamps `t` out; its sources wait for `entry`. Returns its sinks (what the next part waits for).
  std::vector<int> stamp(const Template& t, const std::vector<int>& entry, const std::string& prefix, model::Pass pass,
                         int layer, int micro_batch, int chunk) {
    std::vector<int> ids(t.size());
    std::vector<char> has_dependent(t.size(), 0);
    for (std::size_t i = 0; i < t.size(); ++i) {
      const TemplateNode& tn = t[i];
      StepNode n;
      n.kind = tn.kind;
      n.pass = pass;
      n.layer = layer;
      n.micro_batch = micro_batch;
      n.chunk = chunk;
      n.recompute = tn.recompute;
      n.weight_grad = weight_grad_;
      std::vector<int> deps;
      for (int d : tn.deps) {
        deps.push_back(ids[static_cast<std::size_t>(d)]);
        has_dependent[static_cast<std::size_t>(d)] = 1;
      }
      if (tn.deps.empty() && !tn.prefetch) deps.insert(deps.end(), entry.begin(), entry.end());
      if (tn.kind == StepNodeKind::compute) {
        n.cls = tn.cls;
        n.duration_s = tn.duration_s;
        n.flops = tn.flops;
        n.bytes = tn.bytes;
        n.name = name(fmt::format("{}{}{}", prefix, tn.recompute ? "recompute." : "", tn.op_name));
      } else {
        n.op = tn.comm.op;
        n.group = tn.comm.group;
        n.purpose = tn.comm.purpose;
        n.bytes = tn.comm.bytes;
        n.overlap = tn.comm.hidden_under == model::HiddenUnder::pass_compute ? tn.comm.overlap : 0.0;
        n.name = name(fmt::format("{}{}{}_{}", prefix, tn.recompute ? "recompute." : "",
                                  to_string(tn.comm.group), to_string(tn.comm.op)));
      }
      ids[i] = add(n, deps);
    }
    std::vector<int> sinks;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!has_dependent[i] && !t[i].prefetch) sinks.push_back(ids[i]);
    }
    return sinks.empty() ? entry : sinks;
  }

  bool weight_grad_ = false;  // stamping a W pass

 private:
  StepGraph& g_;
  StageProgram& prog_;
};

}  // namespace

std::vector<PassTask> stage_order(PipelineSchedule schedule, int stage, int pp, int m, int v) {
  std::vector<PassTask> out;
  const int warm_1f1b = std::min(pp - stage - 1, m);
  switch (schedule) {
    case PipelineSchedule::gpipe:
      for (int k = 0; k < m; ++k) out.push_back({0, k, 0});
      for (int k = 0; k < m; ++k) out.push_back({1, k, 0});
      break;
    case PipelineSchedule::one_f_one_b:
      for (int k = 0; k < warm_1f1b; ++k) out.push_back({0, k, 0});
      for (int k = 0; k < m - warm_1f1b; ++k) {
        out.push_back({0, warm_1f1b + k, 0});
        out.push_back({1, k, 0});
      }
      for (int k = m - warm_1f1b; k < m; ++k) out.push_back({1, k, 0});
      break;
    case PipelineSchedule::zero_bubble:
      // ZB-H1 (Qi et al. 2023): 1F1B's order of F and B (input gradients only, so gradients
      // travel back faster); each W (weight gradients) is listed after its B but is filler
      // work: the simulator runs a stage's W passes only when its next F or B is not ready,
      // which puts them into 1F1B's cool-down bubbles.
      for (int k = 0; k < warm_1f1b; ++k) out.push_back({0, k, 0});
      for (int k = 0; k < m - warm_1f1b; ++k) {
        out.push_back({0, warm_1f1b + k, 0});
        out.push_back({1, k, 0});
        out.push_back({2, k, 0});
      }
      for (int k = m - warm_1f1b; k < m; ++k) {
        out.push_back({1, k, 0});
        out.push_back({2, k, 0});
      }
      break;
    case PipelineSchedule::interleaved_1f1b: {
      // Megatron-LM's interleaved schedule: virtual micro-batch k is micro-batch
      // (k / (pp v)) pp + k % pp of chunk (k / pp) % v (backward: chunks in reverse).
      if (m % pp != 0) {
        throw InfeasibleError(fmt::format(
            "the interleaved 1F1B schedule needs the micro-batches per pipeline ({}) to be a multiple of pp = {} "
            "(Megatron-LM's rule); the step simulation cannot lay it out otherwise",
            m, pp));
      }
      const int total = m * v;
      auto mb = [&](int k) { return (k / (pp * v)) * pp + k % pp; };
      auto chunk = [&](int k, bool fwd) { return fwd ? (k / pp) % v : v - 1 - (k / pp) % v; };
      const int warm = std::min(total, (pp - stage - 1) * 2 + (v - 1) * pp);
      for (int k = 0; k < warm; ++k) out.push_back({0, mb(k), chunk(k, true)});
      for (int j = 0; j < total - warm; ++j) {
        out.push_back({0, mb(warm + j), chunk(warm + j, true)});
        out.push_back({1, mb(j), chunk(j, false)});
      }
      for (int j = total - warm; j < total; ++j) out.push_back({1, mb(j), chunk(j, false)});
      break;
    }
    case PipelineSchedule::dualpipe:
      throw InfeasibleError(
          "the dualpipe schedule is not laid out by the step simulation yet; use execution_backend.model: "
          "analytical (its bubble formula) or another pp_schedule");
  }
  return out;
}

StepGraph build_training_step(LlmContext& ctx, const TrainingStepInputs& in) {
  const auto& hw = ctx.hardware();
  const auto& d = ctx.dims();
  const auto& deg = ctx.degrees();
  const int pp = deg.pp;
  const int v = in.vpp;
  const int chunks = pp * v;
  const int m = in.batching.micro_batches;
  const PipelineSchedule schedule = hw.parallelism.pp_schedule;
  const bool split = schedule == PipelineSchedule::zero_bubble;
  const double element_bytes = in.shape.element_bytes;

  const parallel::PartSettings settings = ctx.part_settings();
  model::OpGraph graph;
  parallel::layer_graph(d, in.shape, settings, graph);
  const PartTemplates layer = part_templates(graph, ctx.coster(), element_bytes, split);
  parallel::embedding_graph(d, in.shape, settings, graph);
  const PartTemplates embedding = part_templates(graph, ctx.coster(), element_bytes, split);
  parallel::head_graph(d, in.shape, settings, graph);
  const PartTemplates head = part_templates(graph, ctx.coster(), element_bytes, split);

  // Layers of each global chunk (chunk c on stage c % pp), and the first layer's number.
  std::vector<int> chunk_layers(static_cast<std::size_t>(chunks)), first_layer(static_cast<std::size_t>(chunks));
  for (int c = 0, next = 0; c < chunks; ++c) {
    chunk_layers[static_cast<std::size_t>(c)] = d.layers / chunks + (c < d.layers % chunks ? 1 : 0);
    first_layer[static_cast<std::size_t>(c)] = next;
    next += chunk_layers[static_cast<std::size_t>(c)];
  }
  const double layer_params = model::layer_parameter_count(d) / deg.tp;
  const double table_params = static_cast<double>(d.vocab) * static_cast<double>(d.hidden) / deg.tp;
  const bool head_has_table = !d.tied_embeddings || pp > 1;
  const int zero = in.zero_stage;
  const bool bucketed_sync = deg.dp > 1 && zero < 3;
  const bool sync_every_mb = hw.sw.dp_microbatch == DpMicrobatchSync::every_mb;
  const double bucket_params = hw.sw.dp_bucket_params;

  StepGraph out;
  out.pp = pp;
  out.num_ranks = static_cast<int>(deg.total());
  out.stages.resize(static_cast<std::size_t>(pp));

  const double boundary = in.comms.boundary.bytes;
  auto tag = [&](int flush, int k, int global_chunk, int dir) { return ((flush * m + k) * chunks + global_chunk) * 2 + dir; };

  for (int s = 0; s < pp; ++s) {
    ProgramWriter w(out, s);
    const std::vector<PassTask> order = stage_order(schedule, s, pp, m, v);
    // The last pass of each chunk that produces weight gradients: where its buckets go.
    std::vector<int> last_grad_task(static_cast<std::size_t>(v), -1);
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i].kind == (split ? 2 : 1)) last_grad_task[static_cast<std::size_t>(order[i].chunk)] = static_cast<int>(i);
    }
    std::vector<int> gradient_syncs;  // bucket reductions the optimizer waits for
    std::map<std::pair<int, int>, std::vector<int>> backward_end;  // (mb, chunk) -> last B nodes
    std::vector<int> weight_grad_ends;  // the optimizer waits for every W pass too
    double stage_params = 0.0;
    for (int c = 0; c < v; ++c) {
      const int gc = c * pp + s;
      stage_params += chunk_layers[static_cast<std::size_t>(gc)] * layer_params;
      if (gc == 0) stage_params += table_params;
      if (gc == chunks - 1 && head_has_table) stage_params += table_params;
    }
    for (int flush = 0; flush < in.batching.flushes; ++flush) {
      const bool final_flush = flush + 1 == in.batching.flushes;
      for (std::size_t ti = 0; ti < order.size(); ++ti) {
        const PassTask& task = order[ti];
        const int gc = task.chunk * pp + s;
        const bool first_chunk = gc == 0;
        const bool last_chunk = gc == chunks - 1;
        const int layers = chunk_layers[static_cast<std::size_t>(gc)];
        const int layer0 = first_layer[static_cast<std::size_t>(gc)];
        const int mb = flush * m + task.micro_batch;
        const auto pass = task.kind == 0 ? model::Pass::forward : model::Pass::backward;
        auto prefix = [&](int layer_no) {
          return layer_no >= 0 ? fmt::format("L{}.mb{}.{}.", layer_no, mb, pass_name(task.kind))
                            : fmt::format("mb{}.{}.", mb, pass_name(task.kind));
        };
        const bool syncs_here = bucketed_sync && task.kind == (split ? 2 : 1) &&
                                (sync_every_mb || (final_flush && static_cast<int>(ti) == last_grad_task[static_cast<std::size_t>(task.chunk)]));
        double bucket = 0.0;
        auto add_gradients = [&](double params, const std::vector<int>& after, bool flush_all) {
          if (!syncs_here) return;
          bucket += params;
          if (bucket < bucket_params && !flush_all) return;
          if (bucket <= 0.0) return;
          StepNode n;
          n.kind = StepNodeKind::collective;
          n.op = zero == 0 ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
          n.group = Parallelism::dp;
          n.purpose = model::CommPurpose::dp;
          n.bytes = bucket * in.gradient_bytes;
          n.micro_batch = mb;
          n.chunk = task.chunk;
          n.pass = model::Pass::backward;
          n.name = w.name(fmt::format("mb{}.dp_{}", mb, to_string(n.op)));
          gradient_syncs.push_back(w.add(n, after));
          bucket = 0.0;
        };
        std::vector<int> entry;
        // A weight-gradient pass needs its micro-batch's input-gradient pass first.
        if (task.kind == 2) entry = backward_end[{mb, task.chunk}];
        if (task.kind == 0 && !first_chunk && pp > 1) {
          StepNode r;
          r.kind = StepNodeKind::recv;
          r.group = Parallelism::pp;
          r.purpose = model::CommPurpose::pp;
          r.bytes = boundary;
          r.peer_stage = (s - 1 + pp) % pp;
          r.tag = tag(flush, task.micro_batch, gc, 0);
          r.micro_batch = mb;
          r.chunk = task.chunk;
          r.name = w.name(prefix(-1) + "recv_activations");
          entry = {w.add(r, {})};
        }
        if (task.kind == 1 && !last_chunk && pp > 1) {
          StepNode r;
          r.kind = StepNodeKind::recv;
          r.group = Parallelism::pp;
          r.purpose = model::CommPurpose::pp;
          r.pass = model::Pass::backward;
          r.bytes = boundary;
          r.peer_stage = (s + 1) % pp;
          r.tag = tag(flush, task.micro_batch, gc, 1);
          r.micro_batch = mb;
          r.chunk = task.chunk;
          r.name = w.name(prefix(-1) + "recv_gradients");
          entry = {w.add(r, {})};
        }
        if (task.kind == 0) {
          if (first_chunk) entry = w.stamp(embedding.forward, entry, prefix(-1) + "embedding.", pass, -1, mb, task.chunk);
          for (int l = 0; l < layers; ++l) {
            entry = w.stamp(layer.forward, entry, prefix(layer0 + l), pass, layer0 + l, mb, task.chunk);
          }
          if (last_chunk) entry = w.stamp(head.forward, entry, prefix(-1) + "head.", pass, -1, mb, task.chunk);
        } else {
          const bool wgrad = task.kind == 2;
          w.weight_grad_ = wgrad;
          const PartTemplates* parts[3] = {&head, &layer, &embedding};
          auto body = [&](const PartTemplates& p) -> const Template& { return wgrad ? p.weight_grad : p.backward; };
          if (last_chunk) {
            entry = w.stamp(body(*parts[0]), entry, prefix(-1) + "head.", pass, -1, mb, task.chunk);
            add_gradients(head_has_table ? table_params : 0.0, entry, false);
          }
          for (int l = layers - 1; l >= 0; --l) {
            entry = w.stamp(body(layer), entry, prefix(layer0 + l), pass, layer0 + l, mb, task.chunk);
            add_gradients(layer_params, entry, false);
          }
          if (first_chunk) {
            entry = w.stamp(body(embedding), entry, prefix(-1) + "embedding.", pass, -1, mb, task.chunk);
            add_gradients(table_params, entry, false);
          }
          add_gradients(0.0, entry, true);
          w.weight_grad_ = false;
          if (wgrad) {
            weight_grad_ends.insert(weight_grad_ends.end(), entry.begin(), entry.end());
          } else {
            backward_end[{mb, task.chunk}] = entry;
          }
        }
        const bool sends_on = (task.kind == 0 && !last_chunk) || (task.kind == 1 && !first_chunk);
        if (sends_on && pp > 1) {
          StepNode sn;
          sn.kind = StepNodeKind::send;
          sn.group = Parallelism::pp;
          sn.purpose = model::CommPurpose::pp;
          sn.pass = pass;
          sn.bytes = boundary;
          sn.peer_stage = task.kind == 0 ? (s + 1) % pp : (s - 1 + pp) % pp;
          sn.tag = task.kind == 0 ? tag(flush, task.micro_batch, gc + 1, 0) : tag(flush, task.micro_batch, gc - 1, 1);
          sn.micro_batch = mb;
          sn.chunk = task.chunk;
          sn.name = w.name(prefix(-1) + (task.kind == 0 ? "send_activations" : "send_gradients"));
          (void)w.add(sn, entry);
        }
      }
    }
    // Tied embeddings: the first and last stage exchange their table gradients.
    std::vector<int> before_optimizer = gradient_syncs;
    before_optimizer.insert(before_optimizer.end(), weight_grad_ends.begin(), weight_grad_ends.end());
    const double tied = in.comms.embedding_sync.bytes;
    if (tied > 0.0 && pp > 1 && (s == 0 || s == pp - 1)) {
      const int peer = s == 0 ? pp - 1 : 0;
      StepNode sn;
      sn.kind = StepNodeKind::send;
      sn.group = Parallelism::pp;
      sn.purpose = model::CommPurpose::embedding_sync;
      sn.pass = model::Pass::backward;
      sn.bytes = tied;
      sn.peer_stage = peer;
      sn.tag = -1 - s;
      sn.name = w.name("embedding_sync.send");
      const int last = static_cast<int>(out.stages[static_cast<std::size_t>(s)].nodes.size()) - 1;
      (void)w.add(sn, {last});
      StepNode rn = sn;
      rn.kind = StepNodeKind::recv;
      rn.tag = -1 - peer;
      rn.name = w.name("embedding_sync.recv");
      before_optimizer.push_back(w.add(rn, {last}));
    }
    // Adam over this rank's shard (ZeRO >= 1 shards it over DP).
    StepNode opt;
    opt.cls = model::OpClass::elementwise;
    const double opt_params = zero >= 1 ? stage_params / deg.dp : stage_params;
    opt.bytes = opt_params * in.optimizer_bytes_per_parameter;
    opt.duration_s = ctx.coster().memory_kernel_s(opt.bytes);
    opt.name = w.name("optimizer");
    opt.pass = model::Pass::backward;
    const int opt_id = w.add(opt, before_optimizer);
    if (deg.dp > 1 && zero >= 1 && zero < 3) {
      // Updated parameters all-gathered bucket by bucket behind the next step's forward.
      double left = stage_params;
      int prev = opt_id;
      while (left > 0.0) {
        const double b = std::min(left, bucket_params);
        left -= b;
        StepNode gn;
        gn.kind = StepNodeKind::collective;
        gn.op = CollectiveOp::all_gather;
        gn.group = Parallelism::dp;
        gn.purpose = model::CommPurpose::dp;
        gn.bytes = b * in.parameter_bytes;
        gn.next_step = true;
        gn.name = w.name("parameter_all_gather");
        prev = w.add(gn, {prev});
      }
    }
  }
  return out;
}

}  // namespace rapidllm::exec
