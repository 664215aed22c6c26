#include "exec/llm_context.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "model/tp_share.hpp"
#include "network/cluster_network.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::exec {

namespace {

// RAPID-LLM's degrees: training multiplies the GPUs by ep (dense layers data-parallel over
// dp x ep, experts split ep ways); inference by moe_dp, its expert-parallel degree.
parallel::Degrees degrees_of(const ParallelismSpec& p, RunType run) {
  parallel::Degrees d;
  d.tp = p.tp;
  d.cp = p.cp;
  d.pp = p.pp;
  d.ep = run == RunType::training ? p.ep : p.moe_dp;
  d.dp = run == RunType::training ? p.dp : p.replica_count;
  return d;
}

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

void require(bool ok, const std::string& what) {
  if (!ok) throw InfeasibleError(what);
}

}  // namespace

LlmContext::LlmContext(const HardwareSpec& hw, const LlmModelSpec& spec, const std::string& source, CostCache& costs,
                       ExecutorKind executor, NetworkKind network)
    : hw_(hw),
      spec_(spec),
      dims_(model::llm_dims(spec, source)),
      degrees_(degrees_of(hw.parallelism, spec.run_type)),
      sequence_parallel_(hw.parallelism.tp_sp && hw.parallelism.tp > 1),
      placement_(hw.network, degrees_),
      coster_(costs.coster(hw, hw.sw.precision.tensor_format.dtype, hw.sw.precision.matmul.dtype)),
      network_(network == NetworkKind::analytical
                   ? network::make_network(NetworkBackend::analytical, hw.network, hw.execution)
                   : std::make_unique<network::ClusterNetwork>(
                         hw.network, hw.execution, placement_.capacities(), degrees_.total(),
                         network == NetworkKind::cluster_shared ? network::Sharing::shared : network::Sharing::isolated)),
      comms_(placement_, *network_) {
  // The analytical network has no links to fault, but a fault naming no cable is still a
  // mistake in the config.
  if (network == NetworkKind::analytical) network::check_cluster_faults(hw.network, placement_.capacities(), degrees_.total());
  if (executor == ExecutorKind::event) {
    executor_ = std::make_unique<EventExecutor>(coster_, comms_);
  } else {
    executor_ = std::make_unique<AnalyticalExecutor>(coster_, comms_);
  }
  (void)model::tp_share(dims_, degrees_.tp);
  check_expert_parallelism(dims_, hw, spec.run_type);
  // Training splits every sequence evenly over the CP ranks; an inference prompt that cp
  // does not divide leaves the last rank a shorter part (the busiest rank is costed).
  require(spec.run_type == RunType::inference || spec.seq_len % degrees_.cp == 0,
          fmt::format("seq_len = {} is not divisible by cp = {}", spec.seq_len, degrees_.cp));
  first_of_kind_.fill(-1);
  for (int l = dims_.layers - 1; l >= 0; --l) first_of_kind_[static_cast<std::size_t>(dims_.layer_kind(l))] = l;
  const int chunks = degrees_.pp * (hw.parallelism.pp_schedule == PipelineSchedule::interleaved_1f1b ? hw.parallelism.vpp : 1);
  require(dims_.layers >= chunks,
          fmt::format("{} layers cannot fill pp x vpp = {} pipeline chunks", dims_.layers, chunks));
}

model::LocalShape LlmContext::local_shape(std::int64_t micro_batch, std::int64_t seq) const {
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
  return s;
}

parallel::PartSettings LlmContext::part_settings() const {
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
                : r == ActivationRecompute::selective && !dims_.flash_attention ? model::Recompute::attention_core
                                                                                  : model::Recompute::none;
  return p;
}

model::LayerParameters LlmContext::rank_layer_parameters(int layer) const {
  model::LayerParameters p = model::layer_parameters(dims_, layer);
  p.dense /= degrees_.tp;
  p.routed_experts /= static_cast<double>(degrees_.tp) * degrees_.ep;
  return p;
}

parallel::PartSettings LlmContext::layer_settings(int layer) const {
  parallel::PartSettings p = part_settings();
  if (p.training && degrees_.dp > 1 && hw_.sw.dp_zero_stage == 3) {
    const double layer_params = rank_layer_parameters(layer).total();
    p.zero3_parameter_bytes = layer_params * hw_.sw.precision.parameters.bytes;
    p.zero3_gradient_bytes = layer_params * hw_.sw.precision.grad_communication.bytes;
  }
  return p;
}

LlmContext::PartCosts LlmContext::run_parts(const model::LocalShape& shape) {
  // The graphs are rebuilt for every prediction: one per thread keeps its storage.
  thread_local model::OpGraph graph;
  const parallel::PartSettings settings = part_settings();
  PartCosts out;
  int kinds = 0;
  for (int kind = 0; kind < model::kLayerKinds; ++kind) {
    const int layer = first_of_kind_[static_cast<std::size_t>(kind)];
    if (layer < 0) continue;
    model::LocalShape s = shape;
    s.window = dims_.layer_window(layer);
    parallel::layer_graph(dims_, s, layer_settings(layer), graph, model::moe_kind(kind));
    out.layers[static_cast<std::size_t>(kind)] = executor_->run(graph);
    out.single_kind = kind;
    ++kinds;
  }
  if (kinds > 1) out.single_kind = -1;
  parallel::embedding_graph(dims_, shape, settings, graph);
  out.embedding = executor_->run(graph);
  parallel::head_graph(dims_, shape, settings, graph);
  out.head = executor_->run(graph);
  return out;
}

GraphCost LlmContext::layers_cost(const PartCosts& parts, int first, int count) const {
  if (parts.single_kind >= 0) return parts.layer(parts.single_kind).scaled(count);
  const std::array<int, model::kLayerKinds> n = dims_.layer_kinds(first, count);
  GraphCost out;
  for (int kind = 0; kind < model::kLayerKinds; ++kind) {
    if (n[static_cast<std::size_t>(kind)] > 0) out += parts.layer(kind).scaled(n[static_cast<std::size_t>(kind)]);
  }
  return out;
}

std::vector<std::vector<std::pair<int, int>>> stage_layer_runs(int layers, int pp, int vpp) {
  const int chunks = pp * vpp;
  std::vector<std::vector<std::pair<int, int>>> out(static_cast<std::size_t>(pp));
  for (int c = 0, next = 0; c < chunks; ++c) {
    const int in_chunk = layers / chunks + (c < layers % chunks ? 1 : 0);
    out[static_cast<std::size_t>(c % pp)].emplace_back(next, in_chunk);
    next += in_chunk;
  }
  return out;
}

std::vector<int> layers_per_stage(int layers, int pp, int vpp) {
  const int chunks = pp * vpp;
  std::vector<int> out(static_cast<std::size_t>(pp), 0);
  for (int c = 0; c < chunks; ++c) {
    const int in_chunk = layers / chunks + (c < layers % chunks ? 1 : 0);
    out[static_cast<std::size_t>(c % pp)] += in_chunk;
  }
  return out;
}

}  // namespace rapidllm::exec
