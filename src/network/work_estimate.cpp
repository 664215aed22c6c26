// Counts a collective's plan the way collective_flows.cpp builds it, without building it: per
// phase the algorithm best_phase picks, its steps (transfers), its distinct PairSets (each
// routed once, pair by pair) and its member pairs; then the chunking. Event counts follow
// FlowEngine: every transfer is one start and one completion, and every rate it is given
// pushes one drain (the superseded ones are popped and counted too), so events = 2 x
// transfers + rate computations exactly; only the rate computations are estimated.
#include "network/work_estimate.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "network/analytical_collectives.hpp"
#include "network/collective_program.hpp"
#include "network/span_phases.hpp"
#include "network/topology.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {

// Bytes per item, measured on the release build (GCC 12, x86-64) with the allocator's
// overhead: what the topology, the plan and the engine keep per link, node, transfer, member.
constexpr double kBytesPerLink = 230.0;      // Link (vector growth), link index, out list, engine tables
constexpr double kBytesPerNode = 110.0;      // out list, routing scratch
constexpr double kBytesPerTransfer = 220.0;  // Transfer + deps, submission bookkeeping, event, result
constexpr double kBytesPerMember = 4.0;      // one node id in a PairSet's group
constexpr double kBytesPerGroup = 40.0;      // one group vector
constexpr double kBytesPerUsageLink = 28.0;  // a usage's link id + weight, the link's user entry
constexpr double kBytesPerNeighbor = 8.0;    // one neighbor-list pointer
// ns-3: one segment of the tool's TCP (tools/ns3), and scheduler events per packet per hop
// (enqueue, dequeue, transmit, receive) plus the delayed acknowledgement's share back.
// Measured on the H100 config's 8-GPU NVSwitch, all-reduce of 4 MiB (NVLS: one step of 16
// pairs), 16 MiB (ring: 14 steps of 8 pairs) and 64 MiB (NVLS): 1.18x fewer real events than
// this estimate; an event costs about 25 flow units of wall time (5 us) while a pair's message
// is short, and more once it nears the 64 MiB socket buffers (64 MiB NVLS, 84 MB a pair: 10x;
// modelled as 1 + (segments of a pair's step / 3000)^2: 16 MiB ring 1.6 s estimated, 1.8 s
// measured; 64 MiB 72 s, 69 s); memory is about 0.6x the bytes all steps send (16 MiB ring:
// 148 MB; 256 MiB NVLS: 2.7 GB).
constexpr double kNs3Segment = 8948.0;
constexpr double kNs3EventsPerPacketHop = 6.0;
constexpr double kNs3UnitsPerEvent = 25.0;
constexpr double kNs3BufferedSegments = 3000.0;
constexpr double kNs3BytesPerWireByte = 0.6;
constexpr double kNs3BaseBytes = 20e6;

bool is_torus(TopologyType t) { return t == TopologyType::torus2d || t == TopologyType::mesh2d; }

// Links a member path crosses on the dimension (switch: up and down; SuperPOD across leaves: 4).
double hops_on(const NetworkDimension& d, int ranks) {
  switch (d.topology) {
    case TopologyType::switch_: return 2.0;
    case TopologyType::superpod: {
      const int leaf = d.superpod && d.superpod->leaf_size > 0 ? d.superpod->leaf_size : ranks;
      return ranks > leaf ? 4.0 : 2.0;
    }
    case TopologyType::fully_connected: return 1.0;
    case TopologyType::ring:
    case TopologyType::torus2d:
    case TopologyType::mesh2d: return 1.0;
  }
  return 1.0;
}

// Directed links of one slice of `n` ranks, and its switches (Topology::build_dimension).
std::pair<double, double> slice_links_and_switches(const NetworkDimension& d, int n) {
  const double nn = n;
  switch (d.topology) {
    case TopologyType::ring: return {n == 2 ? 2.0 : 2.0 * nn, 0.0};
    case TopologyType::fully_connected: return {nn * (nn - 1.0), 0.0};
    case TopologyType::switch_: return {2.0 * nn, 1.0};
    case TopologyType::torus2d:
    case TopologyType::mesh2d: return {4.0 * nn, 0.0};
    case TopologyType::superpod: {
      const int leaf = d.superpod && d.superpod->leaf_size > 0 ? d.superpod->leaf_size : n;
      const double leaves = std::ceil(nn / leaf);
      const double spines = leaves > 1 ? std::max(1, d.superpod ? d.superpod->spine_switches_per_su : 1) : 0;
      return {2.0 * nn + 2.0 * leaves * spines, leaves + spines};
    }
  }
  return {0.0, 0.0};
}

// The steps one phase adds for one chunk.
struct Steps {
  double steps = 0.0;
  double pairsets = 0.0;
  double routed = 0.0;      // pairs of the new PairSets
  double pair_steps = 0.0;  // sum over steps of member pairs
  double wire = 0.0;        // sum over steps of member pairs x bytes each
  double groups_members = 0.0;  // node ids stored by the new PairSets
  double groups = 0.0;
  double segments = 0.0;       // ns-3: segments of every member pair and step
  double segment_cost = 0.0;   // ns-3: the same, each weighted by its step's buffer cost

  void ns3(double count, double pairs, double bytes) {
    const double segs = std::ceil(bytes / kNs3Segment);
    const double buffered = segs / kNs3BufferedSegments;
    segments += count * pairs * segs;
    segment_cost += count * pairs * segs * (1.0 + buffered * buffered);
  }

  void step(double pairs, double bytes, bool new_set, double group_count, double members) {
    steps += 1.0;
    pair_steps += pairs;
    wire += pairs * bytes;
    ns3(1.0, pairs, bytes);
    if (new_set) {
      pairsets += 1.0;
      routed += pairs;
      groups += group_count;
      groups_members += members;
    }
  }
  // `count` steps on one PairSet (or each on its own when `distinct`).
  void steps_on(double count, double pairs, double bytes, bool distinct, double group_count, double members) {
    if (count <= 0.0) return;
    steps += count;
    pair_steps += count * pairs;
    wire += count * pairs * bytes;
    ns3(count, pairs, bytes);
    const double sets = distinct ? count : 1.0;
    pairsets += sets;
    routed += sets * pairs;
    groups += sets * group_count;
    groups_members += sets * members;
  }
};

// ring_steps of collective_flows.cpp over g groups of n.
void ring(Steps& s, double g, int n, CollectiveOp op, double bytes, bool spread) {
  if (n < 2) return;
  const double nn = n;
  const double members = g * nn;
  switch (op) {
    case CollectiveOp::broadcast:
      if (spread) {
        s.step(g * nn * (nn - 1.0), bytes / (nn - 1.0), true, g, members);
      } else {
        s.step(g * (nn - 1.0), bytes, true, g, members);
      }
      return;
    case CollectiveOp::send_recv: s.step(g * nn, bytes, true, g, members); return;
    case CollectiveOp::all_to_all: s.steps_on(nn - 1.0, g * nn, bytes / nn, true, g, members); return;
    case CollectiveOp::all_reduce:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather: {
      const double count = op == CollectiveOp::all_reduce ? 2.0 * (nn - 1.0) : nn - 1.0;
      const double pairs = spread ? g * nn * (nn - 1.0) : g * nn;
      const double each = spread ? bytes / nn / (nn - 1.0) : bytes / nn;
      s.steps_on(count, pairs, each, false, g, members);
      return;
    }
  }
}

// One phase of one chunk: `g` groups of `n` on `dim` (append_phase). Returns its chains
// (concurrent step sequences: 4 for the 2-D ring decomposition, else 1).
int phase_steps(Steps& s, const NetworkDimension& dim, bool whole, double g, int n, CollectiveOp op,
                CollectiveAlgorithm algorithm, double bytes) {
  if (n < 2) return 1;
  const double nn = n;
  const double members = g * nn;
  switch (algorithm) {
    case CollectiveAlgorithm::auto_:
    case CollectiveAlgorithm::ring: {
      if (whole && is_torus(dim.topology) && op != CollectiveOp::broadcast && op != CollectiveOp::send_recv) {
        // torus_ring of collective_flows.cpp runs this program: per lane and round, one
        // PairSet over the axis's groups (a ring) or one per step (pairwise).
        const auto [a, b] = torus_axes_of(dim, n);
        const CollectiveProgram program = grid_ring_program(op, bytes, a, b, dim.topology == TopologyType::mesh2d);
        for (const ProgramLane& lane : program.lanes) {
          for (const ProgramRound& r : lane.rounds) {
            const double ranks = program.axes[static_cast<std::size_t>(r.axis)].ranks;
            const double groups = g * nn / ranks;
            s.steps_on(r.steps, groups * ranks, r.bytes, r.peers == RoundPeers::pairwise, groups, groups * ranks);
          }
        }
        return static_cast<int>(program.lanes.size());
      }
      const bool spread = dim.topology == TopologyType::fully_connected && op != CollectiveOp::all_to_all &&
                          op != CollectiveOp::send_recv;
      ring(s, g, n, op, bytes, spread);
      return 1;
    }
    case CollectiveAlgorithm::direct:
      if (op == CollectiveOp::broadcast) {
        s.step(g * (nn - 1.0), bytes, true, g, members);
      } else if (op == CollectiveOp::send_recv) {
        s.step(g * nn, bytes, true, g, members);
      } else {
        s.steps_on(op == CollectiveOp::all_reduce ? 2.0 : 1.0, g * nn * (nn - 1.0), bytes / nn, false, g, members);
      }
      return 1;
    case CollectiveAlgorithm::halving_doubling: {
      const double levels = static_cast<double>(std::bit_width(static_cast<unsigned>(n))) - 1.0;
      const double sets = (op == CollectiveOp::all_reduce ? 2.0 : 1.0) * levels;
      // Halving sends S/2, S/4, ...; doubling S/n, 2S/n, ...: each about S in all.
      s.steps_on(sets, g * nn, bytes / std::max(1.0, levels), true, g, members);
      s.groups_members += sets * 2.0 * nn;  // the index pairs
      return 1;
    }
    case CollectiveAlgorithm::double_binary_tree:
      s.step(g * 4.0 * (nn - 1.0), bytes / 2.0, true, g, members + 2.0 * 4.0 * (nn - 1.0));
      return 1;
    case CollectiveAlgorithm::nvls:
      s.step(g * 2.0 * nn, bytes * (nn + 1.0) / nn, true, g, members + g + 4.0 * nn);
      return 1;
    case CollectiveAlgorithm::mesh:
    case CollectiveAlgorithm::mesh2d:
    case CollectiveAlgorithm::hypercube:
    case CollectiveAlgorithm::torus2d: return 1;  // refused when the plan is built
  }
  return 1;
}

struct Phase {
  const SpanShape* span = nullptr;
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;
  double groups = 0.0;
  int ranks = 1;
  bool whole = true;
};

}  // namespace

double WorkEstimate::work(NetworkBackend backend) const {
  if (backend == NetworkBackend::ns3) return ns3_work;
  return events + flows + usage_links + kEventsPerLink * links;
}

WorkEstimate& WorkEstimate::operator+=(const WorkEstimate& o) {
  transfers += o.transfers;
  flows += o.flows;
  events += o.events;
  rate_computations += o.rate_computations;
  usage_links += o.usage_links;
  links += o.links;
  packets += o.packets;
  ns3_events += o.ns3_events;
  ns3_work += o.ns3_work;
  ns3_memory_bytes = std::max(ns3_memory_bytes, o.ns3_memory_bytes);
  memory_bytes += o.memory_bytes;
  return *this;
}

WorkEstimate estimate_collective_work(CollectiveOp op, double bytes, const std::vector<SpanShape>& spans,
                                      long long lanes, const ExecutionBackendSpec& exec) {
  WorkEstimate e;
  const std::size_t k = spans.size();
  if (k == 0 || lanes < 1 || !(bytes >= 0.0) || !std::isfinite(bytes)) return e;
  std::vector<double> inner(k, 1.0);
  for (std::size_t j = 1; j < k; ++j) inner[j] = inner[j - 1] * spans[j - 1].ranks;
  const double members = inner[k - 1] * spans[k - 1].ranks;
  const double lanes_d = static_cast<double>(lanes);

  // The phase list of add_cluster_collective.
  std::vector<Phase> phases;
  auto phase = [&](CollectiveOp phase_op, std::size_t j, double phase_bytes) {
    Phase p;
    p.span = &spans[j];
    p.op = phase_op;
    p.bytes = phase_bytes;
    p.ranks = spans[j].ranks;
    p.groups = lanes_d * members / spans[j].ranks;
    p.whole = spans[j].whole_dimension;
    phases.push_back(p);
  };
  std::vector<int> span_ranks;
  for (const SpanShape& span : spans) span_ranks.push_back(span.ranks);
  for (const SpanPhase& sp : span_phases(op, bytes, span_ranks)) {
    phase(sp.op, sp.span, sp.bytes);
    if (k > 1 && op == CollectiveOp::broadcast) {
      phases.back().groups = lanes_d * members / (inner[sp.span] * spans[sp.span].ranks);  // the groups holding the data
    } else if (k > 1 && op == CollectiveOp::send_recv) {
      phases.back().groups = lanes_d;
      phases.back().ranks = static_cast<int>(std::min(members, 2e9));
      phases.back().whole = false;
    }
  }

  const double chunks = std::max(1, exec.preferred_dataset_splits);
  const double active = std::min(chunks, static_cast<double>(std::max(1, exec.active_chunks_per_dimension)));
  Steps all;
  double rate_computations = 0.0;
  std::map<const NetworkDimension*, double> sets_on, links_on;  // per dimension: distinct PairSets, links each touches
  double hop_segments = 0.0, hop_cost = 0.0;  // ns-3
  for (const Phase& p : phases) {
    const NetworkDimension& dim = *p.span->dimension;
    if (p.ranks < 2) continue;
    // NCCL picks per call, from the whole size (collective_flows.cpp, chosen_protocol).
    const CollectivePhase picked = best_phase(p.op, p.bytes, p.span->ranks, dim, exec);
    Steps s;
    const int chains = phase_steps(s, dim, p.whole, p.groups, p.ranks, p.op, picked.algorithm, p.bytes / chunks);
    // Concurrent transfers on the same links are rated together: every event of one re-rates
    // all. The 2-D decomposition's four chains cross the links of one axis two at a time (on a
    // torus its two directions never share a link, on a mesh they share every one): measured
    // twice the rates of a lone ring on the torus, within the factor on the mesh.
    const double sharing = chains > 1 ? 2.0 : 1.0;
    rate_computations += chunks * s.steps * sharing * active;
    const double hops = hops_on(dim, p.span->ranks);
    const double dim_links = slice_links_and_switches(dim, p.span->ranks).first * p.groups;
    sets_on[&dim] += chunks * s.pairsets;
    if (s.pairsets > 0.0) links_on[&dim] = std::max(links_on[&dim], std::min(dim_links, hops * s.routed / s.pairsets));
    hop_segments += chunks * s.segments * hops;
    hop_cost += chunks * s.segment_cost * hops;
    all.steps += chunks * s.steps;
    all.pairsets += chunks * s.pairsets;
    all.routed += chunks * s.routed;
    all.pair_steps += chunks * s.pair_steps;
    all.wire += chunks * s.wire;
    all.groups += chunks * s.groups;
    all.groups_members += chunks * s.groups_members;
  }
  e.transfers = all.steps;
  e.flows = all.routed;
  e.rate_computations = rate_computations;
  e.events = 2.0 * e.transfers + e.rate_computations;
  double usage_link_bytes = 0.0;
  for (const auto& [dim, sets] : sets_on) {
    const double touched = links_on[dim];
    // Each usage is linked to every earlier one crossing its links, found through per-link user lists.
    e.usage_links += sets * (sets - 1.0) / 2.0 * std::max(1.0, touched);
    usage_link_bytes += sets * touched * kBytesPerUsageLink + sets * (sets - 1.0) * kBytesPerNeighbor;
  }
  // ns-3: the segments of every member pair and step, each handled at every link it crosses.
  e.packets = std::ceil(all.wire / kNs3Segment);
  e.ns3_events = hop_segments * kNs3EventsPerPacketHop;
  e.ns3_work = hop_cost * kNs3EventsPerPacketHop * kNs3UnitsPerEvent;
  e.ns3_memory_bytes = kNs3BaseBytes + kNs3BytesPerWireByte * all.wire;
  e.memory_bytes = e.transfers * kBytesPerTransfer + all.groups_members * kBytesPerMember +
                   all.groups * kBytesPerGroup + usage_link_bytes;
  return e;
}

WorkEstimate estimate_messages_work(double pairs, double bytes, double hops) {
  WorkEstimate e;
  e.transfers = 1.0;
  e.flows = pairs;
  e.rate_computations = 1.0;
  e.events = 3.0;
  e.packets = pairs * std::ceil(bytes / kNs3Segment);
  e.ns3_events = e.packets * hops * kNs3EventsPerPacketHop;
  const double buffered = std::ceil(bytes / kNs3Segment) / kNs3BufferedSegments;
  e.ns3_work = e.ns3_events * kNs3UnitsPerEvent * (1.0 + buffered * buffered);
  e.ns3_memory_bytes = kNs3BaseBytes + kNs3BytesPerWireByte * pairs * bytes;
  e.memory_bytes = kBytesPerTransfer + pairs * (2.0 * kBytesPerMember + kBytesPerGroup) +
                   pairs * hops * kBytesPerUsageLink;
  return e;
}

WorkEstimate topology_work(const std::vector<GroupSpan>& spans) {
  double gpus = 1.0;
  for (const auto& s : spans) gpus *= std::max(1, s.ranks);
  double links = 0.0, nodes = gpus;
  for (const auto& s : spans) {
    if (s.ranks < 2 || s.dimension == nullptr) continue;
    const auto [l, sw] = slice_links_and_switches(*s.dimension, s.ranks);
    const double slices = gpus / s.ranks;
    links += l * slices;
    nodes += sw * slices;
  }
  WorkEstimate e;
  e.links = links;
  e.memory_bytes = links * kBytesPerLink + nodes * kBytesPerNode;
  return e;
}

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || size <= 0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(pages) * static_cast<double>(size);
}

namespace {
std::string count(double x) {
  if (x < 1e4) return fmt::format("{:.0f}", x);
  return fmt::format("{:.2g}", x);
}
std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }
}  // namespace

void check_work(const WorkEstimate& e, NetworkBackend backend, double max_events, const std::string& what) {
  const std::string how =
      "use --backend analytical (or execution_backend.model: analytical), a smaller case, or raise the limit with "
      "--max-events N (rapidllm collective / predict) or --set execution_backend.astra.max_events=N; "
      "docs/network-simulator.md, 'Work limits'";
  const double work = e.work(backend);
  const std::string detail =
      backend == NetworkBackend::ns3
          ? fmt::format("about {} events' worth of work ({} packet-level events at {:.0f} each, more while "
                        "long messages fill the send buffers; {} packets)",
                        count(work), count(e.ns3_events), kNs3UnitsPerEvent, count(e.packets))
          : fmt::format("about {} events ({} engine events, {} member paths routed, {} usage-neighbor entries, {} "
                        "links built at {:.0f} each; {} transfers)",
                        count(work), count(e.events), count(e.flows), count(e.usage_links), count(e.links),
                        kEventsPerLink, count(e.transfers));
  const double memory = physical_memory_bytes();
  const double needed = backend == NetworkBackend::ns3 ? e.memory_bytes + e.ns3_memory_bytes : e.memory_bytes;
  if (needed > memory) {
    throw ConfigError(SourceLocation{}, "--max-events",
                      fmt::format("the {} simulation of {} needs about {} of memory, more than this machine has ({}); "
                                  "it would also take {}",
                                  to_string(backend), what, gib(needed), gib(memory), detail),
                      "use --backend analytical (or execution_backend.model: analytical) or a smaller case; "
                      "docs/network-simulator.md, 'Work limits'");
  }
  if (work > max_events) {
    throw ConfigError(SourceLocation{}, "--max-events",
                      fmt::format("the {} simulation of {} would take {}, past the limit of {} (memory about {})",
                                  to_string(backend), what, detail, count(max_events), gib(needed)),
                      how);
  }
}

}  // namespace rapidllm::network
