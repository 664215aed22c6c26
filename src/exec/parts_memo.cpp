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

bool PartsMemo::Entry::matches(const PartsInputs& in) const {
  if (!(coster == &in.coster && shape == in.shape && settings == in.settings && dims == in.dims &&
        network == in.network && execution == in.execution)) {
    return false;
  }
  for (Parallelism p : kGroups) {
    const auto i = static_cast<std::size_t>(p);
    if (used[i] && !(groups[i] == layout(in, p))) return false;
  }
  return true;
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
