#include "exec/step_templates.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "model/op_recompute.hpp"

namespace rapidllm::exec {

namespace {


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
    if (g.recompute == model::Recompute::attention_core || g.recompute == model::Recompute::op_level) {
      // What backward recomputes before its kernels, as one node: the attention core, or the
      // ops torchtitan's selective op checkpointing did not save.
      const bool op_level = g.recompute == model::Recompute::op_level;
      const std::vector<double> shares = op_level ? model::op_recompute_shares(g.ops()) : std::vector<double>{};
      TemplateNode r;
      r.op_name = op_level ? "op_recompute" : "attention_recompute";
      r.cls = op_level ? model::OpClass::elementwise : model::OpClass::attention;
      r.recompute = true;
      for (std::size_t i = 0; i < g.nodes().size(); ++i) {
        const model::Node& n = g.nodes()[i];
        if (n.pass != model::Pass::forward || n.kind != model::NodeKind::compute) continue;
        const double share = op_level ? shares[n.index] : g.ops()[n.index].kind == model::OpKind::attention ? 1.0 : 0.0;
        r.duration_s += share * times[n.index].forward_s;
        r.flops += share * times[n.index].forward_flops;
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

// A pass lasts at least its TP collectives x wait_s (hold_for_tp_waits): what its kernels
// and its communication on an idle network (`comm_s`) do not cover becomes a host wait
// after them.
void hold_for_tp_waits(Template& t, double wait_s, const IdleCommTime& comm_s) {
  if (wait_s <= 0.0 || t.empty()) return;
  double collectives = 0.0;
  double busy_s = 0.0;
  for (const TemplateNode& n : t) {
    if (n.kind == StepNodeKind::compute) {
      busy_s += n.duration_s;
    } else {
      busy_s += comm_s(n.comm);
      if (n.comm.group == Parallelism::tp) collectives += 1.0;
    }
  }
  const double held_s = collectives * wait_s - busy_s;
  if (held_s <= 0.0) return;
  TemplateNode w;
  w.op_name = "tp_wait";
  w.tp_wait = true;
  w.duration_s = held_s;
  w.deps.push_back(static_cast<int>(t.size()) - 1);
  t.push_back(std::move(w));
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

}  // namespace

PartTemplates part_templates(const model::OpGraph& g, compute::OpCoster& coster, double element_bytes,
                             double tp_wait_s, const IdleCommTime& comm_s) {
  std::vector<compute::OpTime> times;
  times.reserve(g.ops().size());
  for (const auto& op : g.ops()) times.push_back(coster.time(op));
  PartTemplates p;
  p.forward = make_template(g, model::Pass::forward, times, element_bytes, false);
  p.backward = make_template(g, model::Pass::backward, times, element_bytes, false);
  p.input_backward = make_template(g, model::Pass::backward, times, element_bytes, true);
  p.weight_grad = weight_grad_template(g, times);
  for (Template* t : {&p.forward, &p.backward, &p.input_backward}) hold_for_tp_waits(*t, tp_wait_s, comm_s);
  return p;
}

// A pipeline message end (send or receive) to or from `peer` stage; a send and its receive
// carry the same tag.
StepNode message(StepNodeKind kind, model::Pass pass, double bytes, int peer, int tag, model::CommPurpose purpose) {
  StepNode n;
  n.kind = kind;
  n.group = Parallelism::pp;
  n.purpose = purpose;
  n.pass = pass;
  n.bytes = bytes;
  n.peer_stage = peer;
  n.tag = tag;
  return n;
}

// The host blocked on a pipeline transfer's handshake: it holds the compute stream.
StepNode transfer_stall(model::Pass pass, double seconds, int micro_batch, int chunk) {
  StepNode n;
  n.kind = StepNodeKind::compute;
  n.host_wait = true;
  n.purpose = model::CommPurpose::pp;
  n.pass = pass;
  n.duration_s = seconds;
  n.micro_batch = micro_batch;
  n.chunk = chunk;
  return n;
}

ModelTemplates model_templates(LlmContext& ctx, const model::LocalShape& shape) {
  const auto& d = ctx.dims();
  const double element_bytes = shape.element_bytes;
  const IdleCommTime comm_s = [&ctx](const model::CommOp& op) { return ctx.executor().comm(op).time_s; };
  ModelTemplates t;
  model::OpGraph graph;
  for (int kind = 0; kind < model::kLayerKinds; ++kind) {
    const int first = ctx.first_layer_of_kind()[static_cast<std::size_t>(kind)];
    if (first < 0) continue;
    model::LocalShape s = shape;
    s.window = d.layer_window(first);
    parallel::layer_graph(d, s, ctx.layer_settings(first), graph, model::moe_kind(kind));
    t.layer_kinds[static_cast<std::size_t>(kind)] = part_templates(graph, ctx.coster(), element_bytes, ctx.tp_wait_s(), comm_s);
  }
  const parallel::PartSettings settings = ctx.part_settings();
  parallel::embedding_graph(d, shape, settings, graph);
  t.embedding = part_templates(graph, ctx.coster(), element_bytes, ctx.tp_wait_s(), comm_s);
  parallel::head_graph(d, shape, settings, graph);
  t.head = part_templates(graph, ctx.coster(), element_bytes, ctx.tp_wait_s(), comm_s);
  return t;
}

void describe_ranks(const LlmContext& ctx, StepGraph& graph) {
  const auto& placement = ctx.placement();
  graph.pp_stride = static_cast<int>(std::max(1LL, placement.stride(Parallelism::pp)));
  const auto& dims = ctx.hardware().network.dimensions;
  for (Parallelism p : {Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::dp, Parallelism::pp}) {
    auto& involved = graph.involved_dims[static_cast<std::size_t>(p)];
    involved.assign(dims.size(), false);
    for (const auto& span : placement.group(p)) {
      for (std::size_t j = 0; j < dims.size(); ++j) involved[j] = involved[j] || span.dimension == &dims[j];
    }
  }
}

std::uint32_t ProgramWriter::name(std::string text) {
  g_.names.push_back(std::move(text));
  return static_cast<std::uint32_t>(g_.names.size() - 1);
}

int ProgramWriter::add(StepNode n, const std::vector<int>& deps) {
  n.deps_begin = static_cast<std::uint32_t>(prog_.deps.size());
  for (int d : deps) {
    if (d >= 0) prog_.deps.push_back(static_cast<std::uint32_t>(d));
  }
  n.deps_end = static_cast<std::uint32_t>(prog_.deps.size());
  prog_.nodes.push_back(n);
  return static_cast<int>(prog_.nodes.size() - 1);
}

std::vector<int> ProgramWriter::stamp(const Template& t, const std::vector<int>& entry, const std::string& prefix,
                                      model::Pass pass, int layer, int micro_batch, int chunk) {
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
      n.host_wait = tn.tp_wait;
      if (tn.tp_wait) n.purpose = model::CommPurpose::tp;
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

}  // namespace rapidllm::exec
