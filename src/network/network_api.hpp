// The one interface through which everything outside network/ talks to a network model, in
// the spirit of ASTRA-sim's AstraNetworkAPI: ask what a collective or a message costs on an
// idle network (the analytical evaluator's question), or submit one at a time t and be
// called back when it completes (the event-driven executor's). The analytical, flow and
// ns-3 backends implement it over the cluster's network dimensions; a group is given as its
// spans over those dimensions (parallel::Placement lays every communicator out).
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/network_backend.hpp"
#include "network/work_meter.hpp"

namespace rapidllm::network {

// One instance of a communicator in the cluster: its spans over the network dimensions and
// its lanes, the member lists (cluster GPU ids = ranks, group order) that run a collective
// side by side (the TP lanes of a pipeline stage each reduce over their own DP group).
struct GroupInstance {
  std::vector<GroupSpan> spans;
  std::vector<std::vector<int>> lanes;
};

class NetworkApi {
 public:
  using Done = std::function<void(double end_s)>;

  NetworkApi() = default;
  NetworkApi(const NetworkApi&) = delete;
  NetworkApi& operator=(const NetworkApi&) = delete;
  virtual ~NetworkApi() = default;

  // One collective (nccl-tests size) over `group` with nothing else on the network.
  [[nodiscard]] virtual CollectiveEstimate collective(CollectiveOp op, double bytes,
                                                      const std::vector<GroupSpan>& group) = 0;
  // One message of `bytes` to a neighbour across `dimension` (a pipeline send), alone.
  [[nodiscard]] virtual double message_s(const NetworkDimension& dimension, double bytes) = 0;

  // Event-driven use. A submission starts at `start_s` (not before the last completion
  // delivered); `done` is called from deliver_next() with its completion time.
  virtual void submit_collective(double start_s, CollectiveOp op, double bytes, const std::vector<GroupSpan>& group,
                                 Done done) = 0;
  virtual void submit_message(double start_s, const NetworkDimension& dimension, double bytes, Done done) = 0;
  // When the next submission in flight may complete (infinity when none is in flight).
  [[nodiscard]] virtual double next_completion_s() const = 0;
  // Advances to that time: calls the `done` of what completed then (which may submit more).
  virtual void deliver_next() = 0;

  // The same on a given instance of a communicator. Networks that see no cluster topology
  // (analytical, per-communicator simulation) need only its spans; one that simulates the
  // whole cluster runs it on the instance's GPUs, where faults and other traffic lie, and
  // says so here (callers skip building instances for the others: predictions are hot).
  [[nodiscard]] virtual bool sees_instances() const { return false; }
  [[nodiscard]] virtual CollectiveEstimate collective_on(CollectiveOp op, double bytes, const GroupInstance& g) {
    return collective(op, bytes, g.spans);
  }
  virtual void submit_collective_on(double start_s, CollectiveOp op, double bytes, const GroupInstance& g, Done done) {
    submit_collective(start_s, op, bytes, g.spans, std::move(done));
  }
  // The communicator instances and messages a job will use, before it submits any: a
  // network that shares links between them can tell which never meet. Others ignore it.
  virtual void plan_job(const std::vector<GroupInstance>& instances, const std::vector<std::pair<int, int>>& messages) {
    (void)instances;
    (void)messages;
  }
  // Messages of `bytes` from src to dst GPU (cluster ids) all sent at once across `dimension`
  // (the TP lanes of a pipeline stage sending activations to the next stage).
  virtual void submit_messages(double start_s, const NetworkDimension& dimension,
                               const std::vector<std::pair<int, int>>& pairs, double bytes, Done done) {
    (void)pairs;
    submit_message(start_s, dimension, bytes, std::move(done));
  }
};

// analytical: closed-form alpha-beta collectives (analytical_collectives.hpp); submissions
// complete after their idle-network time (no congestion in this model by construction).
// flow: each collective simulated flow by flow (max-min fair sharing, routing around
// `network.faulty_links`) on the topology of its group's dimensions; ns3: packet by packet
// in the separate rapidllm-ns3 executable (`ns3_executable`, empty = ns3_executable()).
// Simulated results are cached per (op, bytes, group); submissions complete after that
// time: collectives in flight together do not yet share links. A simulation whose estimated
// work (work_estimate.hpp) passes exec.max_events or this machine's memory is refused with a
// ConfigError before anything is built; `progress` hears how far each simulation has got.
[[nodiscard]] std::unique_ptr<NetworkApi> make_network(NetworkBackend backend, const NetworkSpec& network,
                                                       const ExecutionBackendSpec& exec,
                                                       std::string ns3_executable = "", ProgressFn progress = {});

// Network energy of a collective, all ranks of the group: every rank takes part in each
// phase, sending the phase's bus-factor share of that phase's buffer over its dimension.
[[nodiscard]] double collective_energy_j(const CollectiveEstimate& e, const std::vector<GroupSpan>& group);
// One message of `bytes` across `dimension`.
[[nodiscard]] double message_energy_j(const NetworkDimension& dimension, double bytes);

}  // namespace rapidllm::network
