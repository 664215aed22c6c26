// Collective algorithms as transfer DAGs. Each function appends the steps of one phase
// (one op on one dimension) for one chunk, starting after `deps`, and returns the transfers
// whose completion ends the phase.
#include "network/collective_flows.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "network/analytical_collectives.hpp"
#include "network/collective_program.hpp"
#include "network/span_phases.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {

std::size_t PairSet::size() const {
  std::size_t total = 0;
  for (const auto& g : groups) {
    const std::size_t n = g.size();
    switch (kind) {
      case Kind::shift: total += (n >= 2 && ((shift % static_cast<int>(n)) + static_cast<int>(n)) % static_cast<int>(n) != 0) ? n : 0; break;
      case Kind::all_pairs: total += n * (n > 0 ? n - 1 : 0); break;
      case Kind::indexed: total += index_pairs.size(); break;
    }
  }
  return total;
}

namespace {

using Groups = std::vector<std::vector<int>>;
using PairsPtr = std::shared_ptr<const PairSet>;

PairsPtr shift_pairs(const Groups& groups, int shift) {
  auto p = std::make_shared<PairSet>();
  p->kind = PairSet::Kind::shift;
  p->groups = groups;
  p->shift = shift;
  return p;
}

PairsPtr all_pairs(const Groups& groups) {
  auto p = std::make_shared<PairSet>();
  p->kind = PairSet::Kind::all_pairs;
  p->groups = groups;
  return p;
}

PairsPtr indexed_pairs(const Groups& groups, std::vector<std::pair<int, int>> pairs) {
  auto p = std::make_shared<PairSet>();
  p->kind = PairSet::Kind::indexed;
  p->groups = groups;
  p->index_pairs = std::move(pairs);
  return p;
}

bool is_switched(TopologyType t) {
  return t == TopologyType::fully_connected || t == TopologyType::switch_ || t == TopologyType::superpod;
}

int ceil_log2(int n) { return static_cast<int>(std::bit_width(static_cast<unsigned>(n - 1))); }

// How a phase's NCCL protocol shows on the wire: its payload goes out at bandwidth_fraction
// of the link rate (charged as 1/fraction bytes on the wire per payload byte), each step
// takes step_latency where the links alone take their latency, and the fixed latency is
// paid once, before the first step.
struct WireProtocol {
  double byte_scale = 1.0;
  double step_extra_s = 0.0;  // step latency beyond the links' own (never below them)
  double fixed_s = 0.0;
};

// `endpoint_delay_s`: the receiving endpoint's processing of each message (ASTRA-sim's
// endpoint_delay), paid once per step like the protocol's own step latency.
WireProtocol wire_protocol(const ProtocolSpec& p, double link_alpha, double endpoint_delay_s) {
  return {1.0 / p.bandwidth_fraction, std::max(0.0, p.step_latency_s - link_alpha) + endpoint_delay_s, p.latency_s};
}

// Appends transfers one after another; `deps` holds what the next one waits for.
struct Chain {
  FlowPlan& plan;
  int job;
  int phase;
  std::vector<int> deps;
  WireProtocol wire{};
  double step_alpha = 0.0;  // one step's full latency (the links' plus the protocol's extra)

  void step(const PairsPtr& pairs, double bytes, double extra_latency = 0.0) {
    Transfer t;
    t.pairs = pairs;
    t.bytes = bytes * wire.byte_scale;
    t.extra_latency_s = extra_latency + wire.step_extra_s + wire.fixed_s;
    wire.fixed_s = 0.0;
    t.deps = deps;
    t.job = job;
    t.phase = phase;
    deps = {plan.add(std::move(t))};
  }
};

// Ring steps of `op` over groups of n ranks on a buffer of `bytes`, in direction `dir`
// (+1 or -1). All-to-all is the pairwise exchange (step s sends bytes/n to rank i+s).
// Broadcast is the pipelined chain 0 -> 1 -> ... -> n-1: every chain link carries the whole
// buffer at once (cut-through chunks), and the fill adds n-2 step latencies to the path's
// one. Send/recv: one step, every rank sends the buffer to its successor (on a
// FullyConnected dimension over the one link to it).
// On a FullyConnected dimension (`spread`), a step's bytes/n go out evenly over all n-1
// links (the union of NCCL's per-channel rings loads every link equally).
void ring_steps(Chain& c, const Groups& groups, int n, CollectiveOp op, double bytes, int dir, bool spread) {
  if (n < 2) return;
  const double piece = bytes / n;
  if (op == CollectiveOp::broadcast) {
    if (spread) {
      // n-1 channel chains, each with its own successor order, all starting at the root:
      // every link carries S/(n-1) except those into the root, which already holds the data
      // (n-1 chains of n-1 hops move (n-1) S, as the single chain does).
      std::vector<std::pair<int, int>> links;
      for (int i = 0; i < n; ++i) {
        for (int j = 1; j < n; ++j) {
          if (i != j) links.emplace_back(i, j);
        }
      }
      c.step(indexed_pairs(groups, std::move(links)), bytes / (n - 1), (n - 2) * c.step_alpha);
      return;
    }
    std::vector<std::pair<int, int>> chain;
    for (int i = 0; i + 1 < n; ++i) chain.emplace_back(i, i + 1);
    c.step(indexed_pairs(groups, std::move(chain)), bytes, (n - 2) * c.step_alpha);
    return;
  }
  if (op == CollectiveOp::send_recv) {
    c.step(shift_pairs(groups, dir), bytes);
    return;
  }
  if (op == CollectiveOp::all_to_all) {
    for (int s = 1; s < n; ++s) c.step(shift_pairs(groups, dir * s), piece);
    return;
  }
  const int steps = op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
  const PairsPtr pairs = spread ? all_pairs(groups) : shift_pairs(groups, dir);
  const double member_bytes = spread ? piece / (n - 1) : piece;
  for (int s = 0; s < steps; ++s) c.step(pairs, member_bytes);
}

// The members of a line of `n` positions in the order a ring visits them: 0, 1, ..., n-1,
// or folded (collective_program.hpp): the even positions outwards, the odd ones back.
std::vector<int> ring_order(const std::vector<int>& line, bool folded) {
  if (!folded) return line;
  const int n = static_cast<int>(line.size());
  std::vector<int> out;
  for (int i = 0; i < n; i += 2) out.push_back(line[static_cast<std::size_t>(i)]);
  for (int i = n % 2 == 0 ? n - 1 : n - 2; i > 0; i -= 2) out.push_back(line[static_cast<std::size_t>(i)]);
  return out;
}

// Torus2D / Mesh2D: runs grid_ring_program (the 2-D ring decomposition of
// docs/collectives-analytical.md) over the slices' rows (axis 0, x varies fastest) and
// columns (axis 1); its lanes run at once, each a chain of its rounds.
std::vector<int> torus_ring(FlowPlan& plan, const TopologyDimension& dim, const Groups& slices, CollectiveOp op,
                            double bytes, const std::vector<int>& deps, int job, int phase, const WireProtocol& wire) {
  if (op == CollectiveOp::broadcast || op == CollectiveOp::send_recv) {
    throw InfeasibleError(fmt::format("{} on a {} dimension ('{}') is not modelled", to_string(op),
                                      to_string(dim.spec->topology), dim.spec->id));
  }
  const int a = dim.axis_a;
  const int b = dim.axis_b;
  const CollectiveProgram program =
      grid_ring_program(op, bytes, a, b, dim.spec->topology == TopologyType::mesh2d);
  std::array<Groups, 2> axis_groups;  // rows, columns, each in its ring order
  for (const auto& s : slices) {
    for (int y = 0; y < b; ++y) {
      std::vector<int> r;
      for (int x = 0; x < a; ++x) r.push_back(s[static_cast<std::size_t>(y * a + x)]);
      axis_groups[0].push_back(ring_order(r, program.axes[0].folded));
    }
    for (int x = 0; x < a; ++x) {
      std::vector<int> col;
      for (int y = 0; y < b; ++y) col.push_back(s[static_cast<std::size_t>(y * a + x)]);
      axis_groups[1].push_back(ring_order(col, program.axes[1].folded));
    }
  }
  std::vector<int> exits;
  for (const ProgramLane& lane : program.lanes) {
    Chain c{plan, job, phase, deps, wire, dim.latency_s + wire.step_extra_s};
    for (const ProgramRound& r : lane.rounds) {
      const Groups& groups = axis_groups[static_cast<std::size_t>(r.axis)];
      if (r.peers == RoundPeers::pairwise) {
        for (int s = 1; s <= r.steps; ++s) c.step(shift_pairs(groups, lane.dir * s), r.bytes);
        continue;
      }
      const PairsPtr pairs = shift_pairs(groups, lane.dir);
      for (int s = 0; s < r.steps; ++s) c.step(pairs, r.bytes);
    }
    exits.insert(exits.end(), c.deps.begin(), c.deps.end());
  }
  return exits;
}

// NCCL's double binary tree (ncclGetBtree / ncclGetDtree): tree 0 over ranks 0..n-1,
// tree 1 mirrored (even n) or shifted by one (odd n), so a rank is a leaf in one tree and
// interior in the other.
int btree_parent(int n, int rank) {
  if (rank == 0) return -1;
  int bit = 1;
  for (; bit < n; bit <<= 1) {
    if (bit & rank) break;
  }
  int up = (rank ^ bit) | (bit << 1);
  if (up >= n) up = rank ^ bit;
  return up;
}

std::vector<std::pair<int, int>> double_tree_edges(int n) {
  std::vector<std::pair<int, int>> edges;
  for (int tree = 0; tree < 2; ++tree) {
    for (int r = 0; r < n; ++r) {
      int mapped = r;
      if (tree == 1) mapped = n % 2 == 1 ? (r - 1 + n) % n : n - 1 - r;
      const int up = btree_parent(n, mapped);
      if (up < 0) continue;
      const int parent = tree == 0 ? up : (n % 2 == 1 ? (up + 1) % n : n - 1 - up);
      edges.emplace_back(r, parent);  // reduce up
      edges.emplace_back(parent, r);  // broadcast down
    }
  }
  return edges;
}

[[noreturn]] void unsupported(CollectiveAlgorithm algorithm) {
  throw InfeasibleError(fmt::format(
      "algorithm {} is not supported by the flow backend; use auto, ring, direct, halvingDoubling, "
      "doubleBinaryTree or nvls",
      to_string(algorithm)));
}

struct PhaseRequest {
  const TopologyDimension* dim = nullptr;
  std::size_t dim_index = 0;
  Groups groups;  // same-size groups of GPUs that run the phase side by side
  bool full_slices = false;
  CollectiveOp op = CollectiveOp::all_reduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  ProtocolSpec protocol;  // the one the analytical model picks for the phase (not used by nvls)
  double bytes = 0.0;
  double endpoint_delay_s = 0.0;  // ExecutionBackendSpec::endpoint_delay_s
};

std::vector<int> append_phase(FlowPlan& plan, const Topology& topo, const PhaseRequest& r, const std::vector<int>& deps,
                              int job, int phase) {
  const NetworkDimension& spec = *r.dim->spec;
  const int n = static_cast<int>(r.groups.front().size());
  const double alpha = r.dim->latency_s;
  const bool nvls = r.algorithm == CollectiveAlgorithm::nvls;
  // NVLS has its own efficiency and latency; every other algorithm runs the phase's protocol.
  const WireProtocol wire = nvls ? WireProtocol{1.0, r.endpoint_delay_s, 0.0}
                                  : wire_protocol(r.protocol, alpha, r.endpoint_delay_s);
  Chain c{plan, job, phase, deps, wire, alpha + wire.step_extra_s};
  if (n < 2) return deps;
  switch (r.algorithm) {
    case CollectiveAlgorithm::auto_:
    case CollectiveAlgorithm::ring:
      if (r.full_slices && (spec.topology == TopologyType::torus2d || spec.topology == TopologyType::mesh2d)) {
        return torus_ring(plan, *r.dim, r.groups, r.op, r.bytes, deps, job, phase, wire);
      }
      ring_steps(c, r.groups, n, r.op, r.bytes, 1,
                 spec.topology == TopologyType::fully_connected && r.op != CollectiveOp::all_to_all &&
                     r.op != CollectiveOp::send_recv);
      break;
    case CollectiveAlgorithm::direct: {
      if (!is_switched(spec.topology)) {
        throw InfeasibleError(fmt::format(
            "algorithm direct needs a FullyConnected, Switch or SuperPOD topology; network dimension '{}' is {} "
            "(use ring)",
            spec.id, to_string(spec.topology)));
      }
      if (r.op == CollectiveOp::broadcast) {  // the root sends the whole buffer to every peer
        std::vector<std::pair<int, int>> fan;
        for (int i = 1; i < n; ++i) fan.emplace_back(0, i);
        c.step(indexed_pairs(r.groups, std::move(fan)), r.bytes);
        break;
      }
      if (r.op == CollectiveOp::send_recv) {
        c.step(shift_pairs(r.groups, 1), r.bytes);
        break;
      }
      const auto pairs = all_pairs(r.groups);
      c.step(pairs, r.bytes / n);
      if (r.op == CollectiveOp::all_reduce) c.step(pairs, r.bytes / n);
      break;
    }
    case CollectiveAlgorithm::halving_doubling: {
      if (r.op == CollectiveOp::all_to_all || r.op == CollectiveOp::broadcast || r.op == CollectiveOp::send_recv) {
        throw InfeasibleError(fmt::format(
            "algorithm halvingDoubling has no {} form (network dimension '{}'); use ring or direct", to_string(r.op),
            spec.id));
      }
      if (!std::has_single_bit(static_cast<unsigned>(n))) {
        throw InfeasibleError(fmt::format(
            "algorithm halvingDoubling needs a power-of-two rank count; network dimension '{}' has {} ranks (use ring)",
            spec.id, n));
      }
      auto exchange = [&](int distance) {
        std::vector<std::pair<int, int>> p;
        for (int i = 0; i < n; ++i) p.emplace_back(i, i ^ distance);
        return indexed_pairs(r.groups, std::move(p));
      };
      const bool rs = r.op != CollectiveOp::all_gather;
      const bool ag = r.op != CollectiveOp::reduce_scatter;
      if (rs) {  // recursive halving: exchange half of what is left with a partner n/2, n/4, ... away
        double left = r.bytes;
        for (int d = n / 2; d >= 1; d /= 2) {
          left /= 2.0;
          c.step(exchange(d), left);
        }
      }
      if (ag) {  // recursive doubling: the mirror image
        double have = r.bytes / n;
        for (int d = 1; d < n; d *= 2) {
          c.step(exchange(d), have);
          have *= 2.0;
        }
      }
      break;
    }
    case CollectiveAlgorithm::double_binary_tree: {
      if (r.op != CollectiveOp::all_reduce) {
        throw InfeasibleError(fmt::format(
            "algorithm doubleBinaryTree only implements all_reduce; {} on network dimension '{}' needs ring or direct",
            to_string(r.op), spec.id));
      }
      // Both trees pipelined: every tree edge carries half the buffer up (reduce) and down
      // (broadcast) at once; the pipeline fill is one tree depth up and one down.
      // (The member paths already charge one alpha, the chain one step's protocol extra.)
      c.step(indexed_pairs(r.groups, double_tree_edges(n)), r.bytes / 2.0,
             std::max(0.0, (2.0 * ceil_log2(n) - 1.0) * (alpha + wire.step_extra_s)));
      break;
    }
    case CollectiveAlgorithm::nvls: {
      if (spec.topology != TopologyType::switch_ || r.op != CollectiveOp::all_reduce) {
        throw InfeasibleError(fmt::format(
            "algorithm nvls (in-switch reduction) is an all_reduce on a Switch dimension; network dimension '{}' is {} "
            "and the op is {}",
            spec.id, to_string(spec.topology), to_string(r.op)));
      }
      // Every GPU sends its whole buffer to the switch (reduced there as it arrives, plus its
      // reduced shard for the multicast: S (n+1)/n) and receives the same back.
      Groups with_switch;
      for (const auto& g : r.groups) {
        std::vector<int> w = g;
        const int sw = topo.switch_of(r.dim_index, g.front());
        for (int m : g) {
          if (topo.switch_of(r.dim_index, m) != sw) {
            throw InfeasibleError(fmt::format("nvls on dimension '{}': GPUs {} and {} are on different switches", spec.id,
                                              g.front(), m));
          }
        }
        w.push_back(sw);
        with_switch.push_back(std::move(w));
      }
      std::vector<std::pair<int, int>> p;
      for (int i = 0; i < n; ++i) {
        p.emplace_back(i, n);
        p.emplace_back(n, i);
      }
      // Its own efficiency and latency (in_network_reduction_util / _latency): the links run at
      // B x util, so a lower NVLS efficiency is charged as proportionally more bytes.
      const double util_scale = spec.util / spec.in_network_reduction_util.value_or(spec.util);
      const double nvls_alpha = spec.in_network_reduction_latency_s.value_or(alpha);
      c.step(indexed_pairs(with_switch, std::move(p)), r.bytes * (n + 1) / n * util_scale,
             std::max(0.0, 2.0 * nvls_alpha - alpha / 2.0));
      break;
    }
    case CollectiveAlgorithm::mesh:
    case CollectiveAlgorithm::mesh2d:
    case CollectiveAlgorithm::hypercube:
    case CollectiveAlgorithm::torus2d: unsupported(r.algorithm);
  }
  return c.deps;
}

// The protocol of the phase the analytical model picked (NCCL decides per call, from the
// whole size, before chunking).
ProtocolSpec chosen_protocol(const CollectivePhase& picked, const NetworkDimension& spec) {
  if (picked.algorithm == CollectiveAlgorithm::nvls || picked.ranks < 2) return {};
  for (ProtocolSpec p : ProtocolList(spec)) {
    if (p.protocol != picked.protocol) continue;
    // The flow links run at bandwidth x util: express a max_bandwidth ceiling as a fraction.
    const double rate = dimension_rate(spec, picked.ranks);
    p.bandwidth_fraction = protocol_rate(rate, p) / rate;
    return p;
  }
  return {};
}

// Runs a list of phases for `chunks` chunks of the buffer: chunk k's phase p starts after
// its phase p-1 and after chunk k-active's phase p.
int add_phases(FlowPlan& plan, const Topology& topo, const std::vector<PhaseRequest>& phases, int chunks, int active) {
  const int job = plan.jobs++;
  const int first_phase = static_cast<int>(plan.phases.size());
  for (const auto& p : phases) {
    PlanPhase pp;
    pp.job = job;
    pp.info.dimension_id = p.dim->spec->id;
    pp.info.op = p.op;
    pp.info.algorithm = p.algorithm;
    pp.info.protocol = p.protocol.protocol;
    pp.info.ranks = static_cast<int>(p.groups.front().size());
    pp.info.bytes = p.bytes;
    plan.phases.push_back(pp);
  }
  chunks = std::max(1, chunks);
  active = std::max(1, active);
  std::vector<std::vector<std::vector<int>>> exits(static_cast<std::size_t>(chunks));
  for (int k = 0; k < chunks; ++k) {
    std::vector<int> deps;
    for (std::size_t p = 0; p < phases.size(); ++p) {
      if (k >= active) {
        const auto& prev = exits[static_cast<std::size_t>(k - active)][p];
        deps.insert(deps.end(), prev.begin(), prev.end());
      }
      PhaseRequest r = phases[p];
      r.bytes = phases[p].bytes / chunks;
      if (k > 0) r.protocol.latency_s = 0.0;  // one call: its fixed latency is paid once
      deps = append_phase(plan, topo, r, deps, job, first_phase + static_cast<int>(p));
      exits[static_cast<std::size_t>(k)].push_back(deps);
    }
  }
  return job;
}


}  // namespace

namespace {

// The same-shaped groups of `lane` that vary only in their coordinate on span `j`, whose
// inner spans hold `inner` members (member k has coordinate (k / inner) % ranks on it), in
// the order Topology::slices lists a whole topology's slices.
void add_span_groups(const std::vector<int>& lane, int inner, int ranks, Groups& out) {
  const int n = static_cast<int>(lane.size());
  const int block = inner * ranks;
  for (int base_outer = 0; base_outer < n; base_outer += block) {
    for (int in = 0; in < inner; ++in) {
      std::vector<int> g(static_cast<std::size_t>(ranks));
      for (int k = 0; k < ranks; ++k) g[static_cast<std::size_t>(k)] = lane[static_cast<std::size_t>(base_outer + in + k * inner)];
      out.push_back(std::move(g));
    }
  }
}

}  // namespace

int add_cluster_collective(FlowPlan& plan, const Topology& topo, const ClusterGroup& group, CollectiveOp op,
                           double bytes, const ExecutionBackendSpec& exec) {
  if (!(bytes >= 0.0) || !std::isfinite(bytes)) {
    throw InfeasibleError(fmt::format("collective size must be finite and >= 0 (got {})", bytes));
  }
  const auto& dims = topo.dimensions();
  const std::size_t k = group.spans.size();
  std::vector<int> inner(k, 1);
  for (std::size_t j = 1; j < k; ++j) inner[j] = inner[j - 1] * group.spans[j - 1].ranks;
  for (const auto& lane : group.lanes) {
    if (k > 0 && static_cast<long long>(lane.size()) != 1LL * inner[k - 1] * group.spans[k - 1].ranks) {
      throw InfeasibleError("cluster collective: a lane's member count does not match its spans");
    }
  }
  std::vector<PhaseRequest> phases;
  std::vector<double> picked_s;  // each phase's analytical time
  auto phase = [&](CollectiveOp phase_op, std::size_t j, double phase_bytes) {
    const auto& span = group.spans[j];
    PhaseRequest r;
    r.dim = &dims[span.dimension];
    r.dim_index = span.dimension;
    for (const auto& lane : group.lanes) add_span_groups(lane, inner[j], span.ranks, r.groups);
    // A group that covers its dimension's slices runs the dimension's own decomposition.
    r.full_slices = span.ranks == dims[span.dimension].ranks;
    r.op = phase_op;
    const CollectivePhase picked = best_phase(phase_op, phase_bytes, span.ranks, *dims[span.dimension].spec, exec);
    r.algorithm = picked.algorithm;
    r.protocol = chosen_protocol(picked, *dims[span.dimension].spec);
    r.bytes = phase_bytes;
    r.endpoint_delay_s = exec.endpoint_delay_s;
    phases.push_back(std::move(r));
    picked_s.push_back(picked.time_s);
  };
  std::vector<int> span_ranks;
  for (const auto& span : group.spans) span_ranks.push_back(span.ranks);
  for (const SpanPhase& sp : span_phases(op, bytes, span_ranks)) {
    phase(sp.op, sp.span, sp.bytes);
    if (k > 1 && op == CollectiveOp::broadcast) {
      // A span's phase runs only in the groups that already hold the data: those whose
      // members sit at coordinate 0 on every span inside it.
      const std::size_t i = sp.span;
      Groups kept;
      std::size_t g = 0;
      for (const auto& lane : group.lanes) {
        const int n = static_cast<int>(lane.size());
        const int block = inner[i] * group.spans[i].ranks;
        for (int base_outer = 0; base_outer < n; base_outer += block) {
          for (int in = 0; in < inner[i]; ++in, ++g) {
            if (in == 0) kept.push_back(std::move(phases.back().groups[g]));
          }
        }
      }
      phases.back().groups = std::move(kept);
    } else if (k > 1 && op == CollectiveOp::send_recv) {
      // One step over the whole communicator in rank order: pairs at a slice's edge route
      // across the outer dimensions, the rest stay inside; the slowest sets the pace.
      phases.back().groups = group.lanes;
      phases.back().full_slices = false;
    }
  }
  if (phases.empty()) {
    plan.jobs++;
    return plan.jobs - 1;
  }
  // An all-gather or reduce-scatter lasts at least its flat ring's latency (flat_ring_latency,
  // on the phases' uncontended times): what the phases fall short of it is paid once, like
  // the slowest phase's fixed latency.
  if (op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter) {
    std::vector<RingPhaseSteps> steps;
    for (std::size_t j = 0; j < phases.size(); ++j) {
      const PhaseRequest& r = phases[j];
      const TopologyType t = r.dim->spec->topology;
      steps.push_back({static_cast<int>(r.groups.front().size()), r.protocol.step_latency_s, picked_s[j],
                       r.algorithm == CollectiveAlgorithm::ring && t != TopologyType::torus2d && t != TopologyType::mesh2d});
    }
    const FlatRingLatency flat = flat_ring_latency(op, steps);
    phases[flat.phase].protocol.latency_s += flat.extra_s;
  }
  return add_phases(plan, topo, phases, exec.preferred_dataset_splits, exec.active_chunks_per_dimension);
}

int add_collective(FlowPlan& plan, const Topology& topo, CollectiveOp op, double bytes,
                   const ExecutionBackendSpec& exec) {
  ClusterGroup whole;
  for (std::size_t d = 0; d < topo.dimensions().size(); ++d) whole.spans.push_back({d, topo.dimensions()[d].ranks});
  std::vector<int> all(static_cast<std::size_t>(topo.num_gpus()));
  for (int g = 0; g < topo.num_gpus(); ++g) all[static_cast<std::size_t>(g)] = g;
  whole.lanes.push_back(std::move(all));
  return add_cluster_collective(plan, topo, whole, op, bytes, exec);
}

int add_messages(FlowPlan& plan, const Topology& topo, std::size_t dimension,
                 const std::vector<std::pair<int, int>>& pairs, double bytes, const ExecutionBackendSpec& exec) {
  if (dimension >= topo.dimensions().size()) throw InfeasibleError("add_messages: no such dimension");
  const TopologyDimension& dim = topo.dimensions()[dimension];
  const int job = plan.jobs++;
  if (pairs.empty() || bytes <= 0.0) return job;
  // The protocol the analytical model picks for one send/recv of this size on the dimension.
  const CollectivePhase picked = best_phase(CollectiveOp::send_recv, bytes, 2, *dim.spec, exec);
  PlanPhase pp;
  pp.job = job;
  pp.info = picked;
  pp.info.dimension_id = dim.spec->id;
  pp.info.bytes = bytes;
  plan.phases.push_back(pp);
  const WireProtocol wire = wire_protocol(chosen_protocol(picked, *dim.spec), dim.latency_s, exec.endpoint_delay_s);
  Chain c{plan, job, static_cast<int>(plan.phases.size()) - 1, {}, wire, dim.latency_s + wire.step_extra_s};
  Groups groups;
  groups.reserve(pairs.size());
  for (const auto& [src, dst] : pairs) groups.push_back({src, dst});
  c.step(indexed_pairs(groups, {{0, 1}}), bytes);
  return job;
}

int add_group_collective(FlowPlan& plan, const Topology& topo, std::size_t dimension, const std::vector<int>& members,
                         CollectiveOp op, CollectiveAlgorithm algorithm, double bytes) {
  if (dimension >= topo.dimensions().size()) throw InfeasibleError("add_group_collective: no such dimension");
  for (int m : members) {
    if (m < 0 || m >= topo.num_gpus()) throw InfeasibleError(fmt::format("GPU {} is not in the topology", m));
  }
  const auto& dim = topo.dimensions()[dimension];
  PhaseRequest r;
  r.dim = &dim;
  r.dim_index = dimension;
  r.groups = {members};
  r.full_slices = false;
  r.op = op;
  const int n = static_cast<int>(members.size());
  const CollectivePhase picked = algorithm == CollectiveAlgorithm::auto_
                                     ? best_phase(op, bytes, n, *dim.spec, ExecutionBackendSpec{})
                                     : time_on_dimension(op, algorithm, bytes, n, *dim.spec);
  r.algorithm = picked.algorithm;
  r.protocol = chosen_protocol(picked, *dim.spec);
  r.bytes = bytes;
  return add_phases(plan, topo, {r}, 1, 1);
}

}  // namespace rapidllm::network
