#include "exec/stage_groups.hpp"

#include <algorithm>
#include <numeric>

namespace rapidllm::exec {

namespace {

// Parameters one rank of a pipeline rank holds, given its layers of each kind: TP shards
// the matrices and embeddings, EP the routed experts.
model::LayerParameters stage_parameters(const ModelPartition& ctx, const std::array<int, model::kLayerKinds>& kinds,
                                        bool first, bool last) {
  const auto& d = ctx.dims();
  model::LayerParameters p;
  for (int kind = 0; kind < model::kLayerKinds; ++kind) {
    const int n = kinds[static_cast<std::size_t>(kind)];
    if (n == 0) continue;
    const model::LayerParameters& layer = ctx.rank_layer_parameters(ctx.first_layer_of_kind()[static_cast<std::size_t>(kind)]);
    p.dense += n * layer.dense;
    p.routed_experts += n * layer.routed_experts;
  }
  const double table = static_cast<double>(d.vocab) * static_cast<double>(d.hidden) / ctx.degrees().tp;
  if (first) p.dense += table;
  if (last && (!d.tied_embeddings || ctx.degrees().pp > 1)) p.dense += table;
  return p;
}

}  // namespace

int layer_count(const std::array<int, model::kLayerKinds>& kinds) {
  return std::accumulate(kinds.begin(), kinds.end(), 0);
}

StageGroups stage_groups(const ModelPartition& ctx, int vpp) {
  const int pp = ctx.degrees().pp;
  StageGroups out;
  out.of_stage.resize(static_cast<std::size_t>(pp));
  out.groups.reserve(4);  // first, last and two middle shares: a single-kind model's most
  std::size_t previous = 0;
  // Ranks [a, b) hold alike (the caller's promise): the group of rank a, new or found.
  const auto add_run = [&](int a, int b, const std::array<int, model::kLayerKinds>& kinds) {
    const bool first = a == 0;
    const bool last = a == pp - 1;
    const auto same = [&](const StageGroup& g) {
      return g.first == first && g.last == last && g.kinds == kinds;
    };
    // Ranks alike are mostly neighbours: the previous run's group first.
    std::size_t k = previous < out.groups.size() && same(out.groups[previous]) ? previous : 0;
    while (k < out.groups.size() && !same(out.groups[k])) ++k;
    if (k == out.groups.size()) {
      out.groups.push_back(StageGroup{kinds, first, last, stage_parameters(ctx, kinds, first, last), a});
    }
    std::fill(out.of_stage.begin() + a, out.of_stage.begin() + b, static_cast<int>(k));
    previous = k;
  };
  if (const int single = ctx.single_kind(); single >= 0 && ctx.balanced_stage_layers().empty()) {
    // One kind of layer: ranks differ in their count alone, one more layer below `fuller`,
    // so the ranks fall into at most four runs (a plan search asks this of every plan:
    // nothing per rank).
    const ModelPartition::RankSplit split = ctx.rank_split(vpp);
    std::array<int, 5> cuts{0, 1, split.fuller, pp - 1, pp};
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      const int a = cuts[c];
      if (a >= cuts[c + 1]) continue;
      std::array<int, model::kLayerKinds> kinds{};
      kinds[static_cast<std::size_t>(single)] = split.layers + (a < split.fuller ? 1 : 0);
      add_run(a, cuts[c + 1], kinds);
    }
    return out;
  }
  for (int i = 0; i < pp; ++i) add_run(i, i + 1, ctx.stage_layer_kinds(i, vpp));
  return out;
}

}  // namespace rapidllm::exec
