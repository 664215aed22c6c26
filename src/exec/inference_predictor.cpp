#include "exec/inference_predictor.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "energy/energy_report.hpp"
#include "exec/convex_sum.hpp"
#include "exec/inference_step.hpp"
#include "exec/llm_context.hpp"
#include "exec/op_list_cost.hpp"
#include "exec/step_simulator.hpp"
#include "memory/inference_memory.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/gemm.hpp"

namespace rapidllm::exec {

namespace {

// The whole model's forward for one step (prefill or one decode step), all stages in
// sequence: one batch flows through the pipeline.
struct ForwardCost {
  OpListCost compute;
  double tp_s = 0.0;       // exposed TP communication
  double cp_s = 0.0;       // exposed CP communication (K/V gathers, decode merges)
  double ep_s = 0.0;       // exposed MoE token dispatch and combine
  double network_j = 0.0;  // TP, CP and EP collectives, per rank
};

ForwardCost forward_cost(LlmContext& ctx, const model::LocalShape& shape) {
  const auto& d = ctx.dims();
  const LlmContext::PartCosts parts = ctx.run_parts(shape);
  const GraphCost& embedding = parts.embedding;
  const GraphCost& head = parts.head;
  const auto comm = [](const GraphCost& g, model::CommPurpose p) { return g.forward_comm_s[static_cast<std::size_t>(p)]; };
  // Every kind of layer (windowed attention, MoE MLP) at its own cost.
  const GraphCost layers = ctx.layers_cost(parts, 0, d.layers);
  ForwardCost f;
  f.compute = layers.compute;
  f.compute += embedding.compute;
  f.compute += head.compute;
  f.tp_s = comm(layers, model::CommPurpose::tp) + comm(embedding, model::CommPurpose::tp) +
           comm(head, model::CommPurpose::tp);
  f.cp_s = comm(layers, model::CommPurpose::cp);
  f.ep_s = comm(layers, model::CommPurpose::ep);
  f.network_j = layers.network_j + embedding.network_j + head.network_j;
  return f;
}

double times(double v, double k) { return v * k; }
energy::Energy times(const energy::Energy& e, double k) { return e.scaled(k); }

// Activations to the next pipeline stage.
model::CommOp stage_send(double bytes) {
  return model::CommOp{CollectiveOp::send_recv, Parallelism::pp, bytes, model::CommPurpose::pp,
                       model::HiddenUnder::nothing, 0.0};
}

void add_breakdown(Breakdown& b, const ForwardCost& f, double p2p_s, double scale) {
  for (std::size_t k = 0; k < kOpClasses; ++k) {
    const double s = scale * f.compute.forward_s[k];
    if (s != 0.0) b.emplace_back(model::compute_category(static_cast<model::OpClass>(k)), s);
  }
  if (f.tp_s != 0.0) b.emplace_back(model::comm_category(model::CommPurpose::tp), scale * f.tp_s);
  if (f.cp_s != 0.0) b.emplace_back(model::comm_category(model::CommPurpose::cp), scale * f.cp_s);
  if (f.ep_s != 0.0) b.emplace_back(model::comm_category(model::CommPurpose::ep), scale * f.ep_s);
  if (p2p_s != 0.0) b.emplace_back(model::comm_category(model::CommPurpose::pp), scale * p2p_s);
}

// The decode steps in closed form: every step's ops but the attention core cost the same
// (the first step's), the attention core grows with the cache.
struct DecodeSteps {
  ForwardCost first;          // the first step, kv = the prompt
  double p2p_s = 0.0;         // its pipeline hops
  double fixed_s = 0.0;       // a step less its attention cores
  double attention_sum = 0.0;  // the attention cores, every step
  double first_attention_s = 0.0;  // the attention cores of the first step and of the last
  double last_attention_s = 0.0;
  energy::Energy energy;      // every step, one replica's tp ranks' share (as the prefill's)
};

DecodeSteps decode_steps(LlmContext& ctx, const model::LocalShape& step, std::int64_t prompt_len,
                         std::int64_t decode_len, double hop_s, double hidden_bytes) {
  const auto& deg = ctx.degrees();
  DecodeSteps out;
  const ForwardCost first = forward_cost(ctx, step);
  out.first = first;
  const auto attention_index = static_cast<std::size_t>(model::OpClass::attention);
  const double decode_p2p =
      (deg.pp - 1) *
      (ctx.executor().comm(stage_send(static_cast<double>(step.tokens()) * hidden_bytes)).time_s + hop_s);
  out.p2p_s = decode_p2p;
  const double fixed_s = first.compute.forward_total() - first.compute.forward_s[attention_index] + first.tp_s +
                         first.cp_s + first.ep_s + decode_p2p;
  out.fixed_s = fixed_s;
  model::Op attention;
  for (const auto& op : model::transformer_layer_ops(ctx.dims(), step)) {
    if (op.kind == model::OpKind::attention) attention = op;
  }
  // With context parallelism each rank holds ceil(kv / cp) of the kv cached tokens.
  const std::int64_t cp = deg.cp;
  const auto shard = [cp](std::int64_t kv) { return (kv + cp - 1) / cp; };
  const auto rank_attention_s = [&](std::int64_t kv_rank) {
    model::Op at = attention;
    at.attention.kv_len = kv_rank;
    return ctx.coster().time(at).forward_s;
  };
  const auto attention_s = [&](std::int64_t kv) { return rank_attention_s(shard(kv)); };
  // Sum over kv = a..b of attention_s: a rank's shard length r covers cp consecutive kv,
  // so it is cp x the sum over shard lengths, less the parts of the end blocks outside.
  const auto attention_sum_over = [&](std::int64_t a, std::int64_t b) {
    if (cp == 1) return sum_convex_piecewise_linear(rank_attention_s, a, b);
    const std::int64_t ra = shard(a);
    const std::int64_t rb = shard(b);
    return static_cast<double>(cp) * sum_convex_piecewise_linear(rank_attention_s, ra, rb) -
           static_cast<double>(a - ((ra - 1) * cp + 1)) * rank_attention_s(ra) -
           static_cast<double>(rb * cp - b) * rank_attention_s(rb);
  };
  const std::int64_t lo = prompt_len;
  const std::int64_t hi = prompt_len + decode_len - 1;
  // Sliding window: a windowed layer's step attends to min(kv, w) cached tokens (its
  // rolling buffer), so its attention is flat from kv = w on; global layers see all kv.
  const std::int64_t window = ctx.dims().sliding_window;
  const int windowed = ctx.dims().windowed_layers(0, ctx.dims().layers);
  const int global = ctx.dims().layers - windowed;
  const auto windowed_sum = [&](const auto& at_kv, auto zero, auto&& partial_sum) {
    // sum over kv = lo..hi of at_kv(min(kv, w)): the part below w, then w's steps.
    auto total = zero;
    if (lo <= window) total += partial_sum(lo, std::min(hi, window));
    const std::int64_t flat = hi - std::max(lo, window + 1) + 1;
    if (flat > 0) total += times(at_kv(window), static_cast<double>(flat));
    return total;
  };
  const auto step_attention_s = [&](std::int64_t kv) {
    if (windowed == 0) return ctx.dims().layers * attention_s(kv);
    return global * attention_s(kv) + windowed * attention_s(std::min(kv, window));
  };
  double attention_sum = 0.0;
  if (windowed == 0) {
    attention_sum = ctx.dims().layers * attention_sum_over(lo, hi);
  } else {
    if (global > 0) attention_sum += global * attention_sum_over(lo, hi);
    attention_sum += windowed * windowed_sum(attention_s, 0.0, attention_sum_over);
  }
  out.attention_sum = attention_sum;
  out.first_attention_s = step_attention_s(lo);
  out.last_attention_s = step_attention_s(hi);
  const auto n = static_cast<double>(decode_len);
  // Decode energy: the fixed ops every step, the attention core's grows linearly with
  // the cache, so the steps sum to n x the mean of the first and last.
  energy::Energy fixed = first.compute.forward_energy;
  fixed += first.compute.attention_forward_energy.scaled(-1.0);
  fixed.network_j += first.network_j;
  const auto attention_energy = [&](std::int64_t kv) {
    model::Op at = attention;
    at.attention.kv_len = shard(kv);
    return ctx.coster().time(at).forward_energy.scaled(ctx.dims().layers);
  };
  energy::Energy& replica = out.energy;
  replica += fixed.scaled(n);
  if (windowed == 0) {
    energy::Energy attention_ends = attention_energy(lo);
    attention_ends += attention_energy(hi);
    replica += attention_ends.scaled(n / 2.0);
  } else {
    // Per layer (attention_energy counts all layers): linear in kv, so a run of steps
    // sums to its length x the mean of its ends; windowed layers stop growing at w.
    const double per_layer = 1.0 / ctx.dims().layers;
    const auto linear_sum = [&](std::int64_t a, std::int64_t b) {
      energy::Energy ends = attention_energy(a);
      ends += attention_energy(b);
      return ends.scaled(static_cast<double>(b - a + 1) / 2.0 * per_layer);
    };
    if (global > 0) replica += linear_sum(lo, hi).scaled(global);
    const auto at_w = [&](std::int64_t kv) { return attention_energy(kv).scaled(per_layer); };
    replica += windowed_sum(at_w, energy::Energy{}, linear_sum).scaled(windowed);
  }
  return out;
}

// A simulated forward's time along the pipeline: each stage's compute and the
// communication it waited for, summed over the stages the batch crosses in turn (its
// pipeline hops in `p2p_s`).
ForwardCost simulated_forward(const StepSimResult& sim, double& p2p_s) {
  ForwardCost f;
  const auto exposed = [](const StepSimResult::StageSummary& s, model::CommPurpose p) {
    return s.exposed_comm_s[static_cast<std::size_t>(p)];
  };
  p2p_s = 0.0;
  for (const StepSimResult::StageSummary& s : sim.stages) {
    for (std::size_t k = 0; k < kOpClasses; ++k) f.compute.forward_s[k] += s.compute_s[k];
    f.tp_s += exposed(s, model::CommPurpose::tp);
    f.cp_s += exposed(s, model::CommPurpose::cp);
    f.ep_s += exposed(s, model::CommPurpose::ep);
    p2p_s += exposed(s, model::CommPurpose::pp);
  }
  return f;
}

// One phase's step graph, played on the cluster network when the options simulate it
// (else only kept for `graph`).
std::optional<StepSimResult> run_phase(LlmContext& ctx, const StepRunOptions& options, const model::LocalShape& shape,
                                       double boundary_bytes, std::string_view phase, StepGraph* graph) {
  StepGraph g = build_inference_step(ctx, shape, boundary_bytes, phase);
  std::optional<StepSimResult> sim;
  if (options.simulate_step) {
    StepSimOptions sim_options;
    sim_options.symmetric = options.symmetric;
    sim_options.distinct_gpus = options.distinct_gpus;
    sim_options.record_timeline = options.timeline != nullptr;
    sim = simulate_step(g, ctx.placement(), ctx.network(), sim_options, 1);
  }
  if (graph != nullptr) *graph = std::move(g);
  return sim;
}

// What was simulated (the decode step adds its nodes).
void describe_simulation(const StepRunOptions& options, const parallel::Degrees& deg, const StepSimResult& sim,
                         ExecutionSummary& e) {
  e.pipeline = "simulated";
  e.simulated_units = sim.units;
  e.simulated_nodes = sim.nodes_run;
  e.symmetry = options.symmetric;
  e.reductions = options.symmetric
                     ? fmt::format("prefill and the first decode step simulated; one unit per pipeline stage stands for "
                                   "its {} replica(s) x {} EP rank(s) x {} CP rank(s) x {} TP lanes; {}",
                                   deg.dp, deg.ep, deg.cp, deg.tp,
                                   options.distinct_gpus.empty() ? "no replica differs" : options.symmetry_note)
                     : fmt::format("prefill and the first decode step simulated; no symmetry: every (stage, replica, "
                                   "EP rank, CP rank) group simulated; {}",
                                   options.symmetry_note);
}

}  // namespace

InferencePrediction predict_inference(const HardwareSpec& hw, const LlmModelSpec& spec, const std::string& source,
                                      CostCache* costs, const StepRunOptions& options) {
  CostCache local;
  LlmContext ctx(hw, spec, source, costs != nullptr ? *costs : local, options.executor, options.network);
  const auto& deg = ctx.degrees();
  InferencePrediction out;
  out.num_gpus = static_cast<int>(deg.total());
  // The batch's prompt tokens are one GEMM dimension of the prefill (and the batch an int).
  const std::int64_t rank_batch = (spec.global_batch_size + deg.ep - 1) / deg.ep;
  if (spec.global_batch_size > std::numeric_limits<int>::max() ||
      rank_batch > kMaxGemmDimension / std::max<std::int64_t>(1, spec.seq_len)) {
    throw InfeasibleError(fmt::format("a batch of {} sequences x {} tokens per rank is past the model's 2^31 - 1 tokens "
                                      "per prefill; lower global_batch_size (the sequences of one replica)",
                                      rank_batch, spec.seq_len));
  }
  out.batch_size = static_cast<int>(spec.global_batch_size);
  out.replicas = hw.parallelism.replica_count;
  out.decode_len = spec.decode_len;
  out.prompt_len = spec.seq_len - spec.decode_len;
  out.execution = execution_summary(options);

  // Expert parallelism (moe_dp): attention is data-parallel over the EP ranks, each serving
  // an equal share of the batch (ceil: padded when ep does not divide it, a warning says
  // so); the experts are split over them.
  model::LocalShape shape = ctx.local_shape(rank_batch, out.prompt_len);
  shape.fp8_linears = false;  // FP8 casts are modelled for training recipes (Transformer Engine) only
  const double hidden_bytes = static_cast<double>(ctx.dims().hidden) * shape.element_bytes;

  // Prefill: the prompt through every stage; activations cross pp - 1 boundaries.
  const double prefill_boundary = static_cast<double>(shape.norm_tokens()) * hidden_bytes;
  const ForwardCost prefill = forward_cost(ctx, shape);
  const CommCosts::Cost prefill_send = ctx.executor().comm(stage_send(prefill_boundary));
  // A blocking pipeline engine also holds both ends of each hop for its handshake (once per
  // hop: the two ends stall at the same time).
  const double hop_stall_s = hw.sw.pipeline_transfer_stall_s;
  const double prefill_p2p = (deg.pp - 1) * (prefill_send.time_s + hop_stall_s);
  // Energy of one replica: each of its tp ranks does 1/tp of every layer's work.
  energy::Energy replica = prefill.compute.forward_energy;
  replica.network_j += prefill.network_j + (deg.pp - 1) * prefill_send.energy_j / deg.tp;
  out.prefill_time_s = prefill.compute.forward_total() + prefill.tp_s + prefill.cp_s + prefill.ep_s + prefill_p2p;
  const bool graphs = options.simulate_step || options.graph != nullptr;
  StepGraph prefill_graph;
  Timeline timeline;
  std::optional<StepSimResult> sim;
  if (graphs) {
    sim = run_phase(ctx, options, shape, prefill_boundary, "prefill", &prefill_graph);
  }
  if (sim) {
    double p2p_s = 0.0;
    const ForwardCost simulated = simulated_forward(*sim, p2p_s);
    add_breakdown(out.prefill_breakdown, simulated, p2p_s, 1.0);
    out.prefill_time_s = sim->step_s;
    describe_simulation(options, deg, *sim, out.execution);
    if (options.timeline != nullptr) timeline = std::move(sim->timeline);
  } else {
    add_breakdown(out.prefill_breakdown, prefill, prefill_p2p, 1.0);
  }

  if (out.decode_len > 0) {
    // Decode step with kv cached tokens: everything but the attention core is the same at
    // every step; the attention core grows with kv.
    model::LocalShape step = shape;
    step.decode = true;
    step.sequence_parallel = false;
    step.kv_len = out.prompt_len;
    const DecodeSteps d = decode_steps(ctx, step, out.prompt_len, out.decode_len, hop_stall_s, hidden_bytes);
    const auto n = static_cast<double>(out.decode_len);
    const auto attention_index = static_cast<std::size_t>(model::OpClass::attention);
    double fixed_s = d.fixed_s;
    ForwardCost per_step = d.first;
    double p2p_s = d.p2p_s;
    if (graphs) {
      StepGraph decode_graph;
      const std::optional<StepSimResult> step_sim =
          run_phase(ctx, options, step, static_cast<double>(step.tokens()) * hidden_bytes, "decode", &decode_graph);
      if (step_sim) {
        // What the network made of the first step beyond its closed form holds for every step.
        fixed_s += step_sim->step_s - (d.fixed_s + d.first_attention_s);
        per_step = simulated_forward(*step_sim, p2p_s);
        out.execution.simulated_units = std::max(out.execution.simulated_units, step_sim->units);
        out.execution.simulated_nodes += step_sim->nodes_run;
        if (options.timeline != nullptr) append_timeline(timeline, step_sim->timeline, out.prefill_time_s);
      }
      // The sampled token goes back to the first stage: 4 bytes (an int32 id) a sequence.
      prefill_graph = join_prefill_and_decode(prefill_graph, decode_graph, 4.0 * static_cast<double>(rank_batch));
    }
    out.decode_time_s = n * fixed_s + d.attention_sum;
    out.tpot.mean_s = out.decode_time_s / n;
    out.tpot.min_s = fixed_s + d.first_attention_s;
    out.tpot.max_s = fixed_s + d.last_attention_s;
    per_step.compute.forward_s[attention_index] = d.attention_sum / n;
    add_breakdown(out.decode_breakdown, per_step, p2p_s, n);
    out.decode_tokens_per_s = out.replicas * static_cast<double>(spec.global_batch_size) * n / out.decode_time_s;
    replica += d.energy;
  }
  if (sim) {
    out.execution.network_simulations = network_simulations(ctx.network());
    if (options.timeline != nullptr) *options.timeline = std::move(timeline);
  }
  if (options.graph != nullptr) *options.graph = std::move(prefill_graph);
  out.total_time_s = out.prefill_time_s + out.decode_time_s;
  int communicators = 0;
  for (int degree : {deg.tp, deg.cp, deg.ep, deg.pp}) communicators += degree > 1 ? 1 : 0;
  out.memory = memory::inference_memory(hw, ctx.dims(), shape.micro_batch, out.prompt_len, spec.seq_len,
                                        communicators, deg.ep);
  const double generated = out.replicas * static_cast<double>(spec.global_batch_size) * static_cast<double>(out.decode_len);
  out.energy = energy::energy_report(hw, replica.scaled(static_cast<double>(deg.tp) * deg.ep * out.replicas),
                                     out.total_time_s,
                                     out.num_gpus, generated);
  out.prefill_tokens_per_s =
      out.replicas * static_cast<double>(spec.global_batch_size) * static_cast<double>(out.prompt_len) / out.prefill_time_s;
  return out;
}

}  // namespace rapidllm::exec
