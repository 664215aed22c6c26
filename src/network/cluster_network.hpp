// The whole cluster's network as one topology (every dimension at its full size, GPU id =
// rank, `network.faulty_links` in those ids), on which communicator instances run flow by
// flow. Two ways to share it:
//   isolated: each collective or message is simulated alone on its instance's GPUs and
//             cached (RAPID-LLM's hybrid and full_astrasim_hierarchical: no traffic of one
//             communicator meets another's; a fault slows the instances whose paths cross it);
//   shared:   everything in flight shares the links, max-min fair (full_astrasim_flattened:
//             PP sends and DP reductions on one fat-tree slow each other). Instances whose
//             links no other instance of the job uses are still timed alone: nothing can
//             meet them there, so that is exact and keeps a 1024-GPU step cheap.
#pragma once

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "network/flow_plan.hpp"
#include "network/queued_network.hpp"
#include "network/topology.hpp"

namespace rapidllm::network {

class FlowSimulator;
class FlowEngine;

enum class Sharing { isolated, shared };

// Throws ConfigError (key network.faulty_links[i]) for a faulty link that names no cable of
// the cluster a job of `gpus` GPUs runs on: for networks that model no links themselves,
// a mistyped node id is still caught.
void check_cluster_faults(const NetworkSpec& network, const std::vector<long long>& capacities, long long gpus);

class ClusterNetwork final : public QueuedNetwork {
 public:
  // `capacities`: GPUs each dimension holds (parallel::Placement::capacities()), of which
  // the job uses `gpus`. Throws ConfigError for a faulty link that names no cable of this
  // cluster.
  ClusterNetwork(const NetworkSpec& network, const ExecutionBackendSpec& exec, const std::vector<long long>& capacities,
                 long long gpus, Sharing sharing);
  ~ClusterNetwork() override;

  [[nodiscard]] const Topology& topology() const { return topology_; }

  // Shared mode: the communicator instances and messages the job will use, so instances
  // whose links nobody else touches can be timed alone. Without it everything is shared.
  void plan_job(const std::vector<GroupInstance>& instances,
                const std::vector<std::pair<int, int>>& messages) override;

  // A collective on the instance of GPU 0 (the spans laid out from GPU 0 up).
  CollectiveEstimate collective(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group) override;
  // A message from GPU 0 to its neighbour on `dimension`.
  double message_s(const NetworkDimension& dimension, double bytes) override;
  [[nodiscard]] bool sees_instances() const override { return true; }
  CollectiveEstimate collective_on(CollectiveOp op, double bytes, const GroupInstance& g) override;
  void submit_collective_on(double start_s, CollectiveOp op, double bytes, const GroupInstance& g,
                            Done done) override;
  void submit_messages(double start_s, const NetworkDimension& dimension, const std::vector<std::pair<int, int>>& pairs,
                       double bytes, Done done) override;
  [[nodiscard]] double next_completion_s() const override;
  void deliver_next() override;

  // Simulated work so far: collectives and message batches run alone (cache misses) and
  // submissions that shared the network.
  [[nodiscard]] std::size_t isolated_runs() const { return isolated_runs_; }
  [[nodiscard]] std::size_t shared_submissions() const { return shared_submissions_; }

 private:
  using Lanes = std::vector<std::vector<int>>;
  [[nodiscard]] std::size_t dimension_index(const NetworkDimension& d) const;
  [[nodiscard]] GroupInstance first_instance(const std::vector<GroupSpan>& spans) const;
  [[nodiscard]] bool runs_alone(const Lanes& lanes) const;
  void plan_collective(FlowPlan& plan, CollectiveOp op, double bytes, const GroupInstance& g) const;
  void submit_shared(double start_s, FlowPlan plan, Done done);
  void check_messages(std::size_t pairs, double bytes) const;
  double messages_alone_s(std::size_t dimension, const std::vector<std::pair<int, int>>& pairs, double bytes);

  const ExecutionBackendSpec& exec_;
  Topology topology_;
  Sharing sharing_;
  std::unique_ptr<FlowSimulator> simulator_;
  std::unique_ptr<FlowEngine> engine_;
  std::map<std::tuple<CollectiveOp, double, Lanes>, CollectiveEstimate> collectives_;
  std::map<std::tuple<std::size_t, double, std::vector<std::pair<int, int>>>, double> messages_;
  // Shared mode: each distinct collective or message batch is planned once; submissions
  // copy the plan, whose PairSets (shared) the engine has routed already.
  std::map<std::tuple<CollectiveOp, double, Lanes>, FlowPlan> shared_collectives_;
  std::map<std::tuple<std::size_t, double, std::vector<std::pair<int, int>>>, FlowPlan> shared_messages_;
  std::map<Lanes, bool> private_;  // plan_job's verdict per instance (lanes; a message: {{src, dst}})
  bool planned_ = false;
  std::size_t isolated_runs_ = 0;
  std::size_t shared_submissions_ = 0;
};

}  // namespace rapidllm::network
