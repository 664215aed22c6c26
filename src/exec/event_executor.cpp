#include <algorithm>
#include <deque>
#include <limits>
#include <map>

#include "exec/executor.hpp"

namespace rapidllm::exec {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// One pass of a graph played on the compute stream and the communicators' channels.
class PassRun {
 public:
  PassRun(const model::OpGraph& g, model::Pass pass, const std::vector<compute::OpTime>& op_times,
          const CommCosts& comms, double compute_busy_until)
      : g_(g), pass_(pass), op_times_(op_times), comms_(comms), stream_free_s_(compute_busy_until) {
    const auto& nodes = g.nodes();
    waiting_.assign(nodes.size(), 0);
    end_s_.assign(nodes.size(), kNever);
    dependents_.resize(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].pass != pass) continue;
      ++in_pass_;
      for (const int* d = g.deps_begin(nodes[i]); d != g.deps_end(nodes[i]); ++d) {
        ++waiting_[i];
        dependents_[static_cast<std::size_t>(*d)].push_back(static_cast<int>(i));
      }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].pass == pass && waiting_[i] == 0) make_ready(static_cast<int>(i));
    }
  }

  // Exposed communication by purpose; returns the pass's makespan.
  double run(std::array<double, model::kCommPurposes>& exposed) {
    double now = 0.0;
    double last_compute_end = stream_free_s_;
    while (finished_ < in_pass_) {
      // A group of one rank completes at once, which may make more work ready.
      while (start_ready(now, exposed)) {
      }
      const double network_next = comms_.network().next_completion_s();
      const double next = std::min(compute_end_s_, network_next);
      if (next == kNever) break;  // nothing in flight: a dependency cycle (cannot happen for built graphs)
      now = next;
      if (compute_end_s_ <= network_next) {
        const int node = running_compute_;
        running_compute_ = -1;
        compute_end_s_ = kNever;
        last_compute_end = now;
        finish(node, now);
      } else {
        comms_.network().deliver_next();
      }
    }
    // The pass ends with its last op; compute idle after the last kernel waits for communication.
    const double makespan = std::max(now, last_compute_end);
    if (makespan > last_compute_end && last_comm_ >= 0) {
      exposed[purpose(last_comm_)] += makespan - last_compute_end;
    }
    return makespan;
  }

 private:
  [[nodiscard]] std::size_t purpose(int node) const {
    return static_cast<std::size_t>(g_.comms()[g_.nodes()[static_cast<std::size_t>(node)].index].purpose);
  }

  void make_ready(int node) {
    const model::Node& n = g_.nodes()[static_cast<std::size_t>(node)];
    if (n.kind == model::NodeKind::compute) {
      compute_queue_.push_back(node);
    } else {
      channel_queue_[g_.comms()[n.index].group].push_back(node);
    }
  }

  // Starts what can start at `now`; false when nothing could.
  bool start_ready(double now, std::array<double, model::kCommPurposes>& exposed) {
    bool started = false;
    if (running_compute_ < 0 && !compute_queue_.empty()) {
      started = true;
      const int node = compute_queue_.front();
      compute_queue_.pop_front();
      const double start = std::max(now, stream_free_s_);
      // Idle stream before this kernel: charged to the communication it waited for last.
      const int blocker = latest_dependency(node);
      if (start > stream_free_s_ && blocker >= 0 && g_.nodes()[static_cast<std::size_t>(blocker)].kind ==
                                                        model::NodeKind::communication) {
        exposed[purpose(blocker)] += start - stream_free_s_;
      }
      const model::Node& n = g_.nodes()[static_cast<std::size_t>(node)];
      const compute::OpTime& t = op_times_[n.index];
      running_compute_ = node;
      compute_end_s_ = start + (pass_ == model::Pass::forward ? t.forward_s : t.backward_s);
      stream_free_s_ = compute_end_s_;
    }
    for (auto& [group, queue] : channel_queue_) {
      if (channel_busy_[group] || queue.empty()) continue;
      started = true;
      const int node = queue.front();
      queue.pop_front();
      channel_busy_[group] = true;
      const model::CommOp& op = g_.comms()[g_.nodes()[static_cast<std::size_t>(node)].index];
      comms_.submit(now, op, [this, node, g = group](double end_s) {
        channel_busy_[g] = false;
        last_comm_ = node;
        finish(node, end_s);
      });
    }
    return started;
  }

  [[nodiscard]] int latest_dependency(int node) const {
    const model::Node& n = g_.nodes()[static_cast<std::size_t>(node)];
    int latest = -1;
    for (const int* d = g_.deps_begin(n); d != g_.deps_end(n); ++d) {
      if (latest < 0 || end_s_[static_cast<std::size_t>(*d)] > end_s_[static_cast<std::size_t>(latest)]) latest = *d;
    }
    return latest;
  }

  void finish(int node, double end_s) {
    end_s_[static_cast<std::size_t>(node)] = end_s;
    ++finished_;
    for (int d : dependents_[static_cast<std::size_t>(node)]) {
      if (--waiting_[static_cast<std::size_t>(d)] == 0) make_ready(d);
    }
  }

  const model::OpGraph& g_;
  model::Pass pass_;
  const std::vector<compute::OpTime>& op_times_;
  const CommCosts& comms_;
  std::vector<int> waiting_;
  std::vector<double> end_s_;
  std::vector<std::vector<int>> dependents_;
  std::deque<int> compute_queue_;
  std::map<Parallelism, std::deque<int>> channel_queue_;
  std::map<Parallelism, bool> channel_busy_;
  std::size_t in_pass_ = 0;
  std::size_t finished_ = 0;
  int running_compute_ = -1;
  double compute_end_s_ = kNever;
  double stream_free_s_ = 0.0;
  int last_comm_ = -1;
};

bool has_pass(const model::OpGraph& g, model::Pass pass) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [pass](const model::Node& n) { return n.pass == pass; });
}

}  // namespace

GraphCost EventExecutor::run(const model::OpGraph& g) {
  GraphCost out = schedule_free_cost(g, coster_, comms_, nullptr);
  std::vector<compute::OpTime> op_times;
  op_times.reserve(g.ops().size());
  for (const auto& op : g.ops()) op_times.push_back(coster_.time(op));

  PassRun forward(g, model::Pass::forward, op_times, comms_, 0.0);
  (void)forward.run(out.forward_comm_s);
  if (g.recompute == model::Recompute::full) {
    // Backward first re-runs the forward: the same ops, prefetched gathers aside (they are
    // still resident), so replay the pass on a graph without them.
    model::OpGraph replay;
    for (const auto& op : g.ops()) (void)replay.add_op(op);
    std::vector<int> id(g.nodes().size(), -1);
    for (std::size_t i = 0; i < g.nodes().size(); ++i) {
      const model::Node& n = g.nodes()[i];
      if (n.pass != model::Pass::forward) continue;
      int dep = -1;
      for (const int* d = g.deps_begin(n); d != g.deps_end(n); ++d) dep = std::max(dep, id[static_cast<std::size_t>(*d)]);
      if (n.kind == model::NodeKind::compute) {
        id[i] = replay.add_compute(n.index, model::Pass::forward, {dep});
      } else if (g.comms()[n.index].hidden_under != model::HiddenUnder::pass_time) {
        id[i] = replay.add_comm(g.comms()[n.index], model::Pass::forward, {dep});
      }
    }
    PassRun again(replay, model::Pass::forward, op_times, comms_, 0.0);
    std::array<double, model::kCommPurposes> replay_exposed{};  // part of the recompute time
    out.recompute_s = again.run(replay_exposed);
  }
  if (has_pass(g, model::Pass::backward)) {
    PassRun backward(g, model::Pass::backward, op_times, comms_, out.recompute_s);
    (void)backward.run(out.backward_comm_s);
  }
  return out;
}

}  // namespace rapidllm::exec
