#include "network/cluster_network.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "network/collective_flows.hpp"
#include "network/flow_engine.hpp"
#include "network/flow_simulator.hpp"
#include "network/routing.hpp"
#include "network/work_estimate.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {

// Every dimension of the cluster: a fixed size is physical (a node has 8 GPUs whether the
// job uses them or not); an `auto` one holds only what the job's `gpus` need beyond the
// dimensions inside it (the placement may size it for more: a parallelism split over
// dimensions counts in full on each).
std::vector<GroupSpan> whole_cluster(const NetworkSpec& network, const std::vector<long long>& capacities,
                                     long long gpus) {
  std::vector<GroupSpan> spans;
  long long inner = 1;
  for (std::size_t d = 0; d < network.dimensions.size(); ++d) {
    long long c = capacities.at(d);
    if (network.dimensions[d].size.empty()) c = std::min(c, std::max(1LL, (gpus + inner - 1) / inner));
    spans.push_back(GroupSpan{&network.dimensions[d], static_cast<int>(c)});
    inner *= c;
  }
  return spans;
}

CollectiveEstimate estimate_of(CollectiveOp op, double bytes, int ranks, const FlowPlan& plan,
                               const SimulationResult& r) {
  CollectiveEstimate e;
  e.op = op;
  e.bytes = bytes;
  e.ranks = ranks;
  e.time_s = r.time_s;
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    e.phases.push_back(plan.phases[p].info);
    e.phases.back().time_s = p < r.phase_time_s.size() ? r.phase_time_s[p] : 0.0;
  }
  if (e.time_s > 0.0) {
    e.algbw_bytes_per_s = bytes / e.time_s;
    e.busbw_bytes_per_s = e.algbw_bytes_per_s * bus_bandwidth_factor(op, ranks);
  }
  return e;
}

// The whole cluster's topology, once its memory is known to fit (the links of 2^28 GPUs do not).
std::vector<GroupSpan> checked_cluster(const NetworkSpec& network, const ExecutionBackendSpec& exec,
                                       const std::vector<long long>& capacities, long long gpus) {
  auto spans = whole_cluster(network, capacities, gpus);
  check_work(topology_work(spans), NetworkBackend::flow, exec.max_events, fmt::format("the cluster network of {} GPUs", gpus));
  return spans;
}

}  // namespace

void check_cluster_faults(const NetworkSpec& network, const std::vector<long long>& capacities, long long gpus) {
  if (network.faulty_links.empty()) return;
  // On the healthy topology: a fault between two nodes no cable joins is the config's
  // mistake (ConfigError naming the entry), not an infeasible scenario.
  check_faults_exist(Topology(whole_cluster(network, capacities, gpus), {}), network.faulty_links,
                     network.faulty_links_source);
}

ClusterNetwork::ClusterNetwork(const NetworkSpec& network, const ExecutionBackendSpec& exec,
                               const std::vector<long long>& capacities, long long gpus, Sharing sharing)
    : exec_(exec),
      topology_((check_cluster_faults(network, capacities, gpus), checked_cluster(network, exec, capacities, gpus)),
                network.faulty_links),
      sharing_(sharing) {
  simulator_ = std::make_unique<FlowSimulator>(topology_);
  if (sharing_ == Sharing::shared) engine_ = std::make_unique<FlowEngine>(topology_);
}

ClusterNetwork::~ClusterNetwork() = default;

std::size_t ClusterNetwork::dimension_index(const NetworkDimension& d) const {
  const auto& dims = topology_.dimensions();
  for (std::size_t j = 0; j < dims.size(); ++j) {
    if (dims[j].spec == &d) return j;
  }
  throw InfeasibleError(fmt::format("network dimension '{}' is not part of the cluster topology", d.id));
}

GroupInstance ClusterNetwork::first_instance(const std::vector<GroupSpan>& spans) const {
  GroupInstance g;
  g.spans = spans;
  std::vector<int> lane{0};
  for (const auto& span : spans) {
    const int stride = topology_.dimensions()[dimension_index(*span.dimension)].stride;
    std::vector<int> next;
    next.reserve(lane.size() * static_cast<std::size_t>(span.ranks));
    for (int k = 0; k < span.ranks; ++k) {
      for (int m : lane) next.push_back(m + k * stride);
    }
    lane = std::move(next);
  }
  g.lanes.push_back(std::move(lane));
  return g;
}

void ClusterNetwork::plan_collective(FlowPlan& plan, CollectiveOp op, double bytes, const GroupInstance& g) const {
  // Refused before the plan is built when it would pass execution_backend.astra.max_events.
  std::vector<SpanShape> shape;
  long long ranks = 1;
  for (const auto& span : g.spans) {
    const std::size_t d = dimension_index(*span.dimension);
    shape.push_back(SpanShape{span.dimension, span.ranks, span.ranks == topology_.dimensions()[d].ranks});
    ranks *= span.ranks;
  }
  check_work(estimate_collective_work(op, bytes, shape, static_cast<long long>(g.lanes.size()), exec_),
             NetworkBackend::flow, exec_.max_events,
             fmt::format("{} of {} B over {} ranks x {} lanes (execution_backend.astra.mode {})", to_string(op), bytes,
                         ranks, g.lanes.size(), to_string(exec_.mode)));
  ClusterGroup cg;
  for (const auto& span : g.spans) cg.spans.push_back(ClusterSpan{dimension_index(*span.dimension), span.ranks});
  cg.lanes = g.lanes;
  (void)add_cluster_collective(plan, topology_, cg, op, bytes, exec_);
}

CollectiveEstimate ClusterNetwork::collective(CollectiveOp op, double bytes, const std::vector<GroupSpan>& group) {
  if (group.empty()) throw InfeasibleError("collective group spans no network dimension");
  return collective_on(op, bytes, first_instance(group));
}

CollectiveEstimate ClusterNetwork::collective_on(CollectiveOp op, double bytes, const GroupInstance& g) {
  auto key = std::make_tuple(op, bytes, g.lanes);
  if (auto it = collectives_.find(key); it != collectives_.end()) return it->second;
  FlowPlan plan;
  plan_collective(plan, op, bytes, g);
  const SimulationResult r = simulator_->run(plan);
  ++isolated_runs_;
  const int ranks = g.lanes.empty() ? 0 : static_cast<int>(g.lanes.front().size());
  return collectives_.emplace(std::move(key), estimate_of(op, bytes, ranks, plan, r)).first->second;
}

double ClusterNetwork::messages_alone_s(std::size_t dimension, const std::vector<std::pair<int, int>>& pairs,
                                        double bytes) {
  auto key = std::make_tuple(dimension, bytes, pairs);
  if (auto it = messages_.find(key); it != messages_.end()) return it->second;
  FlowPlan plan;
  check_messages(pairs.size(), bytes);
  (void)add_messages(plan, topology_, dimension, pairs, bytes, exec_);
  const double t = simulator_->run(plan).time_s;
  ++isolated_runs_;
  return messages_.emplace(std::move(key), t).first->second;
}

double ClusterNetwork::message_s(const NetworkDimension& dimension, double bytes) {
  if (bytes <= 0.0) return 0.0;
  const std::size_t d = dimension_index(dimension);
  const auto& dim = topology_.dimensions()[d];
  if (dim.ranks < 2) return 0.0;
  return messages_alone_s(d, {{0, dim.stride}}, bytes);
}

void ClusterNetwork::check_messages(std::size_t pairs, double bytes) const {
  check_work(estimate_messages_work(static_cast<double>(pairs), bytes, 2.0), NetworkBackend::flow, exec_.max_events,
             fmt::format("{} messages of {} B", pairs, bytes));
}

void ClusterNetwork::plan_job(const std::vector<GroupInstance>& instances,
                              const std::vector<std::pair<int, int>>& messages) {
  // Isolated: every instance runs alone whatever it shares (runs_alone), so no footprint is
  // needed; routing every member pair of a 128-rank DP group costs seconds at 16k GPUs.
  if (sharing_ == Sharing::isolated) return;
  // Each instance and message once: a group reached from several units (every DP replica's
  // unit lists its DP communicator) shares with itself only in program order, so it is
  // still alone.
  std::set<Lanes> groups;
  for (const auto& g : instances) groups.insert(g.lanes);
  const std::set<std::pair<int, int>> pairs(messages.begin(), messages.end());
  // Every link each instance's member pairs can use, and how many instances use it: every
  // ordered member pair of every lane is routed, so count them against the limit first.
  WorkEstimate footprint_work;
  for (const Lanes& lanes : groups) {
    for (const auto& lane : lanes) footprint_work.flows += static_cast<double>(lane.size()) * static_cast<double>(lane.size());
  }
  footprint_work.flows += static_cast<double>(pairs.size());
  check_work(footprint_work, NetworkBackend::flow, exec_.max_events,
             fmt::format("the link footprints of {} communicator instances", groups.size()));
  Router router(topology_);
  std::vector<int> owners(topology_.links().size(), 0);
  std::vector<std::pair<Lanes, std::vector<int>>> footprints;  // key, links
  footprints.reserve(groups.size() + pairs.size());
  std::vector<LinkShare> path;
  const auto footprint = [&](Lanes key, const auto& for_each_pair) {
    std::vector<int> links;
    for_each_pair([&](int a, int b) {
      path.clear();
      (void)router.route(a, b, path);
      for (const auto& ls : path) links.push_back(ls.link);
    });
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    for (int l : links) ++owners[static_cast<std::size_t>(l)];
    footprints.emplace_back(std::move(key), std::move(links));
  };
  for (const Lanes& lanes : groups) {
    footprint(lanes, [&](auto&& f) {
      for (const auto& lane : lanes) {
        for (int a : lane) {
          for (int b : lane) {
            if (a != b) f(a, b);
          }
        }
      }
    });
  }
  for (const auto& [src, dst] : pairs) footprint(Lanes{{src, dst}}, [&](auto&& f) { f(src, dst); });
  private_.clear();
  for (const auto& [key, links] : footprints) {
    const bool alone = std::all_of(links.begin(), links.end(), [&](int l) { return owners[static_cast<std::size_t>(l)] == 1; });
    auto [it, inserted] = private_.emplace(key, alone);
    if (!inserted) it->second = it->second && alone;  // a message keyed as a two-rank group
  }
  planned_ = true;
}

bool ClusterNetwork::runs_alone(const Lanes& lanes) const {
  if (sharing_ == Sharing::isolated) return true;
  if (!planned_) return false;
  const auto it = private_.find(lanes);
  return it != private_.end() && it->second;
}

void ClusterNetwork::submit_shared(double start_s, FlowPlan plan, Done done) {
  ++shared_submissions_;
  engine_->submit(start_s, std::move(plan), std::move(done));
}

double ClusterNetwork::next_completion_s() const {
  const double queued = QueuedNetwork::next_completion_s();
  return engine_ ? std::min(queued, engine_->next_event_s()) : queued;
}

void ClusterNetwork::deliver_next() {
  // Completions timed alone and the shared engine's events, in time order (ties: the queue).
  if (!engine_ || QueuedNetwork::next_completion_s() <= engine_->next_event_s()) {
    QueuedNetwork::deliver_next();
  } else {
    engine_->advance();
  }
}

void ClusterNetwork::submit_collective_on(double start_s, CollectiveOp op, double bytes, const GroupInstance& g,
                                          Done done) {
  if (runs_alone(g.lanes)) {
    push(start_s + collective_on(op, bytes, g).time_s, std::move(done));
    return;
  }
  auto key = std::make_tuple(op, bytes, g.lanes);
  auto it = shared_collectives_.find(key);
  if (it == shared_collectives_.end()) {
    FlowPlan plan;
    plan_collective(plan, op, bytes, g);
    it = shared_collectives_.emplace(std::move(key), std::move(plan)).first;
  }
  submit_shared(start_s, it->second, std::move(done));
}

void ClusterNetwork::submit_messages(double start_s, const NetworkDimension& dimension,
                                     const std::vector<std::pair<int, int>>& pairs, double bytes, Done done) {
  const std::size_t d = dimension_index(dimension);
  const bool alone = std::all_of(pairs.begin(), pairs.end(), [&](const auto& p) {
    return runs_alone({{p.first, p.second}});
  });
  if (alone) {
    push(start_s + messages_alone_s(d, pairs, bytes), std::move(done));
    return;
  }
  auto key = std::make_tuple(d, bytes, pairs);
  auto it = shared_messages_.find(key);
  if (it == shared_messages_.end()) {
    FlowPlan plan;
    check_messages(pairs.size(), bytes);
    (void)add_messages(plan, topology_, d, pairs, bytes, exec_);
    it = shared_messages_.emplace(std::move(key), std::move(plan)).first;
  }
  submit_shared(start_s, it->second, std::move(done));
}

}  // namespace rapidllm::network
