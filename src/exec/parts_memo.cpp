#include "exec/parts_memo.hpp"

#include "exec/word_hash.hpp"

namespace rapidllm::exec {

namespace {

// Picks the bucket from the inputs a plan search varies; equality decides the match.
std::uint64_t bucket(const PartsInputs& in) {
  WordHash h;
  h.add(reinterpret_cast<std::uintptr_t>(&in.coster));
  const model::LocalShape& s = in.shape;
  for (std::int64_t v : {s.micro_batch, s.seq, s.kv_len, s.window}) h.add(static_cast<std::uint64_t>(v));
  for (int v : {s.tp, s.cp, s.ep, s.sequence_parallel ? 1 : 0, s.decode ? 1 : 0}) h.add(static_cast<std::uint64_t>(v));
  for (const parallel::PartSettings& p : in.settings) {
    h.add(static_cast<std::uint64_t>(p.recompute));
    h.add(p.zero3_parameter_bytes);
  }
  h.add(static_cast<std::uint64_t>(in.dims.hidden));
  h.add(static_cast<std::uint64_t>(in.dims.layers));
  return h.value();
}

}  // namespace

constexpr std::array<Parallelism, 5> kGroups{Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::pp,
                                             Parallelism::dp};

PartsMemo::GroupLayout PartsMemo::layout(const PartsInputs& in, Parallelism p) {
  const NetworkDimension* first = in.network.dimensions.data();
  GroupLayout g;
  g.degree = in.placement.degree(p);
  for (const GroupSpan& span : in.placement.group(p)) g.spans.emplace_back(span.dimension - first, span.ranks);
  if (const NetworkDimension* d = in.placement.neighbour_dimension(p)) g.neighbour = d - first;
  return g;
}

bool PartsMemo::GroupLayout::describes(const PartsInputs& in, Parallelism p) const {
  // layout(in, p) == *this, without building the layout: a sweep asks this for every point.
  const NetworkDimension* first = in.network.dimensions.data();
  const std::vector<GroupSpan>& group = in.placement.group(p);
  if (degree != in.placement.degree(p) || spans.size() != group.size()) return false;
  for (std::size_t k = 0; k < spans.size(); ++k) {
    if (spans[k].first != group[k].dimension - first || spans[k].second != group[k].ranks) return false;
  }
  const NetworkDimension* d = in.placement.neighbour_dimension(p);
  return neighbour == (d != nullptr ? d - first : -1);
}

bool PartsMemo::Entry::matches(const PartsInputs& in) const {
  // The cheap fields first: entries in one bucket mostly differ in their shapes and groups.
  if (!(coster == &in.coster && shape == in.shape && settings == in.settings)) return false;
  for (Parallelism p : kGroups) {
    const auto i = static_cast<std::size_t>(p);
    if (used[i] && !groups[i].describes(in, p)) return false;
  }
  return dims == in.dims && network == in.network && execution == in.execution;
}

const PartCosts* PartsMemo::find(const PartsInputs& in) const {
  const auto [first, last] = entries_.equal_range(bucket(in));
  for (auto it = first; it != last; ++it) {
    if (it->second.matches(in)) return &it->second.costs;
  }
  return nullptr;
}

void PartsMemo::add(const PartsInputs& in, const GroupsUsed& used, const PartCosts& costs) {
  if (entries_.size() >= kMaxEntries) entries_.clear();
  Entry e{&in.coster, in.dims, in.shape, in.settings, in.network, in.execution, used, {}, costs};
  for (Parallelism p : kGroups) {
    const auto i = static_cast<std::size_t>(p);
    if (used[i]) e.groups[i] = layout(in, p);
  }
  entries_.emplace(bucket(in), std::move(e));
}

}  // namespace rapidllm::exec
