// Runs an op graph (model/op_graph.hpp) on one rank: the analytical evaluator applies
// closed-form overlap rules to the ops' costs on an idle network; the event-driven executor
// plays the graph on a compute stream and one channel per communicator, submitting each
// communication op to the network interface and advancing on its completions. On an idle
// network, for graphs whose overlap comes from dependencies alone (no overlap fractions),
// the two agree. docs/architecture.md draws where they sit.
#pragma once

#include <vector>

#include "compute/op_coster.hpp"
#include "exec/comm_costs.hpp"
#include "exec/graph_cost.hpp"

namespace rapidllm::exec {

// The overlap rule: `fraction` of the shorter of communication and its window is hidden.
[[nodiscard]] double exposed_comm_s(double comm_s, double window_s, double fraction);

class Executor {
 public:
  Executor(compute::OpCoster& coster, CommCosts& comms) : coster_(coster), comms_(comms) {}
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  virtual ~Executor() = default;

  [[nodiscard]] virtual GraphCost run(const model::OpGraph& graph) = 0;
  // A step-level communication op alone (pipeline sends, gradient synchronisation).
  [[nodiscard]] CommCosts::Cost comm(const model::CommOp& op) { return comms_.cost(op); }

 protected:
  compute::OpCoster& coster_;
  CommCosts& comms_;
};

// Each pass: compute plus communication, where a group of ops hidden under `pass_compute`
// or `attention` exposes sum - overlap x min(sum, window) and `pass_time` ops expose what
// exceeds the rest of their pass. Full recompute repeats the forward (prefetched gathers
// aside) in backward; attention-core recompute repeats the attention kernels.
class AnalyticalExecutor final : public Executor {
 public:
  using Executor::Executor;
  [[nodiscard]] GraphCost run(const model::OpGraph& graph) override;
};

// Discrete-event: a node starts when its dependencies have finished and its resource (the
// compute stream, or the channel of its communicator) is free, in program order per
// resource. Idle time on the compute stream is exposed communication, charged to the
// purpose of the op it waited for. Overlap fractions are not applied: only dependencies
// overlap work.
class EventExecutor final : public Executor {
 public:
  using Executor::Executor;
  [[nodiscard]] GraphCost run(const model::OpGraph& graph) override;
};

}  // namespace rapidllm::exec
