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
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/network_backend.hpp"

namespace rapidllm::network {

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
  // When the earliest submission in flight completes (infinity when none is).
  [[nodiscard]] virtual double next_completion_s() const = 0;
  // Delivers that completion: calls its `done` (which may submit more).
  virtual void deliver_next() = 0;
};

// analytical: closed-form alpha-beta collectives (analytical_collectives.hpp); submissions
// complete after their idle-network time (no congestion in this model by construction).
// flow: each collective simulated flow by flow (max-min fair sharing, routing around
// `network.faulty_links`) on the topology of its group's dimensions; ns3: packet by packet
// in the separate rapidllm-ns3 executable (`ns3_executable`, empty = ns3_executable()).
// Simulated results are cached per (op, bytes, group); submissions complete after that
// time: collectives in flight together do not yet share links.
[[nodiscard]] std::unique_ptr<NetworkApi> make_network(NetworkBackend backend, const NetworkSpec& network,
                                                       const ExecutionBackendSpec& exec,
                                                       std::string ns3_executable = "");

// Network energy of a collective, all ranks of the group: every rank takes part in each
// phase, sending the phase's bus-factor share of that phase's buffer over its dimension.
[[nodiscard]] double collective_energy_j(const CollectiveEstimate& e, const std::vector<GroupSpan>& group);
// One message of `bytes` across `dimension`.
[[nodiscard]] double message_energy_j(const NetworkDimension& dimension, double bytes);

}  // namespace rapidllm::network
