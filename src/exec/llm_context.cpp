#include "exec/llm_context.hpp"

#include <utility>

#include "exec/pipelined_tp_wait.hpp"
#include "network/cluster_network.hpp"

namespace rapidllm::exec {

LlmContext::LlmContext(const HardwareSpec& hw, const LlmModelSpec& spec, const std::string& source, CostCache& costs,
                       ExecutorKind executor, NetworkKind network)
    : ModelPartition(hw, spec, source),
      placement_(costs.placement(hw.network, degrees_)),
      coster_(costs.coster(hw, hw.sw.precision.tensor_format.dtype, hw.sw.precision.matmul.dtype)),
      network_(network == NetworkKind::analytical
                   ? network::make_network(NetworkBackend::analytical, hw.network, hw.execution)
                   : std::make_unique<network::ClusterNetwork>(
                         hw.network, hw.execution, placement_->capacities(), degrees_.total(),
                         network == NetworkKind::cluster_shared ? network::Sharing::shared : network::Sharing::isolated)),
      comms_(*placement_, *network_),
      tp_wait_s_(pipelined_tp_wait_s(hw.sw, *placement_, hw.network)) {
  // The analytical network has no links to fault, but a fault naming no cable is still a
  // mistake in the config.
  if (network == NetworkKind::analytical) network::check_cluster_faults(hw.network, placement_->capacities(), degrees_.total());
  if (executor == ExecutorKind::event) {
    executor_ = std::make_unique<EventExecutor>(coster_, comms_);
  } else {
    executor_ = std::make_unique<AnalyticalExecutor>(coster_, comms_);
    if (network == NetworkKind::analytical) memo_ = &costs.parts();
  }
}

PartCosts LlmContext::run_parts(const model::LocalShape& shape) {
  PartSettingsByKind settings{};
  const auto& first = first_layer_of_kind();
  for (std::size_t kind = 0; kind < first.size(); ++kind) {
    if (first[kind] >= 0) settings[kind] = layer_settings(first[kind]);
  }
  settings.back() = part_settings();
  const PartsInputs inputs{coster_, dims_, shape, settings, hw_.network, hw_.execution, *placement_};
  // The TP waits depend on the stack and the placement, not on what the memo keys: they
  // are applied to what it holds.
  const auto held = [this](PartCosts parts) {
    for (GraphCost& layer : parts.layers) hold_for_tp_waits(layer, tp_wait_s_);
    hold_for_tp_waits(parts.embedding, tp_wait_s_);
    hold_for_tp_waits(parts.head, tp_wait_s_);
    return parts;
  };
  if (memo_ != nullptr) {
    if (const PartCosts* known = memo_->find(inputs)) return held(*known);
  }
  // The graphs are rebuilt for every prediction: one per thread keeps its storage.
  thread_local model::OpGraph graph;
  PartCosts out;
  out.single_kind = single_kind();
  GroupsUsed used{};
  const auto note_groups = [&] {
    for (const model::CommOp& c : graph.comms()) used[static_cast<std::size_t>(c.group)] = true;
  };
  for (int kind = 0; kind < model::kLayerKinds; ++kind) {
    const int layer = first[static_cast<std::size_t>(kind)];
    if (layer < 0) continue;
    model::LocalShape s = shape;
    s.window = dims_.layer_window(layer);
    parallel::layer_graph(dims_, s, settings[static_cast<std::size_t>(kind)], graph, model::moe_kind(kind));
    out.layers[static_cast<std::size_t>(kind)] = executor_->run(graph);
    note_groups();
  }
  parallel::embedding_graph(dims_, shape, settings.back(), graph);
  out.embedding = executor_->run(graph);
  note_groups();
  parallel::head_graph(dims_, shape, settings.back(), graph);
  out.head = executor_->run(graph);
  note_groups();
  if (memo_ != nullptr) memo_->add(inputs, used, out);
  return held(std::move(out));
}

GraphCost LlmContext::layers_cost(const PartCosts& parts, int first, int count) const {
  if (parts.single_kind >= 0) return parts.layer(parts.single_kind).scaled(count);
  return kinds_cost(parts, dims_.layer_kinds(first, count));
}

GraphCost LlmContext::kinds_cost(const PartCosts& parts, const std::array<int, model::kLayerKinds>& n) {
  if (parts.single_kind >= 0) return parts.layer(parts.single_kind).scaled(n[static_cast<std::size_t>(parts.single_kind)]);
  GraphCost out;
  for (int kind = 0; kind < model::kLayerKinds; ++kind) {
    if (n[static_cast<std::size_t>(kind)] > 0) out += parts.layer(kind).scaled(n[static_cast<std::size_t>(kind)]);
  }
  return out;
}

}  // namespace rapidllm::exec
