#include "exec/model_partition.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "model/tp_share.hpp"
#include "parallel/pipeline_schedule.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::exec {

namespace {

// Expert parallelism needs experts to split, and the layout rapidllm models.
void check_expert_parallelism(const model::LlmDims& d, const HardwareSpec& hw, RunType run) {
  const auto& p = hw.parallelism;
  const int ep = run == RunType::training ? p.ep : p.moe_dp;
  const char* key = run == RunType::training ? "parallelism.train.ep" : "parallelism.inference.moe_dp";
  if (!d.has_moe()) {
    if (ep > 1) {
      throw InfeasibleError(fmt::format("{} = {} but the model is dense (moe.num_experts = 1): expert parallelism "
                                        "has no experts to split; set it to 1",
                                        key, ep));
    }
    return;
  }
  if (d.moe.num_experts % ep != 0) {
    throw InfeasibleError(fmt::format("{} = {} does not divide moe.num_experts = {}", key, ep, d.moe.num_experts));
  }
  if (run == RunType::training && !p.tp_ep && p.tp > 1) {
    throw InfeasibleError(
        "parallelism.train.tp_ep = false (experts whole on every TP rank) with tp > 1 is not modelled: rapidllm "
        "splits each expert over the TP ranks (Megatron's expert tensor parallelism = tp); set tp_ep: true");
  }
  if (run == RunType::training && ep > 1 && hw.sw.dp_zero_stage == 3 && p.dp * ep > 1) {
    throw InfeasibleError("ZeRO-3 (dp_zero_stage: 3) with expert parallelism is not modelled: dense and expert "
                          "parameters shard over different groups; use dp_zero_stage 1 or 2");
  }
  if (ep > 1 && p.tp > 1 && !p.tp_sp) {
    throw InfeasibleError("MoE with tp > 1 and expert parallelism needs sequence parallelism (each TP rank "
                          "dispatches its own share of the tokens): set parallelism.tp_sp: true");
  }
}

// nanotron's build_model: the pipeline blocks in order (the embedding at no cost, each
// decoder layer 4 h^2 + 3 h ffn, the LM head V h) and a rank takes blocks until their
// cumulative cost reaches its share of the total, (r + 1) / pp of it. nanotron's main
// branch today moves on only past the share (>); the measured runs of
// validation/data/nanotron_h100.csv hold their layers as "reaches" (>=) gives, which differs
// only on an exact tie (1.34B: the head costs exactly 4 layers). Returns each rank's layers.
// When the layers and the head run out before the last rank, nanotron leaves the ranks after
// the head holding only the loss, the head's output passed through them; here the head sits
// on the last rank and the ranks between hold nothing: the same first rank (the peak of
// memory), the pipeline's time within the logits' hops.
std::vector<int> compute_balanced_layers(const model::LlmDims& d, int pp) {
  const double h = static_cast<double>(d.hidden);
  const double layer = 4.0 * h * h + 3.0 * h * static_cast<double>(d.ffn);
  const double head = static_cast<double>(d.vocab) * h;
  const double total = d.layers * layer + head;
  std::vector<int> layers(static_cast<std::size_t>(pp), 0);
  int rank = 0;
  double cumulative = 0.0;
  for (int l = 0; l < d.layers; ++l) {
    ++layers[static_cast<std::size_t>(rank)];
    cumulative += layer;
    if (cumulative >= total * (rank + 1) / pp && rank + 1 < pp) ++rank;
  }
  return layers;
}

}  // namespace

// Training's dense layers are data-parallel over dp x ep, its experts split ep ways.
parallel::Degrees degrees_of(const ParallelismSpec& p, RunType run) {
  parallel::Degrees d;
  d.tp = p.tp;
  d.cp = p.cp;
  d.pp = p.pp;
  d.ep = run == RunType::training ? p.ep : p.moe_dp;
  d.dp = run == RunType::training ? p.dp : p.replica_count;
  return d;
}

ModelPartition::ModelPartition(const HardwareSpec& hw, const LlmModelSpec& spec, const std::string& source)
    : hw_(hw),
      spec_(spec),
      dims_(model::llm_dims(spec, source)),
      degrees_(degrees_of(hw.parallelism, spec.run_type)),
      sequence_parallel_(hw.parallelism.tp_sp && hw.parallelism.tp > 1) {
  if (degrees_.total() > std::numeric_limits<int>::max()) {
    throw ConfigError(SourceLocation{hw.source, 0, 0, {}}, "parallelism",
                      fmt::format("the parallel degrees multiply to {} GPUs, more than the {} rapidllm counts",
                                  degrees_.total(), std::numeric_limits<int>::max()),
                      "check tp, cp, pp, dp (or replica_count) and ep for a typo");
  }
  (void)model::tp_share(dims_, degrees_.tp);
  check_expert_parallelism(dims_, hw, spec.run_type);
  if (spec.run_type == RunType::training && hw.sw.recompute == ActivationRecompute::op && (dims_.has_moe() || dims_.mla)) {
    // torchtitan's policy counts aten.mm calls; MoE experts run grouped GEMMs and MLA other
    // projections, whose save pattern the model does not follow.
    throw InfeasibleError("sw_param.activation_recompute: op (torchtitan's selective op checkpointing) is modelled "
                          "for dense layers with multi-head or grouped-query attention; use selective or full for "
                          "MoE and MLA models");
  }
  // Training splits every sequence evenly over the CP ranks; an inference prompt that cp
  // does not divide leaves the last rank a shorter part (the busiest rank is costed).
  if (spec.run_type == RunType::training && spec.seq_len % degrees_.cp != 0) {
    throw InfeasibleError(fmt::format("seq_len = {} is not divisible by cp = {}", spec.seq_len, degrees_.cp));
  }
  first_of_kind_.fill(-1);
  for (int l = dims_.layers - 1; l >= 0; --l) first_of_kind_[static_cast<std::size_t>(dims_.layer_kind(l))] = l;
  int kinds = 0;
  for (std::size_t kind = 0; kind < first_of_kind_.size(); ++kind) {
    if (first_of_kind_[kind] < 0) continue;
    single_kind_ = static_cast<int>(kind);
    ++kinds;
    model::LayerParameters& p = rank_params_[kind];
    p = model::layer_parameters(dims_, first_of_kind_[kind]);
    p.dense /= degrees_.tp;
    p.routed_experts /= static_cast<double>(degrees_.tp) * degrees_.ep;
  }
  if (kinds > 1) single_kind_ = -1;
  if (hw.parallelism.layer_split == LayerSplit::compute_balanced && degrees_.pp > 1) {
    if (spec.run_type != RunType::training || single_kind_ != 0) {
      throw ConfigError(SourceLocation{hw.source, 0, 0, {}}, "parallelism.layer_split",
                        "compute_balanced is nanotron's split of a dense model's training step; this is " +
                            std::string(spec.run_type != RunType::training ? "inference" : "a model with several kinds of layer"),
                        "use layer_split: even");
    }
    balanced_layers_ = compute_balanced_layers(dims_, degrees_.pp);
    for (int i = 0, first = 0; i < degrees_.pp; ++i) {
      balanced_first_.push_back(first);
      first += balanced_layers_[static_cast<std::size_t>(i)];
    }
    return;
  }
  const int chunks = degrees_.pp * parallel::schedule_of(hw.parallelism.pp_schedule).virtual_stages(hw.parallelism.vpp);
  if (dims_.layers < chunks) {
    throw InfeasibleError(fmt::format("{} layers cannot fill pp x vpp = {} pipeline chunks", dims_.layers, chunks));
  }
}

model::LocalShape ModelPartition::local_shape(std::int64_t micro_batch, std::int64_t seq) const {
  model::LocalShape s;
  s.micro_batch = micro_batch;
  s.seq = seq;
  s.tp = degrees_.tp;
  s.cp = degrees_.cp;
  s.ep = degrees_.ep;
  s.sequence_parallel = sequence_parallel_;
  s.element_bytes = element_bytes();
  s.kv_element_bytes = hw_.sw.precision.kv_cache.bytes;
  s.fp8_linears = hw_.sw.precision.matmul.bytes < hw_.sw.precision.tensor_format.bytes;
  s.eager_elementwise = hw_.sw.elementwise_kernels == ElementwiseKernels::eager;
  s.cross_entropy = hw_.sw.cross_entropy;
  return s;
}

parallel::PartSettings ModelPartition::part_settings() const {
  parallel::PartSettings p;
  p.training = spec_.run_type == RunType::training;
  const auto& o = hw_.network.overlap;
  p.tp_overlap = sequence_parallel_ ? o.tp_sp_overlap : o.tp_overlap;
  p.cp_overlap = o.cp_overlap;
  p.ep_overlap = o.ep_overlap;
  p.cp = degrees_.cp;
  const ActivationRecompute r = hw_.sw.recompute;
  // Fused attention kernels recompute their core anyway: selective recompute adds nothing.
  p.recompute = r == ActivationRecompute::full                                      ? model::Recompute::full
                : r == ActivationRecompute::op                                  ? model::Recompute::op_level
                : r == ActivationRecompute::selective && !dims_.flash_attention ? model::Recompute::attention_core
                                                                                  : model::Recompute::none;
  return p;
}

parallel::PartSettings ModelPartition::layer_settings(int layer) const {
  parallel::PartSettings p = part_settings();
  if (p.training && degrees_.dp > 1 && hw_.sw.dp_zero_stage == 3) {
    const double layer_params = rank_layer_parameters(layer).total();
    p.zero3_parameter_bytes = layer_params * hw_.sw.precision.parameters.bytes;
    p.zero3_gradient_bytes = layer_params * hw_.sw.precision.grad_communication.bytes;
  }
  return p;
}

std::array<int, model::kLayerKinds> ModelPartition::stage_layer_kinds(int stage, int vpp) const {
  std::array<int, model::kLayerKinds> n{};
  if (!balanced_layers_.empty()) {
    n[static_cast<std::size_t>(single_kind_)] = balanced_layers_[static_cast<std::size_t>(stage)];
    return n;
  }
  if (single_kind_ >= 0) {
    const RankSplit split = rank_split(vpp);
    n[static_cast<std::size_t>(single_kind_)] = split.layers + (stage < split.fuller ? 1 : 0);
    return n;
  }
  const int chunks = degrees_.pp * vpp;
  for (int c = stage; c < chunks; c += degrees_.pp) {
    const LayerRange r = chunk_layers(c, chunks);
    const std::array<int, model::kLayerKinds> in_chunk = dims_.layer_kinds(r.first, r.count);
    for (std::size_t k = 0; k < n.size(); ++k) n[k] += in_chunk[k];
  }
  return n;
}

ModelPartition::LayerRange ModelPartition::chunk_layers(int chunk, int chunks) const {
  const auto c = static_cast<std::size_t>(chunk);
  if (!balanced_layers_.empty()) return {balanced_first_[c], balanced_layers_[c]};
  const int base = dims_.layers / chunks;
  const int longer = dims_.layers % chunks;  // the first chunks take one layer more
  return {chunk * base + std::min(chunk, longer), base + (chunk < longer ? 1 : 0)};
}

}  // namespace rapidllm::exec
