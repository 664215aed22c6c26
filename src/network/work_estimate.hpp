// What a flow or ns-3 simulation of one collective will cost, worked out from the collective,
// its algorithms and the topology's shape before anything is built: the network backends
// refuse a simulation past the configured limit (execution_backend.astra.max_events, the CLI's
// --max-events) or past this machine's memory, instead of running for hours or dying in
// std::bad_alloc. The counts mirror collective_flows.cpp (which transfers, which PairSets)
// and flow_engine.cpp (which events); docs/network-simulator.md, "Work limits", states how
// close they come.
#pragma once

#include <string>
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/network_backend.hpp"

namespace rapidllm::network {

struct WorkEstimate {
  double transfers = 0.0;          // plan steps (FlowPlan::transfers)
  double flows = 0.0;              // member paths routed: the pairs of every distinct PairSet
  double events = 0.0;             // flow-engine events: starts, drains (superseded ones too), completions
  double rate_computations = 0.0;  // transfer rates set (FlowEngine::rate_computations)
  double usage_links = 0.0;        // neighbor-list entries between routed usages (quadratic in distinct steps)
  double links = 0.0;              // directed links of the topology built for it
  double packets = 0.0;            // ns-3: segments put on the wire
  double ns3_events = 0.0;         // ns-3: scheduler events (per packet and hop, acknowledgements included)
  double ns3_work = 0.0;           // ns-3: those events in flow-event units of wall time (see work())
  double ns3_memory_bytes = 0.0;   // ns-3: the rapidllm-ns3 process (its socket buffers hold a step's bytes)
  double memory_bytes = 0.0;       // peak memory of the simulation, topology included

  // The number the limit counts for `backend`, in flow-engine events' worth of wall time:
  // flow = events + member paths routed + neighbor entries + kEventsPerLink per topology link
  // (each about 0.2 us on one core); ns3 = its packet-level events at about 25 units each,
  // growing with the square of the segments a connection buffers per step.
  [[nodiscard]] double work(NetworkBackend backend) const;
  WorkEstimate& operator+=(const WorkEstimate& o);
};

// One span of a collective's group: `ranks` members on `dimension`, and whether that is the
// whole dimension (the topology's slices; a Torus2D/Mesh2D then runs its 2-D decomposition).
struct SpanShape {
  const NetworkDimension* dimension = nullptr;
  int ranks = 1;
  bool whole_dimension = true;
};

// The work of one collective over `lanes` side-by-side instances of `spans` (innermost first),
// as add_cluster_collective plans it with exec's algorithms and chunking. Memory counts the
// plan, routing and engine, not the topology (topology_work).
[[nodiscard]] WorkEstimate estimate_collective_work(CollectiveOp op, double bytes, const std::vector<SpanShape>& spans,
                                                    long long lanes, const ExecutionBackendSpec& exec);

// Point-to-point messages (add_messages): `pairs` member pairs, `bytes` each, paths of about `hops` links.
[[nodiscard]] WorkEstimate estimate_messages_work(double pairs, double bytes, double hops);

// Building one directed link (its hash-indexed entry, with the cache misses of a big graph)
// costs about as much wall time as this many flow-engine events.
inline constexpr double kEventsPerLink = 12.0;

// The Topology built from `spans` (each spanning its whole dimension): its links, and its
// memory with the per-link engine tables (usage lists, rate filling, routing scratch).
[[nodiscard]] WorkEstimate topology_work(const std::vector<GroupSpan>& spans);

// Throws ConfigError (exit 2) when `e` exceeds `max_events` for `backend`, or needs more memory
// than this machine has: the message gives the estimate, the limit, and how to proceed
// (--max-events N / execution_backend.astra.max_events, or the analytical backend).
// `what` names the simulation ("flow all_reduce over 1000000 ranks").
void check_work(const WorkEstimate& e, NetworkBackend backend, double max_events, const std::string& what);

// Physical memory of this machine in bytes (infinity when unknown).
[[nodiscard]] double physical_memory_bytes();

}  // namespace rapidllm::network
