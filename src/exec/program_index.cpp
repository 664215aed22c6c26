#include "exec/program_index.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace rapidllm::exec::detail {

Resource channel_of(Parallelism p) {
  switch (p) {
    case Parallelism::tp: return tp_ch;
    case Parallelism::cp: return cp_ch;
    case Parallelism::ep: return ep_ch;
    case Parallelism::dp: return dp_ch;
    case Parallelism::pp: return pp_next;
  }
  return dp_ch;
}

ProgramIndex index_program(const StageProgram& p, int stage, int pp) {
  ProgramIndex ix;
  const std::size_t n = p.nodes.size();
  ix.resource.resize(n);
  ix.wait_count.assign(n, 0);
  ix.live_delta.assign(n, 0);
  std::vector<std::uint32_t> count(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const StepNode& node = p.nodes[i];
    for (std::uint32_t k = node.deps_begin; k < node.deps_end; ++k) ++count[p.deps[k] + 1];
    ix.wait_count[i] = static_cast<int>(node.deps_end - node.deps_begin);
    switch (node.kind) {
      case StepNodeKind::compute: ix.resource[i] = compute_stream; break;
      case StepNodeKind::collective: ix.resource[i] = channel_of(node.group); break;
      case StepNodeKind::send: ix.resource[i] = node.peer_stage > stage ? pp_next : pp_prev; break;
      case StepNodeKind::recv: ix.resource[i] = no_resource; break;
    }
    if (ix.resource[i] != no_resource) ix.issue[node.weight_grad ? kFill : static_cast<std::size_t>(ix.resource[i])].push_back(static_cast<int>(i));
  }
  for (std::size_t i = 0; i < n; ++i) count[i + 1] += count[i];
  ix.dep_offsets = count;
  ix.dependents.resize(p.deps.size());
  std::vector<std::uint32_t> fill(count.begin(), count.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const StepNode& node = p.nodes[i];
    for (std::uint32_t k = node.deps_begin; k < node.deps_end; ++k) ix.dependents[fill[p.deps[k]]++] = static_cast<std::uint32_t>(i);
  }
  // A W pass's nodes run as a chain: one ready node per held-back pass.
  ix.fill_cap = static_cast<std::size_t>(std::max(0, pp - 1));
  // Activations of (micro-batch, chunk) live from its first forward kernel to the end of
  // its backward (input gradients; weight gradients keep only the layer inputs' share).
  std::map<std::pair<int, int>, std::pair<int, int>> span;  // -> (first fwd compute, last bwd compute)
  for (std::size_t i = 0; i < n; ++i) {
    const StepNode& node = p.nodes[i];
    if (node.kind != StepNodeKind::compute || node.micro_batch < 0 || node.weight_grad || node.host_wait) continue;
    auto [it, fresh] = span.try_emplace({node.micro_batch, node.chunk}, -1, -1);
    if (node.pass == model::Pass::forward && it->second.first < 0) it->second.first = static_cast<int>(i);
    if (node.pass == model::Pass::backward) it->second.second = static_cast<int>(i);
  }
  for (const auto& [key, s] : span) {
    if (s.first >= 0) ix.live_delta[static_cast<std::size_t>(s.first)] += 1;
    if (s.second >= 0) ix.live_delta[static_cast<std::size_t>(s.second)] -= 1;
  }
  return ix;
}

}  // namespace rapidllm::exec::detail
