#include "exec/stage_memory.hpp"

#include <algorithm>

#include "memory/activation_memory.hpp"
#include "memory/training_memory.hpp"
#include "parallel/pipeline_schedule.hpp"

namespace rapidllm::exec {

namespace {

int communicators(const parallel::Degrees& d) {
  int n = 0;
  for (int degree : {d.tp, d.cp, d.ep, d.dp, d.pp}) n += degree > 1 ? 1 : 0;
  return n;
}

// What a group's ranks share: all of a rank's memory inputs but its micro-batches in flight.
std::vector<memory::StageMemoryInputs> group_inputs(const ModelPartition& ctx, const model::LocalShape& shape,
                                                    const StageGroups& stages) {
  const auto& hw = ctx.hardware();
  const auto& d = ctx.dims();
  const auto& deg = ctx.degrees();
  memory::ActivationOptions options;
  options.recompute = hw.sw.recompute == ActivationRecompute::full        ? memory::Recompute::full
                      : hw.sw.recompute == ActivationRecompute::selective ? memory::Recompute::selective
                      : hw.sw.recompute == ActivationRecompute::op        ? memory::Recompute::op_level
                                                                          : memory::Recompute::none;
  options.dropout = ctx.spec().model_type == "gpt";
  options.stats_bytes = hw.sw.precision.stats.bytes;
  const double per_layer = memory::layer_activation_bytes(d, shape, options);
  const double per_moe_layer = d.has_moe() ? memory::layer_activation_bytes(d, shape, options, true) : 0.0;
  const double stream = static_cast<double>(shape.norm_tokens()) * static_cast<double>(d.hidden) * shape.element_bytes;
  // The loss works on the logits in fp32 next to their 16-bit copy: one micro-batch's at a time
  // (Megatron's cross-entropy; a fused kernel, which needs no fp32 copy, is counted the same:
  // an upper bound). An eager cross-entropy holds more: forward the 16-bit logits, their fp32
  // upcast and the log-softmax output; backward that output, its incoming gradient and the
  // one it passes on.
  const double per_logit = hw.sw.cross_entropy == CrossEntropyKernel::eager
                               ? std::max(shape.element_bytes + 8.0, 12.0)
                               : 4.0 + shape.element_bytes;
  const double logits = static_cast<double>(shape.tokens()) * static_cast<double>(d.vocab) / deg.tp * per_logit;
  // ZeRO-3 gathers one layer at a time: the largest (an MoE layer's experts outweigh a dense one).
  double largest_layer = 0.0;
  for (int layer : ctx.first_layer_of_kind()) {
    if (layer >= 0) largest_layer = std::max(largest_layer, ctx.rank_layer_parameters(layer).total());
  }
  // A layer's weight gradients come out of backward in grad_microbatch and are then added into
  // the gradient buffer: in another format they need a buffer of their own for the largest
  // layer (a framework fusing the accumulation into the GEMM, as Megatron's
  // gradient_accumulation_fusion does, writes straight into the buffer: formats equal).
  const PrecisionSpec& precision = hw.sw.precision;
  const double wgrad_transient =
      precision.grad_microbatch.bytes != precision.gradients.bytes ? largest_layer * precision.grad_microbatch.bytes : 0.0;
  std::vector<memory::StageMemoryInputs> out;
  out.reserve(stages.groups.size());
  for (const StageGroup& g : stages.groups) {
    memory::StageMemoryInputs in;
    in.parameters = g.params.total();
    in.expert_parameters = g.params.routed_experts;
    in.expert_dp = deg.dp;
    in.layer_parameters = largest_layer;
    in.layers = layer_count(g.kinds);
    int moe_layers = 0;
    for (int kind = 0; kind < model::kLayerKinds; ++kind) {
      moe_layers += model::moe_kind(kind) ? g.kinds[static_cast<std::size_t>(kind)] : 0;
    }
    in.layer_activation_bytes =
        moe_layers == 0 ? per_layer : ((in.layers - moe_layers) * per_layer + moe_layers * per_moe_layer) / in.layers;
    in.extra_activation_bytes = g.last ? 2.0 * stream : 0.0;  // final norm and LM head inputs
    in.transient_bytes = std::max(g.last ? logits : 0.0, wgrad_transient);
    out.push_back(in);
  }
  return out;
}

}  // namespace

void add_stage_memory(const ModelPartition& ctx, const model::LocalShape& shape, const StageGroups& stages,
                      const parallel::Batching& batching, int vpp, bool every_stage, TrainingPrediction& out) {
  const auto& hw = ctx.hardware();
  const auto& deg = ctx.degrees();
  std::vector<memory::StageMemoryInputs> inputs = group_inputs(ctx, shape, stages);
  // The ranks to size, in rank order: all of them, or each group's earliest rank. Every
  // schedule keeps as many or fewer micro-batches in flight on a later rank
  // (parallel::Schedule::in_flight_micro_batches), so a group's earliest rank needs the most.
  std::vector<int> sized;
  if (every_stage) {
    sized.resize(static_cast<std::size_t>(deg.pp));
    for (int i = 0; i < deg.pp; ++i) sized[static_cast<std::size_t>(i)] = i;
    out.stage_memory.reserve(sized.size());
  } else {
    sized.reserve(stages.groups.size());
    for (const StageGroup& g : stages.groups) sized.push_back(g.first_stage);
  }
  // The earliest rank of the largest need (ties keep the earlier).
  const parallel::Schedule& schedule = parallel::schedule_of(hw.parallelism.pp_schedule);
  memory::StageMemoryTerms peak;
  int peak_stage = -1;
  for (int i : sized) {
    memory::StageMemoryInputs& in = inputs[static_cast<std::size_t>(stages.of_stage[static_cast<std::size_t>(i)])];
    in.in_flight_micro_batches = schedule.in_flight_micro_batches(i, deg.pp, batching.micro_batches, vpp);
    const memory::StageMemoryTerms terms = memory::training_stage_terms(hw, in, deg.dp * deg.ep, communicators(deg));
    if (every_stage) memory::to_breakdown(hw, terms, i, out.stage_memory.emplace_back());
    if (peak_stage < 0 || terms.total_bytes > peak.total_bytes) {
      peak = terms;
      peak_stage = i;
    }
  }
  memory::to_breakdown(hw, peak, peak_stage, out.memory);
}

}  // namespace rapidllm::exec
