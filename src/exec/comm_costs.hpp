// The cluster's communicators on a network: a CommOp's group (tp, cp, dp, pp) laid out by the
// one placement, timed by the network interface, with this rank's share of its energy.
#pragma once

#include <vector>

#include "model/op_graph.hpp"
#include "network/network_api.hpp"
#include "parallel/placement.hpp"

namespace rapidllm::exec {

class CommCosts {
 public:
  CommCosts(const parallel::Placement& placement, network::NetworkApi& network)
      : placement_(placement), network_(network) {
    known_.reserve(16);
  }

  struct Cost {
    double time_s = 0.0;
    double energy_j = 0.0;  // per rank: a collective's energy over its group size; a message's own
  };
  // Zero for a group of one rank or no bytes. Remembered per (op, group, bytes): a layer
  // asks for the same exchange in both passes and its neighbours.
  [[nodiscard]] Cost cost(const model::CommOp& op);
  // Event-driven: start `op` at `start_s`, `done(end_s)` when it completes (at once for a
  // group of one rank).
  void submit(double start_s, const model::CommOp& op, network::NetworkApi::Done done) const;

  [[nodiscard]] network::NetworkApi& network() const { return network_; }

 private:
  [[nodiscard]] static bool is_message(const model::CommOp& op) { return op.op == CollectiveOp::send_recv; }
  [[nodiscard]] Cost compute_cost(const model::CommOp& op) const;

  struct Known {
    CollectiveOp op;
    Parallelism group;
    double bytes;
    Cost cost;
  };

  const parallel::Placement& placement_;
  network::NetworkApi& network_;
  std::vector<Known> known_;  // a prediction asks for a handful of distinct ops: a list is fastest
};

}  // namespace rapidllm::exec
