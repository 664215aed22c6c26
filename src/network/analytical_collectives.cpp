// Closed-form (alpha-beta) collective times. The formulas and their assumptions are
// written out in docs/collectives-analytical.md; each function here names the one it uses.
#include "network/analytical_collectives.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "network/collective_program.hpp"
#include "network/topology.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {
namespace {

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// ceil(log2(n)) for n >= 1: the depth of a binary tree over n ranks.
int ceil_log2(int n) { return static_cast<int>(std::bit_width(static_cast<unsigned>(n - 1))); }

// The per-rank bandwidth this collective gets on the dimension, derated by util and shared
// with the other GPUs behind the same NIC port (gpus_per_nic).
// A SuperPOD group larger than one leaf also crosses the spine, so its per-GPU spine
// share (bandwidth[1]) caps the rate when it is the lower of the two.
double effective_bandwidth(const NetworkDimension& dim, int ranks) {
  if (dim.bandwidth_bytes_per_s.empty() || !(dim.bandwidth_bytes_per_s[0] > 0.0)) {
    throw InfeasibleError(
        fmt::format("network dimension '{}': bandwidth must be positive", dim.id));
  }
  if (!(dim.util > 0.0)) {
    throw InfeasibleError(fmt::format("network dimension '{}': util must be positive (got {})",
                                      dim.id, dim.util));
  }
  double bandwidth = dim.bandwidth_bytes_per_s[0];
  const bool crosses_spine = dim.topology == TopologyType::superpod && dim.superpod &&
                             dim.superpod->leaf_size > 0 && ranks > dim.superpod->leaf_size &&
                             dim.bandwidth_bytes_per_s.size() > 1;
  if (crosses_spine) {
    const double spine = dim.bandwidth_bytes_per_s[1];
    if (!(spine > 0.0)) {
      throw InfeasibleError(
          fmt::format("network dimension '{}': spine bandwidth must be positive", dim.id));
    }
    bandwidth = std::min(bandwidth, spine);
  }
  return bandwidth * dim.util / std::max(1, dim.gpus_per_nic);
}

bool is_switched(TopologyType t) {
  return t == TopologyType::fully_connected || t == TopologyType::switch_ ||
         t == TopologyType::superpod;
}

bool is_two_dimensional(TopologyType t) {
  return t == TopologyType::torus2d || t == TopologyType::mesh2d;
}

// What `auto` means on a topology: NCCL's large-message choice on switched fabrics (rings
// for the reductions and gathers, one-step pairwise exchange for all-to-all, in-switch
// reduction for all-reduce where the switch offers it); rings elsewhere (on Torus2D/Mesh2D
// "ring" is the per-axis ring decomposition).
CollectiveAlgorithm auto_algorithm(CollectiveOp op, const NetworkDimension& dim) {
  if (dim.in_network_reduction && dim.topology == TopologyType::switch_ && op == CollectiveOp::all_reduce) {
    return CollectiveAlgorithm::nvls;
  }
  if (is_switched(dim.topology) && op == CollectiveOp::all_to_all) return CollectiveAlgorithm::direct;
  return CollectiveAlgorithm::ring;
}

// Shared shape of every formula: `steps` latency terms plus `volume` bytes per rank
// through bandwidth B.
double alpha_beta(double steps, double alpha, double volume, double bandwidth) {
  return steps * alpha + volume / bandwidth;
}

// Ring (and, for all-to-all, pairwise exchange): n-1 steps per pass, each moving S/n.
// Broadcast is the pipelined chain 0 -> 1 -> ... -> n-1: the whole buffer crosses each link
// once, the pipeline fills in n-1 steps. Send/recv is one step of S to the next rank.
double ring_time(CollectiveOp op, int n, double bytes, double bandwidth, double alpha) {
  if (n <= 1) return 0.0;
  const double frac = static_cast<double>(n - 1) / static_cast<double>(n);
  const double steps = static_cast<double>(n - 1);
  if (op == CollectiveOp::broadcast) return alpha_beta(steps, alpha, bytes, bandwidth);
  if (op == CollectiveOp::send_recv) return alpha_beta(1.0, alpha, bytes, bandwidth);
  if (op == CollectiveOp::all_reduce) {
    return alpha_beta(2.0 * steps, alpha, 2.0 * frac * bytes, bandwidth);
  }
  return alpha_beta(steps, alpha, frac * bytes, bandwidth);
}

[[noreturn]] void throw_unsupported(CollectiveAlgorithm algorithm) {
  throw InfeasibleError(fmt::format(
      "algorithm {} is not supported by the analytical backend; use auto, ring, direct, "
      "halvingDoubling or doubleBinaryTree",
      to_string(algorithm)));
}

}  // namespace

// `ranks` is unused: the analytical backend follows NCCL's large-message choice at every size.
CollectiveAlgorithm resolve_algorithm(CollectiveOp op, int /*ranks*/,
                                      const NetworkDimension& dimension,
                                      const ExecutionBackendSpec& defaults) {
  // An explicit entry wins even when it says auto, so a dimension can opt out of a default.
  CollectiveAlgorithm chosen = CollectiveAlgorithm::auto_;
  if (auto it = dimension.collective_override.find(op); it != dimension.collective_override.end()) {
    chosen = it->second;
  } else if (auto d = defaults.collectives.find(op); d != defaults.collectives.end()) {
    chosen = d->second;
  }
  if (chosen == CollectiveAlgorithm::auto_) chosen = auto_algorithm(op, dimension);
  return chosen;
}

CollectivePhase best_phase(CollectiveOp op, double bytes, int ranks, const NetworkDimension& dimension,
                           const ExecutionBackendSpec& defaults) {
  const CollectiveAlgorithm a = resolve_algorithm(op, ranks, dimension, defaults);
  CollectiveAlgorithm written = CollectiveAlgorithm::auto_;
  if (auto it = dimension.collective_override.find(op); it != dimension.collective_override.end()) {
    written = it->second;
  } else if (auto d = defaults.collectives.find(op); d != defaults.collectives.end()) {
    written = d->second;
  }
  CollectivePhase chosen = time_on_dimension(op, a, bytes, ranks, dimension);
  if (a != CollectiveAlgorithm::nvls || ranks < 2 || written == CollectiveAlgorithm::nvls) return chosen;
  CollectivePhase ring = time_on_dimension(op, CollectiveAlgorithm::ring, bytes, ranks, dimension);
  return chosen.time_s <= ring.time_s ? chosen : ring;
}

CollectiveAlgorithm choose_algorithm(CollectiveOp op, double bytes, int ranks, const NetworkDimension& dimension,
                                     const ExecutionBackendSpec& defaults) {
  return best_phase(op, bytes, ranks, dimension, defaults).algorithm;
}

double protocol_rate(double bandwidth, const ProtocolSpec& protocol) {
  return std::min(bandwidth * protocol.bandwidth_fraction, protocol.max_bandwidth_bytes_per_s);
}

double dimension_rate(const NetworkDimension& dimension, int ranks) { return effective_bandwidth(dimension, ranks); }

ProtocolList::ProtocolList(const NetworkDimension& dimension)
    : implicit_{NcclProtocol::simple, 0.0, dimension.latency_s, 1.0},
      list_(dimension.protocols.empty() ? std::span<const ProtocolSpec>(&implicit_, 1)
                                        : std::span<const ProtocolSpec>(dimension.protocols)) {}

namespace {

void check_phase_inputs(const NetworkDimension& dimension, int ranks, double bytes) {
  if (ranks < 1) {
    throw InfeasibleError(
        fmt::format("network dimension '{}': a collective needs at least 1 rank (got {})",
                    dimension.id, ranks));
  }
  if (!(bytes >= 0.0) || !std::isfinite(bytes)) {
    throw InfeasibleError(fmt::format(
        "network dimension '{}': collective size must be finite and >= 0 (got {})",
        dimension.id, bytes));
  }
  if (!(dimension.latency_s >= 0.0)) {
    throw InfeasibleError(fmt::format("network dimension '{}': latency must be >= 0 (got {})",
                                      dimension.id, dimension.latency_s));
  }
}

// The time of one algorithm under one protocol: the protocol's fixed latency plus the
// algorithm's steps at the protocol's step latency and its bytes at the protocol's share of
// the bandwidth. `bandwidth` is the util-derated per-rank rate.
double protocol_time(CollectiveOp op, CollectiveAlgorithm algorithm, double bytes, int n,
                     const NetworkDimension& dimension, double bandwidth, const ProtocolSpec& protocol) {
  const double alpha = protocol.step_latency_s;
  const double bw = protocol_rate(bandwidth, protocol);
  const double frac = static_cast<double>(n - 1) / static_cast<double>(n);
  const bool reduce = op == CollectiveOp::all_reduce;
  double t = 0.0;
  switch (algorithm) {
    case CollectiveAlgorithm::auto_:  // resolved by the caller
    case CollectiveAlgorithm::ring:
      if (is_two_dimensional(dimension.topology) && (op == CollectiveOp::broadcast || op == CollectiveOp::send_recv)) {
        throw InfeasibleError(fmt::format(
            "{} on a {} dimension ('{}') is not modelled; place that traffic on a Ring, FullyConnected, Switch or "
            "SuperPOD dimension",
            to_string(op), to_string(dimension.topology), dimension.id));
      }
      if (op == CollectiveOp::send_recv && dimension.topology == TopologyType::fully_connected) {
        // One peer, one of the n-1 links the per-GPU bandwidth is spread over.
        t = alpha_beta(1.0, alpha, static_cast<double>(n - 1) * bytes, bw);
      } else if (is_two_dimensional(dimension.topology)) {
        // The 2-D decomposition, as the flow backend runs it (collective_program.hpp).
        const auto [a, b] = torus_axes_of(dimension, n);
        const CollectiveProgram program =
            grid_ring_program(op, bytes, a, b, dimension.topology == TopologyType::mesh2d);
        t = program_time(program, bw, alpha, dimension.latency_s);
      } else {
        t = ring_time(op, n, bytes, bw, alpha);
      }
      break;
    case CollectiveAlgorithm::direct:
      // One step to every peer needs a link (or a switch port) to every peer.
      if (!is_switched(dimension.topology)) {
        throw InfeasibleError(fmt::format(
            "algorithm direct needs a FullyConnected, Switch or SuperPOD topology; network "
            "dimension '{}' is {} (use ring)",
            dimension.id, to_string(dimension.topology)));
      }
      if (op == CollectiveOp::broadcast) {  // the root sends the buffer to every peer itself
        t = alpha_beta(1.0, alpha, static_cast<double>(n - 1) * bytes, bw);
      } else if (op == CollectiveOp::send_recv) {  // FullyConnected: over the one link to the peer
        const bool one_link = dimension.topology == TopologyType::fully_connected;
        t = alpha_beta(1.0, alpha, (one_link ? static_cast<double>(n - 1) : 1.0) * bytes, bw);
      } else {  // all-reduce = direct reduce-scatter + direct all-gather: two steps
        t = alpha_beta(reduce ? 2.0 : 1.0, alpha, (reduce ? 2.0 : 1.0) * frac * bytes, bw);
      }
      break;
    case CollectiveAlgorithm::halving_doubling: {
      if (op == CollectiveOp::all_to_all || op == CollectiveOp::broadcast || op == CollectiveOp::send_recv) {
        throw InfeasibleError(fmt::format(
            "algorithm halvingDoubling has no {} form in the analytical backend "
            "(network dimension '{}'); use ring or direct",
            to_string(op), dimension.id));
      }
      if (!is_power_of_two(n)) {
        throw InfeasibleError(fmt::format(
            "algorithm halvingDoubling needs a power-of-two rank count; network dimension "
            "'{}' has {} ranks (use ring)",
            dimension.id, n));
      }
      // Rabenseifner: log2(n) halving steps (RS) then log2(n) doubling steps (AG).
      const double steps = static_cast<double>(ceil_log2(n));
      t = alpha_beta(reduce ? 2.0 * steps : steps, alpha, (reduce ? 2.0 : 1.0) * frac * bytes, bw);
      break;
    }
    case CollectiveAlgorithm::double_binary_tree:
      if (!reduce) {
        throw InfeasibleError(fmt::format(
            "algorithm doubleBinaryTree only implements all_reduce; {} on network dimension "
            "'{}' needs ring or direct",
            to_string(op), dimension.id));
      }
      // Pipelined reduce up + broadcast down each tree, half the data per tree: every rank
      // is interior in one tree and a leaf in the other, so it sends (and receives) 2S in
      // total; latency is one tree depth up and one down.
      t = alpha_beta(2.0 * static_cast<double>(ceil_log2(n)), alpha, 2.0 * bytes, bw);
      break;
    case CollectiveAlgorithm::nvls:
    case CollectiveAlgorithm::mesh:
    case CollectiveAlgorithm::mesh2d:
    case CollectiveAlgorithm::hypercube:
    case CollectiveAlgorithm::torus2d:
      throw_unsupported(algorithm);
  }
  return protocol.latency_s + t;
}

// In-switch reduction (NVLS): Simple-only in NCCL, with its own efficiency and latency.
double nvls_time(CollectiveOp op, double bytes, int n, const NetworkDimension& dimension, double bandwidth) {
  if (dimension.topology != TopologyType::switch_ || op != CollectiveOp::all_reduce) {
    throw InfeasibleError(fmt::format(
        "algorithm nvls (in-switch reduction) is an all_reduce on a Switch dimension; network dimension '{}' is "
        "{} and the op is {}",
        dimension.id, to_string(dimension.topology), to_string(op)));
  }
  // Each GPU sends its buffer to the switch (which reduces it on the fly) plus its reduced
  // shard for the multicast, and receives the same: S (n+1)/n each way, two steps.
  const double util = dimension.in_network_reduction_util.value_or(dimension.util);
  const double nvls_alpha = dimension.in_network_reduction_latency_s.value_or(dimension.latency_s);
  return alpha_beta(2.0, nvls_alpha, bytes * (n + 1.0) / n, bandwidth / dimension.util * util);
}

}  // namespace

CollectivePhase time_on_dimension(CollectiveOp op, CollectiveAlgorithm algorithm, double bytes,
                                  int ranks, const NetworkDimension& dimension) {
  check_phase_inputs(dimension, ranks, bytes);
  if (algorithm == CollectiveAlgorithm::auto_) algorithm = auto_algorithm(op, dimension);

  CollectivePhase phase;
  phase.dimension_id = dimension.id;
  phase.op = op;
  phase.algorithm = algorithm;
  phase.ranks = ranks;
  phase.bytes = bytes;
  if (ranks == 1) return phase;  // nothing moves; a lone rank's configuration is not checked

  const double bandwidth = effective_bandwidth(dimension, ranks);
  if (algorithm == CollectiveAlgorithm::nvls) {
    phase.time_s = nvls_time(op, bytes, ranks, dimension, bandwidth);
    return phase;
  }
  // The fastest protocol at this size, as NCCL's tuner picks it.
  bool first = true;
  for (const ProtocolSpec& protocol : ProtocolList(dimension)) {
    const double t = protocol_time(op, algorithm, bytes, ranks, dimension, bandwidth, protocol);
    if (first || t < phase.time_s) {
      phase.time_s = t;
      phase.protocol = protocol.protocol;
      first = false;
    }
  }
  return phase;
}

double point_to_point_s(const NetworkDimension& dimension, double bytes) {
  if (bytes <= 0.0) return 0.0;
  check_phase_inputs(dimension, 2, bytes);
  const double bandwidth = effective_bandwidth(dimension, 2);
  double best = std::numeric_limits<double>::infinity();
  for (const ProtocolSpec& p : ProtocolList(dimension)) {
    best = std::min(best, p.latency_s + p.step_latency_s + bytes / protocol_rate(bandwidth, p));
  }
  return best;
}

FlatRingLatency flat_ring_latency(CollectiveOp op, std::span<const RingPhaseSteps> phases) {
  FlatRingLatency out;
  if ((op != CollectiveOp::all_gather && op != CollectiveOp::reduce_scatter) || phases.size() < 2) return out;
  double ranks = 1.0;
  double phases_s = 0.0;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const RingPhaseSteps& p = phases[i];
    if (!p.ring) return {};
    ranks *= p.ranks;
    phases_s += p.time_s;
    if (p.step_latency_s > phases[out.phase].step_latency_s) out.phase = i;
  }
  out.extra_s = std::max(0.0, (ranks - 1.0) * phases[out.phase].step_latency_s - phases_s);
  return out;
}

namespace {

// The step latency of the protocol a phase runs on its dimension.
double phase_step_latency_s(const CollectivePhase& phase, const NetworkDimension& dimension) {
  for (const ProtocolSpec& p : ProtocolList(dimension)) {
    if (p.protocol == phase.protocol) return p.step_latency_s;
  }
  return dimension.latency_s;
}

}  // namespace

CollectiveEstimate estimate_collective(CollectiveOp op, double bytes,
                                       const std::vector<GroupSpan>& group,
                                       const ExecutionBackendSpec& defaults) {
  if (group.empty()) throw InfeasibleError("collective group spans no network dimension");
  std::vector<GroupSpan> spans;  // the dimensions that hold more than one rank, innermost first
  long long total = 1;
  for (std::size_t i = 0; i < group.size(); ++i) {
    const GroupSpan& span = group[i];
    if (span.dimension == nullptr) {
      throw InfeasibleError(fmt::format("collective group span {} has no network dimension", i));
    }
    if (span.ranks < 1) {
      throw InfeasibleError(fmt::format(
          "network dimension '{}': a group needs at least 1 rank (got {})", span.dimension->id,
          span.ranks));
    }
    total *= span.ranks;
    if (total > INT_MAX) throw InfeasibleError("collective group has more than INT_MAX ranks");
    if (span.ranks > 1) spans.push_back(span);
  }

  CollectiveEstimate est;
  est.op = op;
  est.bytes = bytes;
  est.ranks = static_cast<int>(total);

  auto phase = [&](CollectiveOp phase_op, const GroupSpan& span, double phase_bytes) {
    est.phases.push_back(best_phase(phase_op, phase_bytes, span.ranks, *span.dimension, defaults));
  };

  const std::size_t k = spans.size();
  if (k == 1) {
    phase(op, spans[0], bytes);
  } else if (k > 1) {
    // inner[i] = bytes / (ranks of spans 0..i-1): the buffer left after reducing (or still to
    // gather) over the dimensions inside span i.
    std::vector<double> inner(k);
    inner[0] = bytes;
    for (std::size_t i = 1; i < k; ++i) inner[i] = inner[i - 1] / spans[i - 1].ranks;
    switch (op) {
      case CollectiveOp::all_reduce:
        for (std::size_t i = 0; i + 1 < k; ++i) {
          phase(CollectiveOp::reduce_scatter, spans[i], inner[i]);
        }
        phase(CollectiveOp::all_reduce, spans[k - 1], inner[k - 1]);
        for (std::size_t i = k - 1; i-- > 0;) phase(CollectiveOp::all_gather, spans[i], inner[i]);
        break;
      case CollectiveOp::reduce_scatter:
        // Innermost first on the shrinking buffer: the slow outer links see the least data.
        for (std::size_t i = 0; i < k; ++i) {
          phase(CollectiveOp::reduce_scatter, spans[i], inner[i]);
        }
        break;
      case CollectiveOp::all_gather:
        // The mirror image: outermost first on the growing buffer.
        for (std::size_t i = k; i-- > 0;) phase(CollectiveOp::all_gather, spans[i], inner[i]);
        break;
      case CollectiveOp::all_to_all:
        // Dimension-ordered exchange: each phase forwards the whole buffer along one dimension.
        for (std::size_t i = 0; i < k; ++i) phase(CollectiveOp::all_to_all, spans[i], bytes);
        break;
      case CollectiveOp::broadcast:
        // Outermost first: the root's outer slice, then every slice of each dimension inward.
        for (std::size_t i = k; i-- > 0;) phase(CollectiveOp::broadcast, spans[i], bytes);
        break;
      case CollectiveOp::send_recv:
        // Every rank sends to the next at once: ranks at a slice's edge cross the outer
        // dimensions while the rest stay inside, so the phases overlap (time = the slowest).
        for (std::size_t i = 0; i < k; ++i) phase(CollectiveOp::send_recv, spans[i], bytes);
        break;
    }
  }

  if (op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter) {
    std::vector<RingPhaseSteps> steps;  // phase j ran on span j (reduce-scatter) or k-1-j (all-gather)
    for (std::size_t j = 0; j < est.phases.size(); ++j) {
      const NetworkDimension& dim = *spans[op == CollectiveOp::reduce_scatter ? j : k - 1 - j].dimension;
      const CollectivePhase& p = est.phases[j];
      steps.push_back({p.ranks, phase_step_latency_s(p, dim), p.time_s,
                       p.algorithm == CollectiveAlgorithm::ring && !is_two_dimensional(dim.topology)});
    }
    const FlatRingLatency flat = flat_ring_latency(op, steps);
    if (flat.extra_s > 0.0) est.phases[flat.phase].time_s += flat.extra_s;
  }
  for (const auto& p : est.phases) {
    est.time_s = op == CollectiveOp::send_recv ? std::max(est.time_s, p.time_s) : est.time_s + p.time_s;
  }
  if (est.time_s > 0.0) {
    est.algbw_bytes_per_s = bytes / est.time_s;
    est.busbw_bytes_per_s = est.algbw_bytes_per_s * bus_bandwidth_factor(op, est.ranks);
  }
  return est;
}

}  // namespace rapidllm::network
