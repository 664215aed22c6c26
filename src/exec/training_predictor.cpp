#include "exec/training_predictor.hpp"

#include <algorithm>

#include "exec/llm_context.hpp"
#include "energy/energy_report.hpp"
#include "exec/op_list_cost.hpp"
#include "memory/activation_memory.hpp"
#include "memory/training_memory.hpp"
#include "model/model_flops.hpp"
#include "parallel/batching.hpp"
#include "parallel/pipeline_schedule.hpp"

namespace rapidllm::exec {

namespace {

// One micro-batch through one part of the model (a layer, the embedding, the head).
struct PartCost {
  OpListCost compute;
  double tp_forward_s = 0.0;  // exposed TP communication
  double tp_backward_s = 0.0;
  double cp_forward_s = 0.0;  // exposed CP communication
  double cp_backward_s = 0.0;
  double recompute_s = 0.0;   // forward work repeated in backward
  energy::Energy recompute_energy;
  double network_j = 0.0;     // TP and CP collectives, forward and backward

  [[nodiscard]] energy::Energy energy() const {
    energy::Energy e = compute.forward_energy;
    e += compute.backward_energy;
    e += recompute_energy;
    e.network_j += network_j;
    return e;
  }

  PartCost& operator+=(const PartCost& o) {
    compute += o.compute;
    tp_forward_s += o.tp_forward_s;
    tp_backward_s += o.tp_backward_s;
    cp_forward_s += o.cp_forward_s;
    cp_backward_s += o.cp_backward_s;
    recompute_s += o.recompute_s;
    recompute_energy += o.recompute_energy;
    network_j += o.network_j;
    return *this;
  }
  [[nodiscard]] PartCost scaled(double f) const {
    PartCost out = *this;
    out.compute = compute.scaled(f);
    out.tp_forward_s *= f;
    out.tp_backward_s *= f;
    out.cp_forward_s *= f;
    out.cp_backward_s *= f;
    out.recompute_s *= f;
    out.recompute_energy = recompute_energy.scaled(f);
    out.network_j *= f;
    return out;
  }
  [[nodiscard]] double forward_s() const { return compute.forward_total() + tp_forward_s + cp_forward_s; }
  [[nodiscard]] double backward_s() const {
    return compute.backward_total() + tp_backward_s + cp_backward_s + recompute_s;
  }
};

double tp_overlap(const LlmContext& ctx) {
  const auto& o = ctx.hardware().network.overlap;
  return ctx.sequence_parallel() ? o.tp_sp_overlap : o.tp_overlap;
}

PartCost layer_cost(LlmContext& ctx, const model::LocalShape& shape) {
  PartCost p;
  p.compute = cost_ops(ctx.coster(), model::transformer_layer_ops(ctx.dims(), shape));
  const double activation_bytes = static_cast<double>(shape.tokens()) * static_cast<double>(ctx.dims().hidden) *
                                  shape.element_bytes;
  const double tp_comm = ctx.layer_tp_exchange_s(activation_bytes);
  p.tp_forward_s = LlmContext::exposed(tp_comm, p.compute.forward_total(), tp_overlap(ctx));
  p.tp_backward_s = LlmContext::exposed(tp_comm, p.compute.backward_total(), tp_overlap(ctx));
  // Energy per group member: the collective's energy is for the whole TP group.
  const double tp_j = ctx.layer_tp_exchange_j(activation_bytes) / ctx.degrees().tp;
  p.network_j = 2.0 * tp_j;
  double cp_gather_j = 0.0;  // the forward's CP all-gather, per rank
  if (ctx.degrees().cp > 1) {
    // Ring attention: each rank gathers the keys and values of the whole sequence in
    // forward; backward gathers them again and reduce-scatters their gradients.
    const auto& d = ctx.dims();
    const std::int64_t kv_heads = d.kv_heads >= shape.tp ? d.kv_heads / shape.tp : 1;
    const double kv_bytes = static_cast<double>(shape.micro_batch * shape.seq) * 2.0 *
                            static_cast<double>(kv_heads * d.head_dim) * shape.element_bytes;
    const double gather = ctx.collective_s(CollectiveOp::all_gather, kv_bytes, Parallelism::cp);
    const double scatter = ctx.collective_s(CollectiveOp::reduce_scatter, kv_bytes, Parallelism::cp);
    const double overlap = ctx.hardware().network.overlap.cp_overlap;
    const double attention_fwd = p.compute.forward_s[static_cast<std::size_t>(model::OpClass::attention)];
    const double attention_bwd = p.compute.backward_s[static_cast<std::size_t>(model::OpClass::attention)];
    p.cp_forward_s = LlmContext::exposed(gather, attention_fwd, overlap);
    p.cp_backward_s = LlmContext::exposed(gather + scatter, attention_bwd, overlap);
    cp_gather_j = ctx.collective_energy_j(CollectiveOp::all_gather, kv_bytes, Parallelism::cp) / ctx.degrees().cp;
    p.network_j += 2.0 * cp_gather_j +
                   ctx.collective_energy_j(CollectiveOp::reduce_scatter, kv_bytes, Parallelism::cp) / ctx.degrees().cp;
  }
  const ActivationRecompute recompute = ctx.hardware().sw.recompute;
  if (recompute == ActivationRecompute::full) {
    p.recompute_s = p.compute.forward_total() + p.tp_forward_s + p.cp_forward_s;
    p.recompute_energy = p.compute.forward_energy;
    p.recompute_energy.network_j += tp_j + cp_gather_j;
  } else if (recompute == ActivationRecompute::selective && !ctx.dims().flash_attention) {
    // Selective recompute: the attention core (fused kernels recompute it anyway).
    p.recompute_s = p.compute.attention_forward_s;
    p.recompute_energy = p.compute.attention_forward_energy;
  }
  return p;
}

PartCost embedding_cost(LlmContext& ctx, const model::LocalShape& shape) {
  PartCost p;
  p.compute = cost_ops(ctx.coster(), model::embedding_ops(ctx.dims(), shape));
  // Vocabulary-parallel embedding: partial rows are summed across TP (reduce-scattered
  // into the sequence-parallel layout with SP).
  const double bytes = static_cast<double>(shape.tokens()) * static_cast<double>(ctx.dims().hidden) * shape.element_bytes;
  const CollectiveOp sum = ctx.sequence_parallel() ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  p.tp_forward_s = ctx.collective_s(sum, bytes, Parallelism::tp);
  p.network_j = ctx.collective_energy_j(sum, bytes, Parallelism::tp);
  if (ctx.sequence_parallel()) {
    // The reduce-scatter's gradient is an all-gather of the sequence-sharded gradient.
    p.tp_backward_s = ctx.collective_s(CollectiveOp::all_gather, bytes, Parallelism::tp);
    p.network_j += ctx.collective_energy_j(CollectiveOp::all_gather, bytes, Parallelism::tp);
  }
  p.network_j /= ctx.degrees().tp;
  return p;
}

PartCost head_cost(LlmContext& ctx, const model::LocalShape& shape) {
  PartCost p;
  p.compute = cost_ops(ctx.coster(), model::head_ops(ctx.dims(), shape, true));
  const double tokens = static_cast<double>(shape.tokens());
  const double bytes = tokens * static_cast<double>(ctx.dims().hidden) * shape.element_bytes;
  if (ctx.sequence_parallel()) {
    p.tp_forward_s = ctx.collective_s(CollectiveOp::all_gather, bytes, Parallelism::tp);
    p.tp_backward_s = ctx.collective_s(CollectiveOp::reduce_scatter, bytes, Parallelism::tp);
    p.network_j = ctx.collective_energy_j(CollectiveOp::all_gather, bytes, Parallelism::tp) +
                  ctx.collective_energy_j(CollectiveOp::reduce_scatter, bytes, Parallelism::tp);
  } else {
    p.tp_backward_s = ctx.collective_s(CollectiveOp::all_reduce, bytes, Parallelism::tp);
    p.network_j = ctx.collective_energy_j(CollectiveOp::all_reduce, bytes, Parallelism::tp);
  }
  // Vocabulary-parallel cross-entropy: all-reduces of the row max, the target logit and
  // the sum of exponentials (fp32, one value per token).
  p.tp_forward_s += 3.0 * ctx.collective_s(CollectiveOp::all_reduce, tokens * 4.0, Parallelism::tp);
  p.network_j += 3.0 * ctx.collective_energy_j(CollectiveOp::all_reduce, tokens * 4.0, Parallelism::tp);
  p.network_j /= ctx.degrees().tp;
  return p;
}

// Parameters one rank of stage `stage` holds (TP shards the matrices and embeddings).
double stage_parameters(const LlmContext& ctx, int layers, bool first, bool last) {
  const auto& d = ctx.dims();
  const double table = static_cast<double>(d.vocab) * static_cast<double>(d.hidden);
  double params = layers * model::layer_parameter_count(d);
  if (first) params += table;
  if (last && (!d.tied_embeddings || ctx.degrees().pp > 1)) params += table;
  return params / ctx.degrees().tp;
}

int communicators(const parallel::Degrees& d) {
  int n = 0;
  for (int degree : {d.tp, d.cp, d.dp, d.pp}) n += degree > 1 ? 1 : 0;
  return n;
}

// Every stage's memory; the peak stage first in `out.memory`.
void add_memory(LlmContext& ctx, const model::LocalShape& shape, const std::vector<int>& layers,
                const parallel::Batching& batching, int vpp, TrainingPrediction& out) {
  const auto& hw = ctx.hardware();
  const auto& d = ctx.dims();
  const auto& deg = ctx.degrees();
  memory::ActivationOptions options;
  options.recompute = hw.sw.recompute == ActivationRecompute::full        ? memory::Recompute::full
                      : hw.sw.recompute == ActivationRecompute::selective ? memory::Recompute::selective
                                                                          : memory::Recompute::none;
  options.dropout = ctx.spec().model_type == "gpt";
  const double per_layer = memory::layer_activation_bytes(d, shape, options);
  const double stream = static_cast<double>(shape.norm_tokens()) * static_cast<double>(d.hidden) * shape.element_bytes;
  // The loss works on the logits in fp32 next to their 16-bit copy: one micro-batch's at a time.
  const double logits = static_cast<double>(shape.tokens()) * static_cast<double>(d.vocab) / deg.tp *
                        (4.0 + shape.element_bytes);
  for (int i = 0; i < deg.pp; ++i) {
    const bool first = i == 0;
    const bool last = i == deg.pp - 1;
    memory::StageMemoryInputs in;
    in.parameters = stage_parameters(ctx, layers[static_cast<std::size_t>(i)], first, last);
    in.layer_parameters = model::layer_parameter_count(d) / deg.tp;
    in.layers = layers[static_cast<std::size_t>(i)];
    in.layer_activation_bytes = per_layer;
    in.extra_activation_bytes = last ? 2.0 * stream : 0.0;  // final norm and LM head inputs
    in.in_flight_micro_batches =
        memory::in_flight_micro_batches(hw.parallelism.pp_schedule, i, deg.pp, batching.micro_batches, vpp);
    in.transient_bytes = last ? logits : 0.0;
    const MemoryBreakdown stage = memory::training_stage_memory(hw, in, i, deg.dp, communicators(deg));
    out.stage_memory.push_back(stage);
    if (i == 0 || stage.total_bytes > out.memory.total_bytes) out.memory = stage;
  }
}

// Dynamic energy of the step on every GPU: each rank of a stage runs that stage's
// micro-batches, pipeline sends, gradient synchronisation and optimizer.
struct StepEnergyInputs {
  double reps = 1.0;             // micro-batches per step
  double p2p_j = 0.0;            // one boundary crossing, both directions
  double zero3_j = 0.0;          // per layer and micro-batch
  double dp_j = 0.0;             // per rank and step
  double optimizer_bytes = 0.0;  // per rank
};

energy::Energy step_energy(LlmContext& ctx, const std::vector<PartCost>& parts, const std::vector<int>& layers,
                           const StepEnergyInputs& in) {
  const auto& deg = ctx.degrees();
  const double ranks_per_stage = static_cast<double>(deg.tp) * deg.cp * deg.dp;
  energy::Energy total;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    energy::Energy stage = parts[i].energy();
    stage.network_j += in.zero3_j * layers[i] + (i + 1 < parts.size() ? in.p2p_j : 0.0);
    energy::Energy per_rank = stage.scaled(in.reps);
    per_rank.network_j += in.dp_j;
    per_rank += ctx.coster().energy().streaming(0.0, in.optimizer_bytes);
    total += per_rank.scaled(ranks_per_stage);
  }
  return total;
}

void add(Breakdown& b, std::string_view name, double seconds) {
  if (seconds != 0.0) b.emplace_back(name, seconds);
}

}  // namespace

TrainingPrediction predict_training(const HardwareSpec& hw, const LlmModelSpec& spec, const std::string& source,
                                    CostCache* costs) {
  CostCache local;
  LlmContext ctx(hw, spec, source, costs != nullptr ? *costs : local);
  const auto& deg = ctx.degrees();
  const auto& par = hw.parallelism;
  const parallel::Batching batching = parallel::training_batching(spec, par);
  const bool interleaved = par.pp_schedule == PipelineSchedule::interleaved_1f1b;
  const int vpp = interleaved ? par.vpp : 1;

  model::LocalShape shape;
  shape.micro_batch = batching.micro_batch_size;
  shape.seq = spec.seq_len;
  shape.tp = deg.tp;
  shape.cp = deg.cp;
  shape.sequence_parallel = ctx.sequence_parallel();
  shape.element_bytes = ctx.element_bytes();
  shape.kv_element_bytes = hw.sw.precision.kv_cache.bytes;
  shape.fp8_linears = hw.sw.precision.matmul.bytes < hw.sw.precision.tensor_format.bytes;

  const PartCost layer = layer_cost(ctx, shape);
  const PartCost embedding = embedding_cost(ctx, shape);
  const PartCost head = head_cost(ctx, shape);

  // Activations (SP-sharded) cross each pipeline boundary once per chunk each way.
  const double boundary_bytes = static_cast<double>(shape.norm_tokens()) * static_cast<double>(ctx.dims().hidden) *
                                shape.element_bytes;
  const double p2p_s = vpp * ctx.send_recv_s(boundary_bytes, Parallelism::pp);

  // ZeRO-3 gathers every layer's parameters in forward and backward and reduce-scatters
  // its gradients; prefetching hides them under the layer's compute where it can.
  const int zero = deg.dp > 1 ? hw.sw.dp_zero_stage : 0;
  const double layer_param_bytes = model::layer_parameter_count(ctx.dims()) / deg.tp * hw.sw.precision.parameters.bytes;
  const double layer_grad_bytes =
      model::layer_parameter_count(ctx.dims()) / deg.tp * hw.sw.precision.grad_communication.bytes;
  double zero3_forward_s = 0.0;
  double zero3_backward_s = 0.0;
  if (zero == 3) {
    const double gather = ctx.collective_s(CollectiveOp::all_gather, layer_param_bytes, Parallelism::dp);
    const double scatter = ctx.collective_s(CollectiveOp::reduce_scatter, layer_grad_bytes, Parallelism::dp);
    zero3_forward_s = std::max(0.0, gather - layer.forward_s());
    zero3_backward_s = std::max(0.0, gather + scatter - layer.backward_s());
  }

  const std::vector<int> layers = layers_per_stage(ctx.dims().layers, deg.pp, vpp);
  std::vector<parallel::StageTime> stages;
  std::vector<PartCost> parts;
  for (int i = 0; i < deg.pp; ++i) {
    const auto n = static_cast<double>(layers[static_cast<std::size_t>(i)]);
    PartCost part = layer.scaled(n);
    if (i == 0) part += embedding;
    if (i == deg.pp - 1) part += head;
    parallel::StageTime st;
    st.forward_s = part.forward_s() + n * zero3_forward_s + (i < deg.pp - 1 ? p2p_s : 0.0);
    st.backward_s = part.backward_s() + n * zero3_backward_s + (i > 0 ? p2p_s : 0.0);
    st.weight_grad_s = part.compute.weight_grad_s;
    stages.push_back(st);
    parts.push_back(part);
  }
  const parallel::PipelineTime flush = parallel::pipeline_time(par.pp_schedule, stages, batching.micro_batches, vpp);
  std::size_t crit = 0;
  for (std::size_t i = 1; i < stages.size(); ++i) {
    if (stages[i].forward_s + stages[i].backward_s > stages[crit].forward_s + stages[crit].backward_s) crit = i;
  }

  // Data-parallel gradient synchronisation of the stage with the most parameters: buckets
  // are reduced while backward still runs, so all but the last bucket can hide behind the
  // backward of the last micro-batch.
  double params = 0.0;
  for (int i = 0; i < deg.pp; ++i) {
    params = std::max(params, stage_parameters(ctx, layers[static_cast<std::size_t>(i)], i == 0, i == deg.pp - 1));
  }
  double dp_s = 0.0;
  if (deg.dp > 1 && zero < 3) {
    const double grad_bytes = params * hw.sw.precision.grad_communication.bytes;
    const double sync = zero == 0 ? ctx.collective_s(CollectiveOp::all_reduce, grad_bytes, Parallelism::dp)
                                  : ctx.collective_s(CollectiveOp::reduce_scatter, grad_bytes, Parallelism::dp);
    const double last_bucket = std::min(1.0, hw.sw.dp_bucket_params / params);
    const double per_sync = std::max(sync - stages[crit].backward_s, sync * last_bucket);
    const int syncs = hw.sw.dp_microbatch == DpMicrobatchSync::every_mb ? batching.flushes * batching.micro_batches : 1;
    dp_s = syncs * per_sync;
    if (zero >= 1) {
      // Distributed optimizer: updated parameters are all-gathered, overlapping the next
      // step's first forward.
      const double gather =
          ctx.collective_s(CollectiveOp::all_gather, params * hw.sw.precision.parameters.bytes, Parallelism::dp);
      dp_s += std::max(gather - stages[crit].forward_s, gather * last_bucket);
    }
  }
  // Tied embeddings split over the first and last stage: their gradients are summed.
  double embedding_sync_s = 0.0;
  if (ctx.dims().tied_embeddings && deg.pp > 1) {
    const double table = static_cast<double>(ctx.dims().vocab) * static_cast<double>(ctx.dims().hidden) / deg.tp;
    embedding_sync_s = ctx.send_recv_s(table * hw.sw.precision.grad_communication.bytes, Parallelism::pp);
  }

  // Adam, one fused pass over this rank's shard: read the gradient, read and write both
  // moments and the master weights (or the weights themselves), write the model copy.
  const auto& prec = hw.sw.precision;
  const double master = prec.master_parameters_bytes > 0 ? prec.master_parameters_bytes : prec.parameters.bytes;
  const double bytes_per_param = prec.gradients.bytes + 4.0 * prec.optimizer_states.bytes + 2.0 * master +
                                 (prec.master_parameters_bytes > 0 ? prec.parameters.bytes : 0.0);
  const double optimizer_params = zero >= 1 ? params / deg.dp : params;
  const double optimizer_s = ctx.coster().memory_kernel_s(optimizer_params * bytes_per_param);

  TrainingPrediction out;
  out.num_gpus = static_cast<int>(deg.total());
  out.micro_batches = batching.micro_batches;
  out.micro_batch_size = batching.micro_batch_size;
  out.gradient_accumulation = batching.flushes;
  out.step_time_s = batching.flushes * flush.total_s + dp_s + embedding_sync_s + optimizer_s;
  const double tokens = static_cast<double>(spec.global_batch_size) * static_cast<double>(spec.seq_len);
  out.tokens_per_s = tokens / out.step_time_s;
  out.model_flops_per_step = tokens * model::training_flops_per_token(ctx.dims(), spec.seq_len);
  out.mfu = out.model_flops_per_step /
            (out.step_time_s * out.num_gpus * hw.core.peak_flops_per_s(ctx.matmul_dtype()).value_or(0.0));
  out.mfu_formula = model::mfu_formula();
  out.pipeline_bubble_fraction = flush.bubble_s / flush.total_s;
  out.stage_forward_s = stages[crit].forward_s;
  out.stage_backward_s = stages[crit].backward_s;
  add_memory(ctx, shape, layers, batching, vpp, out);

  StepEnergyInputs energy_in;
  energy_in.reps = static_cast<double>(batching.flushes) * batching.micro_batches;
  energy_in.p2p_j = 2.0 * vpp * ctx.send_recv_energy_j(boundary_bytes, Parallelism::pp);
  if (zero == 3) {
    energy_in.zero3_j = (2.0 * ctx.collective_energy_j(CollectiveOp::all_gather, layer_param_bytes, Parallelism::dp) +
                         ctx.collective_energy_j(CollectiveOp::reduce_scatter, layer_grad_bytes, Parallelism::dp)) /
                        deg.dp;
  } else if (deg.dp > 1) {
    const double grad_bytes = params * hw.sw.precision.grad_communication.bytes;
    energy_in.dp_j = (zero == 0 ? ctx.collective_energy_j(CollectiveOp::all_reduce, grad_bytes, Parallelism::dp)
                                : ctx.collective_energy_j(CollectiveOp::reduce_scatter, grad_bytes, Parallelism::dp) +
                                      ctx.collective_energy_j(CollectiveOp::all_gather,
                                                              params * hw.sw.precision.parameters.bytes, Parallelism::dp)) /
                     deg.dp;
  }
  energy_in.optimizer_bytes = optimizer_params * bytes_per_param;
  out.energy = energy::energy_report(hw, step_energy(ctx, parts, layers, energy_in), out.step_time_s, out.num_gpus,
                                     tokens);

  // Breakdown: the critical stage's micro-batches, then the step-level terms.
  const double reps = static_cast<double>(batching.flushes) * batching.micro_batches;
  const PartCost& c = parts[crit];
  const auto n_crit = static_cast<double>(layers[crit]);
  for (std::size_t k = 0; k < kOpClasses; ++k) {
    add(out.breakdown, model::compute_category(static_cast<model::OpClass>(k)),
        reps * (c.compute.forward_s[k] + c.compute.backward_s[k]));
  }
  add(out.breakdown, "compute.recompute", reps * c.recompute_s);
  add(out.breakdown, "communication.tp", reps * (c.tp_forward_s + c.tp_backward_s));
  add(out.breakdown, "communication.cp", reps * (c.cp_forward_s + c.cp_backward_s));
  add(out.breakdown, "communication.zero3", reps * n_crit * (zero3_forward_s + zero3_backward_s));
  add(out.breakdown, "communication.pp",
      reps * ((crit < stages.size() - 1 ? p2p_s : 0.0) + (crit > 0 ? p2p_s : 0.0)));
  add(out.breakdown, "pipeline_bubble", batching.flushes * flush.bubble_s);
  add(out.breakdown, "communication.dp", dp_s);
  add(out.breakdown, "communication.embedding_sync", embedding_sync_s);
  add(out.breakdown, "optimizer", optimizer_s);
  return out;
}

}  // namespace rapidllm::exec
