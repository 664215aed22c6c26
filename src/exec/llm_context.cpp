#include "exec/llm_context.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "model/tp_share.hpp"
#include "network/cluster_network.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::exec {

namespace {

parallel::Degrees degrees_of(const ParallelismSpec& p, RunType run) {
  parallel::Degrees d;
  d.tp = p.tp;
  d.cp = p.cp;
  d.pp = p.pp;
  // Dense models: expert parallelism has nothing to shard (Megatron carves EP out of DP).
  d.ep = 1;
  d.dp = run == RunType::training ? p.dp : p.replica_count;
  return d;
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
  // Training splits every sequence evenly over the CP ranks; an inference prompt that cp
  // does not divide leaves the last rank a shorter part (the busiest rank is costed).
  require(spec.run_type == RunType::inference || spec.seq_len % degrees_.cp == 0,
          fmt::format("seq_len = {} is not divisible by cp = {}", spec.seq_len, degrees_.cp));
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
  p.cp = degrees_.cp;
  const ActivationRecompute r = hw_.sw.recompute;
  // Fused attention kernels recompute their core anyway: selective recompute adds nothing.
  p.recompute = r == ActivationRecompute::full                                      ? model::Recompute::full
                : r == ActivationRecompute::selective && !dims_.flash_attention ? model::Recompute::attention_core
                                                                                  : model::Recompute::none;
  if (p.training && degrees_.dp > 1 && hw_.sw.dp_zero_stage == 3) {
    const double layer_params = model::layer_parameter_count(dims_) / degrees_.tp;
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
  model::LocalShape global = shape;
  global.window = 0;
  parallel::layer_graph(dims_, global, settings, graph);
  out.layer = executor_->run(graph);
  if (dims_.sliding_window > 0) {
    model::LocalShape windowed = shape;
    windowed.window = dims_.sliding_window;
    parallel::layer_graph(dims_, windowed, settings, graph);
    out.windowed_layer = executor_->run(graph);
  }
  parallel::embedding_graph(dims_, shape, settings, graph);
  out.embedding = executor_->run(graph);
  parallel::head_graph(dims_, shape, settings, graph);
  out.head = executor_->run(graph);
  return out;
}

GraphCost LlmContext::layers_cost(const PartCosts& parts, int first, int count) const {
  const int windowed = dims_.windowed_layers(first, count);
  if (windowed == 0) return parts.layer.scaled(count);
  GraphCost out = parts.windowed_layer.scaled(windowed);
  if (windowed < count) out += parts.layer.scaled(count - windowed);
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
