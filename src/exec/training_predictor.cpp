#include "exec/training_predictor.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "exec/breakdown_categories.hpp"
#include "exec/llm_context.hpp"
#include "energy/energy_report.hpp"
#include "exec/op_list_cost.hpp"
#include "exec/stage_groups.hpp"
#include "exec/stage_memory.hpp"
#include "model/model_flops.hpp"
#include "parallel/batching.hpp"
#include "parallel/pipeline_schedule.hpp"
#include "exec/step_builder.hpp"
#include "exec/step_simulator.hpp"
#include "exec/step_templates.hpp"

namespace rapidllm::exec {

namespace {

// Parameters a rank's data-parallel gradient collective carries: the dense ones after
// their reduce-scatter over ep, and the experts.
double dp_group_parameters(const model::LayerParameters& p, int ep) {
  return ep > 1 ? p.dense / ep + p.routed_experts : p.total();
}

// Dynamic energy of the step on every GPU: each rank of a stage runs that stage's
// micro-batches, pipeline sends, gradient synchronisation and optimizer.
struct StepEnergyInputs {
  double reps = 1.0;             // micro-batches per step
  double p2p_j = 0.0;            // one boundary crossing, both directions
  double dp_j = 0.0;             // per rank and step
  double optimizer_bytes = 0.0;  // per rank
};

energy::Energy step_energy(LlmContext& ctx, const StageGroups& stages, const std::vector<GraphCost>& parts,
                           const StepEnergyInputs& in) {
  const auto& deg = ctx.degrees();
  const double ranks_per_stage = static_cast<double>(deg.tp) * deg.cp * deg.ep * deg.dp;
  std::vector<energy::Energy> per_group;
  per_group.reserve(parts.size());
  for (std::size_t g = 0; g < parts.size(); ++g) {
    energy::Energy stage = parts[g].energy();
    stage.network_j += stages.groups[g].last ? 0.0 : in.p2p_j;
    energy::Energy per_rank = stage.scaled(in.reps);
    per_rank.network_j += in.dp_j;
    per_rank += ctx.coster().energy().streaming(0.0, in.optimizer_bytes);
    per_group.push_back(per_rank.scaled(ranks_per_stage));
  }
  energy::Energy total;  // summed rank by rank, in rank order
  for (int group : stages.of_stage) total += per_group[static_cast<std::size_t>(group)];
  return total;
}

void add(Breakdown& b, std::string_view name, double seconds) {
  if (seconds != 0.0) b.emplace_back(name, seconds);
}

// The stack's host time on each of a rank's micro-batches, the GPUs idle: it adds to the
// step whatever the schedule (every rank of a pipeline pays it on every micro-batch).
double host_overhead_s(const HardwareSpec& hw, int micro_batches) {
  return hw.sw.micro_batch_overhead_s * micro_batches;
}

// The simulated step replaces the pipeline formulas: its time (plus the part of the
// parameter all-gather the next step's first forward does not hide, as in the analytical
// rule; all of it where the stack does not overlap it), its breakdown on the critical
// unit, and what was simulated.
void apply_simulation(LlmContext& ctx, const StepSimResult& sim, double first_forward_s, TrainingPrediction& out) {
  const bool overlaps = ctx.hardware().sw.zero_gather_overlap;
  const double gather = sim.next_step_gather_s <= 0.0 ? 0.0
                        : overlaps ? std::max(sim.next_step_gather_s - first_forward_s, sim.last_gather_bucket_s)
                                   : sim.next_step_gather_s;
  const double host = host_overhead_s(ctx.hardware(), out.gradient_accumulation * out.micro_batches);
  const double step = sim.step_s + gather + host;
  out.mfu *= out.step_time_s / step;
  out.tokens_per_s *= out.step_time_s / step;
  out.step_time_s = step;
  out.pipeline_bubble_fraction = sim.bubble_s / step;
  out.breakdown.clear();
  for (std::size_t k = 0; k < kOpClasses; ++k) {
    add(out.breakdown, model::compute_category(static_cast<model::OpClass>(k)), sim.compute_s[k]);
  }
  add(out.breakdown, kRecomputeCategory, sim.recompute_s);
  for (const auto purpose : {model::CommPurpose::tp, model::CommPurpose::cp, model::CommPurpose::ep,
                             model::CommPurpose::zero3, model::CommPurpose::pp}) {
    add(out.breakdown, model::comm_category(purpose), sim.exposed_comm_s[static_cast<std::size_t>(purpose)]);
  }
  add(out.breakdown, kPipelineBubbleCategory, sim.bubble_s);
  add(out.breakdown, model::comm_category(model::CommPurpose::dp),
      sim.exposed_comm_s[static_cast<std::size_t>(model::CommPurpose::dp)] + gather);
  add(out.breakdown, model::comm_category(model::CommPurpose::embedding_sync),
      sim.exposed_comm_s[static_cast<std::size_t>(model::CommPurpose::embedding_sync)]);
  add(out.breakdown, kOptimizerCategory, sim.optimizer_s);
  add(out.breakdown, kHostOverheadCategory, host);
  ExecutionSummary& e = out.execution;
  e.pipeline = "simulated";
  e.simulated_units = sim.units;
  e.simulated_nodes = sim.nodes_run;
  e.peak_in_flight_micro_batches = sim.peak_in_flight;
  e.network_simulations = network_simulations(ctx.network());
}

// Each rank's stage times under the schedule: every group's part (its layers, the
// embedding on the first, the head on the last) costed once, then the flush.
struct StagePlan {
  std::vector<GraphCost> parts;              // per stage group
  std::vector<parallel::StageTime> stages;   // per rank (DualPipe: mirrored pairs averaged)
  parallel::PipelineTime flush;
  std::size_t crit = 0;                      // the slowest rank
};

StagePlan stage_plan(LlmContext& ctx, const LlmContext::PartCosts& part_costs, const StageGroups& stage_group,
                     double p2p_s, int micro_batches, int vpp) {
  const HardwareSpec& hw = ctx.hardware();
  const auto& par = hw.parallelism;
  StagePlan plan;
  std::vector<parallel::StageTime> group_times;
  plan.parts.reserve(stage_group.groups.size());
  group_times.reserve(stage_group.groups.size());
  for (const StageGroup& g : stage_group.groups) {
    // The rank's layers, each kind (windowed attention, MoE MLP) at its own cost.
    GraphCost part = ctx.kinds_cost(part_costs, g.kinds);
    if (g.first) part += part_costs.embedding;
    if (g.last) part += part_costs.head;
    parallel::StageTime st;
    // A blocking pipeline engine holds the stage's host on each receive and send: per
    // micro-batch and direction, every chunk receives and sends once, but for the pipeline's
    // two ends.
    const double stall_s = hw.sw.pipeline_transfer_stall_s * (2 * vpp - (g.first ? 1 : 0) - (g.last ? 1 : 0));
    st.forward_s = part.forward_s() + (g.last ? 0.0 : p2p_s) + stall_s;
    st.backward_s = part.backward_s() + (g.first ? 0.0 : p2p_s) + stall_s;
    st.transfer_stall_s = 2.0 * stall_s;
    // What a zero-bubble schedule can take out of the backward pass: not the weight
    // gradients that prefetched ZeRO-3 communication would keep the pass as long without.
    st.weight_grad_s = part.compute.weight_grad_s - part.weight_grad_under_prefetch_s;
    group_times.push_back(st);
    plan.parts.push_back(std::move(part));
  }
  std::vector<parallel::StageTime>& stages = plan.stages;
  stages.reserve(static_cast<std::size_t>(ctx.degrees().pp));
  for (int group : stage_group.of_stage) stages.push_back(group_times[static_cast<std::size_t>(group)]);
  if (parallel::schedule_of(par.pp_schedule).mirrored()) {
    // DualPipe runs two mirrored pipelines: rank i holds stage i of one and stage pp-1-i of
    // the other, each for half the micro-batches, so the ends share the embedding and head.
    const std::vector<parallel::StageTime> single = stages;
    for (std::size_t i = 0; i < stages.size(); ++i) {
      const parallel::StageTime& mirror = single[single.size() - 1 - i];
      stages[i].forward_s = (single[i].forward_s + mirror.forward_s) / 2.0;
      stages[i].backward_s = (single[i].backward_s + mirror.backward_s) / 2.0;
      stages[i].weight_grad_s = (single[i].weight_grad_s + mirror.weight_grad_s) / 2.0;
      stages[i].transfer_stall_s = (single[i].transfer_stall_s + mirror.transfer_stall_s) / 2.0;
    }
  }
  plan.flush = parallel::schedule_of(par.pp_schedule).flush_time(stages, micro_batches, vpp);
  for (std::size_t i = 1; i < stages.size(); ++i) {
    if (stages[i].forward_s + stages[i].backward_s > stages[plan.crit].forward_s + stages[plan.crit].backward_s) {
      plan.crit = i;
    }
  }
  return plan;
}

// Data-parallel gradient synchronisation of the stage with the most parameters (`params`):
// buckets are reduced while backward still runs, so all but the last bucket can hide behind
// the backward of the last micro-batch. With expert parallelism the dense gradients are
// reduce-scattered over ep first and gathered back after (the chain is one synchronisation).
struct DpSync {
  double exposed_s = 0.0;
  CommCosts::Cost sync;    // gradients, per step
  CommCosts::Cost gather;  // ZeRO 1-2 parameters, per step
};

DpSync dp_sync(LlmContext& ctx, const parallel::StepComms& step, const parallel::StageTime& critical, double params,
               int zero, const parallel::Batching& batching) {
  const HardwareSpec& hw = ctx.hardware();
  Executor& executor = ctx.executor();
  DpSync out;
  CommCosts::Cost& sync = out.sync;
  CommCosts::Cost& gather = out.gather;
  sync = executor.comm(step.gradient_sync);
  gather = executor.comm(step.parameter_gather);
  for (const model::CommOp* op : {&step.ep_gradient_scatter, &step.ep_gradient_gather}) {
    const CommCosts::Cost c = executor.comm(*op);
    sync.time_s += c.time_s;
    sync.energy_j += c.energy_j;
  }
  const CommCosts::Cost ep_gather = executor.comm(step.ep_parameter_gather);
  gather.time_s += ep_gather.time_s;
  gather.energy_j += ep_gather.energy_j;
  if (ctx.degrees().dp * ctx.degrees().ep > 1 && zero < 3) {
    const double last_bucket = std::min(1.0, hw.sw.dp_bucket_params / params);
    const double per_sync = std::max(sync.time_s - critical.backward_s, sync.time_s * last_bucket);
    const int syncs = hw.sw.dp_microbatch == DpMicrobatchSync::every_mb ? batching.flushes * batching.micro_batches : 1;
    out.exposed_s = syncs * per_sync;
    if (zero >= 1) {
      // Distributed optimizer: updated parameters are all-gathered, overlapping the next
      // step's first forward, or (zero_gather_overlap false) before the next step starts.
      out.exposed_s += hw.sw.zero_gather_overlap
                           ? std::max(gather.time_s - critical.forward_s, gather.time_s * last_bucket)
                           : gather.time_s;
    }
  }
  return out;
}

// Adam, one fused pass over this rank's shard: read the gradient, read and write both
// moments and the master weights (or the weights themselves), write the model copy.
double adam_bytes_per_parameter(const PrecisionSpec& prec) {
  const double master = prec.master_parameters_bytes > 0 ? prec.master_parameters_bytes : prec.parameters.bytes;
  return prec.gradients.bytes + 4.0 * prec.optimizer_states.bytes + 2.0 * master +
         (prec.master_parameters_bytes > 0 ? prec.parameters.bytes : 0.0);
}

// What the simulated step's symmetry stood for, for the report.
std::string simulation_reductions(const parallel::Degrees& deg, const TrainingRunOptions& options, int units) {
  const int replicas_apart = (units - deg.pp) / std::max(1, deg.pp);
  const bool ep = deg.ep > 1;  // expert-parallel ranks are replicas of the dense layers too
  const std::string ep_groups = ep ? fmt::format(" x {}", deg.ep) : "";
  if (options.symmetric && replicas_apart > 0) {
    return fmt::format("one unit per pipeline stage stands for the DP replicas and CP{} ranks alike ({} of {} x {}{} "
                       "TP groups per stage); {} replica(s) holding a fault's GPU simulated one by one ({}); "
                       "identical layers share one op graph",
                       ep ? " and EP" : "", deg.dp * deg.cp * deg.ep - replicas_apart, deg.dp, deg.cp, ep_groups,
                       replicas_apart, options.symmetry_note);
  }
  if (options.symmetric) {
    return fmt::format("one unit per pipeline stage stands for its {} DP replicas x {} CP "
                       "ranks{} x {} TP lanes; identical layers share one op graph",
                       deg.dp, deg.cp, ep ? fmt::format(" x {} EP ranks", deg.ep) : "", deg.tp);
  }
  return fmt::format("no symmetry: every (stage, DP replica, CP rank{}) group simulated; "
                     "TP lanes move in lockstep; {}",
                     ep ? ", EP rank" : "", options.symmetry_note);
}

// The step graph (for Chakra, or to simulate); simulated, it replaces the formulas' time and
// breakdown in `out`. True when simulated.
bool run_step_graph(LlmContext& ctx, const TrainingRunOptions& options, const TrainingStepInputs& inputs,
                    double first_forward_s, TrainingPrediction& out) {
  if (!options.simulate_step && options.graph == nullptr) return false;
  StepGraph graph = build_training_step(ctx, inputs);
  describe_ranks(ctx, graph);
  if (options.simulate_step) {
    StepSimOptions sim_options;
    sim_options.symmetric = options.symmetric;
    sim_options.distinct_gpus = options.distinct_gpus;
    sim_options.record_timeline = options.timeline != nullptr;
    StepSimResult sim = simulate_step(graph, ctx.placement(), ctx.network(), sim_options, inputs.vpp);
    apply_simulation(ctx, sim, first_forward_s, out);
    out.execution.symmetry = options.symmetric;
    out.execution.reductions = simulation_reductions(ctx.degrees(), options, sim.units);
    if (options.timeline != nullptr) *options.timeline = std::move(sim.timeline);
  }
  if (options.graph != nullptr) *options.graph = std::move(graph);
  return options.simulate_step;
}

// The formulas' breakdown: the critical stage's micro-batches, then the step-level terms.
struct StepTerms {
  double p2p_s = 0.0;  // one boundary crossing, each way, all chunks
  double dp_s = 0.0;
  double embedding_sync_s = 0.0;
  double optimizer_s = 0.0;
  double host_s = 0.0;
};

void formula_breakdown(const StagePlan& plan, const StageGroups& stage_group, const parallel::Batching& batching,
                       const StepTerms& t, Breakdown& b) {
  b.reserve(kOpClasses + 10);
  const double reps = static_cast<double>(batching.flushes) * batching.micro_batches;
  const std::size_t crit = plan.crit;
  const GraphCost& c = plan.parts[static_cast<std::size_t>(stage_group.of_stage[crit])];
  for (std::size_t k = 0; k < kOpClasses; ++k) {
    add(b, model::compute_category(static_cast<model::OpClass>(k)), reps * (c.compute.forward_s[k] + c.compute.backward_s[k]));
  }
  add(b, kRecomputeCategory, reps * c.recompute_s);
  for (const auto purpose : {model::CommPurpose::tp, model::CommPurpose::cp, model::CommPurpose::ep,
                             model::CommPurpose::zero3}) {
    add(b, model::comm_category(purpose), reps * c.comm_s(purpose));
  }
  add(b, model::comm_category(model::CommPurpose::pp),
      reps * ((crit < plan.stages.size() - 1 ? t.p2p_s : 0.0) + (crit > 0 ? t.p2p_s : 0.0) +
              plan.stages[crit].transfer_stall_s));
  add(b, kPipelineBubbleCategory, batching.flushes * plan.flush.bubble_s);
  add(b, model::comm_category(model::CommPurpose::dp), t.dp_s);
  add(b, model::comm_category(model::CommPurpose::embedding_sync), t.embedding_sync_s);
  add(b, kOptimizerCategory, t.optimizer_s);
  add(b, kHostOverheadCategory, t.host_s);
}

}  // namespace

TrainingPrediction training_memory(const HardwareSpec& hw, const LlmModelSpec& spec, const std::string& source) {
  const ModelPartition ctx(hw, spec, source);
  const auto& deg = ctx.degrees();
  const parallel::Batching batching = parallel::training_batching(spec, hw.parallelism);
  const int vpp = parallel::schedule_of(hw.parallelism.pp_schedule).virtual_stages(hw.parallelism.vpp);
  TrainingPrediction out;
  out.num_gpus = static_cast<int>(deg.total());
  out.micro_batches = batching.micro_batches;
  out.micro_batch_size = batching.micro_batch_size;
  out.gradient_accumulation = batching.flushes;
  add_stage_memory(ctx, ctx.local_shape(batching.micro_batch_size, spec.seq_len), stage_groups(ctx, vpp), batching,
                   vpp, false, out);
  return out;
}

TrainingPrediction predict_training(const HardwareSpec& hw, const LlmModelSpec& spec, const std::string& source,
                                    CostCache* costs, const TrainingRunOptions& options) {
  CostCache local;
  LlmContext ctx(hw, spec, source, costs != nullptr ? *costs : local, options.executor, options.network);
  const auto& deg = ctx.degrees();
  const auto& par = hw.parallelism;
  const parallel::Batching batching = parallel::training_batching(spec, par);
  const int vpp = parallel::schedule_of(par.pp_schedule).virtual_stages(par.vpp);

  const model::LocalShape shape = ctx.local_shape(batching.micro_batch_size, spec.seq_len);
  Executor& executor = ctx.executor();
  // One micro-batch through a layer (with its ZeRO-3 gathers), the embedding and the head.
  const LlmContext::PartCosts part_costs = ctx.run_parts(shape);

  // The dense parameters are data-parallel over dp x ep (the routed experts over dp).
  const int dense_dp = deg.dp * deg.ep;
  const int zero = dense_dp > 1 ? hw.sw.dp_zero_stage : 0;
  const StageGroups stage_group = stage_groups(ctx, vpp);
  model::LayerParameters stage_params;  // per rank, the stage whose DP collective carries the most
  double params = 0.0;
  for (const StageGroup& g : stage_group.groups) {
    if (g.first_stage == 0 || dp_group_parameters(g.params, deg.ep) > params) {
      stage_params = g.params;
      params = dp_group_parameters(g.params, deg.ep);
    }
  }
  parallel::StepCommInputs step_in;
  // Activations (SP-sharded) cross each pipeline boundary once per chunk each way.
  step_in.boundary_bytes = static_cast<double>(shape.norm_tokens()) * static_cast<double>(ctx.dims().hidden) *
                           shape.element_bytes;
  step_in.stage_parameters = params;
  step_in.ep_dense_parameters = deg.ep > 1 ? stage_params.dense : 0.0;
  step_in.gradient_bytes = hw.sw.precision.grad_communication.bytes;
  step_in.parameter_bytes = hw.sw.precision.parameters.bytes;
  step_in.zero_stage = zero;
  if (ctx.dims().tied_embeddings && deg.pp > 1) {
    // Tied embeddings split over the first and last stage: their gradients are summed.
    step_in.tied_table_parameters =
        static_cast<double>(ctx.dims().vocab) * static_cast<double>(ctx.dims().hidden) / deg.tp;
  }
  const parallel::StepComms step = parallel::training_step_comms(step_in);
  const CommCosts::Cost boundary = executor.comm(step.boundary);
  StepTerms terms;
  terms.p2p_s = vpp * boundary.time_s;

  const StagePlan plan = stage_plan(ctx, part_costs, stage_group, terms.p2p_s, batching.micro_batches, vpp);
  const parallel::StageTime& critical = plan.stages[plan.crit];
  const DpSync dp = dp_sync(ctx, step, critical, params, zero, batching);
  terms.dp_s = dp.exposed_s;
  terms.embedding_sync_s = executor.comm(step.embedding_sync).time_s;
  const double bytes_per_param = adam_bytes_per_parameter(hw.sw.precision);
  const double optimizer_params =
      zero >= 1 ? stage_params.dense / dense_dp + stage_params.routed_experts / deg.dp : stage_params.total();
  terms.optimizer_s = ctx.coster().memory_kernel_s(optimizer_params * bytes_per_param);

  TrainingPrediction out;
  out.num_gpus = static_cast<int>(deg.total());
  out.micro_batches = batching.micro_batches;
  out.micro_batch_size = batching.micro_batch_size;
  out.gradient_accumulation = batching.flushes;
  terms.host_s = host_overhead_s(hw, batching.flushes * batching.micro_batches);
  out.step_time_s = batching.flushes * plan.flush.total_s + terms.dp_s + terms.embedding_sync_s + terms.optimizer_s +
                    terms.host_s;
  out.execution = execution_summary(options);
  const double tokens = static_cast<double>(spec.global_batch_size) * static_cast<double>(spec.seq_len);
  out.tokens_per_s = tokens / out.step_time_s;
  out.model_flops_per_step = tokens * model::training_flops_per_token(ctx.dims(), spec.seq_len);
  out.mfu = out.model_flops_per_step /
            (out.step_time_s * out.num_gpus * hw.core.peak_flops_per_s(ctx.matmul_dtype()).value_or(0.0));
  out.mfu_formula = model::mfu_formula(ctx.dims(), spec.seq_len);
  out.pipeline_bubble_fraction = plan.flush.bubble_s / plan.flush.total_s;
  TrainingStepInputs step_inputs;
  step_inputs.shape = shape;
  step_inputs.batching = batching;
  step_inputs.vpp = vpp;
  step_inputs.comms = step;
  step_inputs.zero_stage = zero;
  step_inputs.gradient_bytes = hw.sw.precision.grad_communication.bytes;
  step_inputs.parameter_bytes = hw.sw.precision.parameters.bytes;
  step_inputs.optimizer_bytes_per_parameter = bytes_per_param;
  const bool simulated = run_step_graph(ctx, options, step_inputs, critical.forward_s, out);
  out.stage_forward_s = critical.forward_s;
  out.stage_backward_s = critical.backward_s;
  if (options.known_memory != nullptr) {
    out.memory = *options.known_memory;
  } else {
    add_stage_memory(ctx, shape, stage_group, batching, vpp, options.stage_memory, out);
  }

  StepEnergyInputs energy_in;
  energy_in.reps = static_cast<double>(batching.flushes) * batching.micro_batches;
  energy_in.p2p_j = 2.0 * vpp * boundary.energy_j;
  if (dense_dp > 1 && zero < 3) energy_in.dp_j = dp.sync.energy_j + dp.gather.energy_j;
  energy_in.optimizer_bytes = optimizer_params * bytes_per_param;
  out.energy = energy::energy_report(hw, step_energy(ctx, stage_group, plan.parts, energy_in), out.step_time_s,
                                     out.num_gpus, tokens);
  if (!simulated) formula_breakdown(plan, stage_group, batching, terms, out.breakdown);
  return out;
}

}  // namespace rapidllm::exec
