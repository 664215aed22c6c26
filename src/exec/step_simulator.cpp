#include "exec/step_simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "exec/program_index.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::exec {

namespace {

using namespace detail;  // the program index (program_index.hpp)

constexpr double kNever = std::numeric_limits<double>::infinity();

class Simulation {
 public:
  Simulation(const StepGraph& g, const parallel::Placement& placement, network::NetworkApi& net,
             const StepSimOptions& options, int vpp)
      : g_(g), placement_(placement), net_(net), options_(options), vpp_(vpp) {
    for (std::size_t s = 0; s < g.stages.size(); ++s) index_.push_back(index_program(g.stages[s], static_cast<int>(s), g.pp));
    make_units();
    plan_network();
  }

  StepSimResult run() {
    for (std::size_t u = 0; u < units_.size(); ++u) {
      const auto& ix = index_[static_cast<std::size_t>(units_[u].stage)];
      for (std::size_t i = 0; i < ix.wait_count.size(); ++i) {
        if (ix.wait_count[i] == 0 && ix.resource[i] == no_resource) become_ready(static_cast<int>(u), static_cast<int>(i), 0.0);
      }
      for (int r = 0; r < kResources; ++r) try_start(static_cast<int>(u), static_cast<Resource>(r), 0.0);
    }
    double now = 0.0;
    while (true) {
      const double tc = compute_done_.empty() ? kNever : compute_done_.top().first;
      const double tn = net_.next_completion_s();
      if (tc == kNever && tn == kNever) break;
      if (tc <= tn) {
        now = tc;
        const int u = compute_done_.top().second;
        compute_done_.pop();
        Unit& unit = units_[static_cast<std::size_t>(u)];
        const int node = unit.running_compute;
        unit.running_compute = -1;
        unit.busy[compute_stream] = false;
        finish(u, node, now);
        try_start(u, compute_stream, now);
      } else {
        now = tn;
        net_.deliver_next();
      }
    }
    return result();
  }

 private:
  struct Unit {
    int stage = 0;
    int base = 0;                 // rank of its first TP lane
    std::vector<int> lanes;       // its TP lanes' ranks
    std::array<std::optional<network::GroupInstance>, 5> instances;  // per Parallelism, on first use
    std::vector<int> waiting;     // per node: dependencies not yet finished
    std::vector<double> start_s, end_s;
    std::array<std::size_t, kResources + 1> cursor{};
    std::array<bool, kResources> busy{};
    std::array<int, kResources> issued{};  // collectives issued per channel (barrier sequence)
    int running_compute = -1;
    std::size_t fill_ready = 0;  // weight-gradient nodes ready and not started
    double stream_free_s = 0.0;
    double busy_compute_s = 0.0;
    std::array<double, kOpClasses> compute_s{};
    double recompute_s = 0.0, optimizer_s = 0.0, bubble_s = 0.0;
    std::array<double, model::kCommPurposes> exposed{};
    int live = 0, peak_live = 0;
    double last_end_s = 0.0;
  };

  struct Barrier {
    int needed = 0;
    double latest_s = 0.0;
    std::vector<std::pair<int, int>> members;  // (unit, node)
  };

  [[nodiscard]] int unit_of_base(int base) const {
    const auto it = unit_by_base_.find(base);
    return it == unit_by_base_.end() ? -1 : it->second;
  }

  // A replica: the TP group of a rank with its pipeline position dropped (one DP replica
  // and CP rank), named by its stage-0 TP base.
  [[nodiscard]] int replica_of(int rank) const {
    const int tp_base = placement_.members(Parallelism::tp, rank).front();
    return placement_.members(Parallelism::pp, tp_base).front();
  }

  void make_units() {
    const int ranks = g_.num_ranks;
    std::set<int> distinct;  // replicas simulated one by one
    for (int gpu : options_.distinct_gpus) {
      if (gpu >= 0 && gpu < ranks) distinct.insert(replica_of(gpu));
    }
    int representative = -1;  // the healthy replica standing for the others
    std::vector<int> bases;
    for (int r = 0; r < ranks; ++r) {
      if (placement_.members(Parallelism::tp, r).front() != r) continue;
      bases.push_back(r);
      const int replica = replica_of(r);
      if (representative < 0 && distinct.count(replica) == 0) representative = replica;
    }
    std::vector<int> stage_unit(g_.stages.size(), -1);
    for (int r : bases) {
      const int replica = replica_of(r);
      if (options_.symmetric && replica != representative && distinct.count(replica) == 0) continue;
      const int stage = g_.stage_of_rank(r);
      Unit u;
      u.stage = stage;
      u.base = r;
      u.lanes = placement_.members(Parallelism::tp, r);
      const std::size_t n = g_.stages[static_cast<std::size_t>(stage)].nodes.size();
      u.waiting = index_[static_cast<std::size_t>(stage)].wait_count;
      u.end_s.assign(n, kNever);
      u.start_s.assign(n, 0.0);
      unit_by_base_[r] = static_cast<int>(units_.size());
      if (replica == representative) stage_unit[static_cast<std::size_t>(stage)] = static_cast<int>(units_.size());
      units_.push_back(std::move(u));
    }
    // Every other TP group is played by its stage's representative.
    for (int r : bases) {
      if (unit_by_base_.count(r) == 0) unit_by_base_[r] = stage_unit[static_cast<std::size_t>(g_.stage_of_rank(r))];
    }
  }

  // The instance of `p` a unit's collectives run on: one lane per TP lane.
  // Built once per unit and communicator: every collective of the step asks for it.
  const network::GroupInstance& instance(Unit& u, Parallelism p) const {
    auto& cached = u.instances[static_cast<std::size_t>(p)];
    if (!cached) {
      network::GroupInstance g;
      g.spans = placement_.group(p);
      if (p == Parallelism::tp) {
        g.lanes.push_back(u.lanes);
      } else {
        for (int r : u.lanes) g.lanes.push_back(placement_.members(p, r));
      }
      cached = std::move(g);
    }
    return *cached;
  }

  std::vector<std::pair<int, int>> message_pairs(const Unit& u, int peer_stage) const {
    std::vector<std::pair<int, int>> pairs;
    for (int r : u.lanes) pairs.emplace_back(r, g_.peer_rank(r, peer_stage));
    return pairs;
  }

  void plan_network() {
    std::vector<network::GroupInstance> instances;
    std::vector<std::pair<int, int>> messages;
    for (Unit& u : units_) {
      const StageProgram& prog = g_.stages[static_cast<std::size_t>(u.stage)];
      std::array<bool, 5> used{};
      std::vector<int> peers;
      for (const StepNode& n : prog.nodes) {
        if (n.kind == StepNodeKind::collective) used[static_cast<std::size_t>(n.group)] = true;
        if (n.kind == StepNodeKind::send && std::find(peers.begin(), peers.end(), n.peer_stage) == peers.end()) {
          peers.push_back(n.peer_stage);
        }
      }
      for (std::size_t p = 0; p < used.size(); ++p) {
        if (used[p] && placement_.degree(static_cast<Parallelism>(p)) > 1) {
          instances.push_back(instance(u, static_cast<Parallelism>(p)));
        }
      }
      for (int peer : peers) {
        for (const auto& pr : message_pairs(u, peer)) messages.push_back(pr);
      }
    }
    net_.plan_job(instances, messages);
  }

  void become_ready(int u, int node, double now) {
    // Only receives are ready outside a resource: they complete when their message is in.
    const StepNode& n = g_.stages[static_cast<std::size_t>(units_[static_cast<std::size_t>(u)].stage)].nodes[static_cast<std::size_t>(node)];
    const auto key = std::make_tuple(u, n.tag);
    if (const auto it = arrived_.find(key); it != arrived_.end()) {
      arrived_.erase(it);
      finish(u, node, now);
    } else {
      receiving_[key] = node;
    }
  }

  void deliver_message(int u, int tag, double t) {
    const auto key = std::make_tuple(u, tag);
    if (const auto it = receiving_.find(key); it != receiving_.end()) {
      const int node = it->second;
      receiving_.erase(it);
      finish(u, node, t);
    } else {
      arrived_[key] = t;
    }
  }

  // The head of a resource's issue list, if it is ready (else -1).
  [[nodiscard]] int ready_head(const Unit& unit, std::size_t list_id) const {
    const auto& list = index_[static_cast<std::size_t>(unit.stage)].issue[list_id];
    if (unit.cursor[list_id] >= list.size()) return -1;
    const int node = list[unit.cursor[list_id]];
    return unit.waiting[static_cast<std::size_t>(node)] > 0 ? -1 : node;
  }

  void try_start(int u, Resource r, double now) {
    Unit& unit = units_[static_cast<std::size_t>(u)];
    if (unit.busy[r]) return;
    std::size_t list_id = r;
    int node = ready_head(unit, r);
    if (r == compute_stream) {
      const int fill = ready_head(unit, kFill);
      const bool owed = unit.fill_ready > index_[static_cast<std::size_t>(unit.stage)].fill_cap;
      if (fill >= 0 && (node < 0 || owed)) {
        list_id = kFill;
        node = fill;
        --unit.fill_ready;
      }
    }
    if (node < 0) return;
    ++unit.cursor[list_id];
    unit.busy[r] = true;
    unit.start_s[static_cast<std::size_t>(node)] = now;
    const StageProgram& prog = g_.stages[static_cast<std::size_t>(unit.stage)];
    const StepNode& n = prog.nodes[static_cast<std::size_t>(node)];
    switch (n.kind) {
      case StepNodeKind::compute: start_compute(u, node, now); break;
      case StepNodeKind::collective: arrive(u, node, now); break;
      case StepNodeKind::send: {
        const int dst_unit = peer_unit(unit, n.peer_stage);
        const int tag = n.tag;
        const NetworkDimension* dim = placement_.neighbour_dimension(Parallelism::pp);
        auto done = [this, u, node, r, dst_unit, tag](double t) {
          units_[static_cast<std::size_t>(u)].busy[r] = false;
          finish(u, node, t);
          if (dst_unit >= 0) deliver_message(dst_unit, tag, t);
          try_start(u, r, t);
        };
        if (dim == nullptr || n.bytes <= 0.0) {
          done(now);
        } else {
          net_.submit_messages(now, *dim, message_pairs(unit, n.peer_stage), n.bytes, std::move(done));
        }
        break;
      }
      case StepNodeKind::recv: break;
    }
  }

  [[nodiscard]] int peer_unit(const Unit& unit, int peer_stage) const {
    return unit_of_base(g_.peer_rank(unit.base, peer_stage));
  }

  void start_compute(int u, int node, double now) {
    Unit& unit = units_[static_cast<std::size_t>(u)];
    const StepNode& n = g_.stages[static_cast<std::size_t>(unit.stage)].nodes[static_cast<std::size_t>(node)];
    charge_idle(u, node, now);
    unit.running_compute = node;
    unit.busy_compute_s += n.duration_s;
    if (n.host_wait) {
      unit.exposed[static_cast<std::size_t>(n.purpose)] += n.duration_s;
    } else if (n.recompute) {
      unit.recompute_s += n.duration_s;
    } else if (n.micro_batch < 0) {  // the one kernel outside the micro-batches
      unit.optimizer_s += n.duration_s;
    } else {
      unit.compute_s[static_cast<std::size_t>(n.cls)] += n.duration_s;
    }
    const auto& ix = index_[static_cast<std::size_t>(unit.stage)];
    unit.live += ix.live_delta[static_cast<std::size_t>(node)] > 0 ? 1 : 0;
    unit.peak_live = std::max(unit.peak_live, unit.live);
    unit.stream_free_s = now + n.duration_s;
    compute_done_.emplace(unit.stream_free_s, u);
  }

  // Idle compute stream before a kernel: charged to the communication it waited for last
  // (a pipeline receive: the message's own time to pp, the rest to the bubble).
  void charge_idle(int u, int node, double now) {
    const Unit& unit = units_[static_cast<std::size_t>(u)];
    const double idle = now - unit.stream_free_s;
    if (idle <= 0.0) return;
    const StageProgram& prog = g_.stages[static_cast<std::size_t>(unit.stage)];
    const StepNode& n = prog.nodes[static_cast<std::size_t>(node)];
    int blocker = -1;
    for (std::uint32_t k = n.deps_begin; k < n.deps_end; ++k) {
      const int d = static_cast<int>(prog.deps[k]);
      if (blocker < 0 || unit.end_s[static_cast<std::size_t>(d)] > unit.end_s[static_cast<std::size_t>(blocker)]) blocker = d;
    }
    charge(u, blocker, idle);
  }

  void charge(int u, int blocker, double idle) {
    Unit& unit = units_[static_cast<std::size_t>(u)];
    const StageProgram& prog = g_.stages[static_cast<std::size_t>(unit.stage)];
    if (blocker < 0 || prog.nodes[static_cast<std::size_t>(blocker)].kind == StepNodeKind::compute) {
      unit.bubble_s += idle;
      return;
    }
    const StepNode& b = prog.nodes[static_cast<std::size_t>(blocker)];
    if (b.kind == StepNodeKind::recv) {
      const auto it = message_time_.find(std::make_tuple(u, b.tag));
      const double own = it == message_time_.end() ? 0.0 : std::min(idle, it->second);
      unit.exposed[static_cast<std::size_t>(b.purpose)] += own;
      unit.bubble_s += idle - own;
      return;
    }
    unit.exposed[static_cast<std::size_t>(b.purpose)] += idle;
  }

  // A collective waits until every unit of its group instance has reached it.
  void arrive(int u, int node, double now) {
    Unit& unit = units_[static_cast<std::size_t>(u)];
    const StepNode& n = g_.stages[static_cast<std::size_t>(unit.stage)].nodes[static_cast<std::size_t>(node)];
    const Resource r = channel_of(n.group);
    const int seq = unit.issued[r]++;
    // The units of its group instance (a representative once for all it stands for).
    std::set<int> group_units{u};
    if (n.group != Parallelism::tp) {
      for (int m : placement_.members(n.group, unit.base)) {
        group_units.insert(unit_of_base(placement_.members(Parallelism::tp, m).front()));
      }
    }
    auto key = std::make_tuple(static_cast<int>(n.group), *group_units.begin(), seq);
    Barrier& b = barriers_[key];
    b.needed = static_cast<int>(group_units.size());
    b.latest_s = std::max(b.latest_s, now);
    b.members.emplace_back(u, node);
    if (static_cast<int>(b.members.size()) < b.needed) return;
    Barrier ready = std::move(b);
    barriers_.erase(key);
    launch(std::move(ready), n, n.overlap > 0.0 ? Part::waited_for : Part::whole);
  }

  // A collective with an overlap fraction f runs in two parts: its consumers wait for the
  // first (1 - f) of it only; the channel stays busy until the rest is done too.
  enum class Part { whole, waited_for, overlapped };

  void launch(Barrier b, const StepNode& n, Part part) {
    const network::GroupInstance& inst = instance(units_[static_cast<std::size_t>(b.members.front().first)], n.group);
    const double share = part == Part::whole ? 1.0 : part == Part::waited_for ? 1.0 - n.overlap : n.overlap;
    const Resource channel = channel_of(n.group);
    auto done = [this, b, &n, part, channel](double t) mutable {
      for (const auto& [u, node] : b.members) {
        if (part != Part::overlapped) finish(u, node, t);
        if (part == Part::waited_for) continue;
        units_[static_cast<std::size_t>(u)].busy[channel] = false;
        try_start(u, channel, t);
      }
      if (part == Part::waited_for) {
        b.latest_s = t;
        launch(std::move(b), n, Part::overlapped);
      }
    };
    const double bytes = n.bytes * share;
    if (bytes <= 0.0 || inst.spans.empty()) {
      done(b.latest_s);
      return;
    }
    net_.submit_collective_on(b.latest_s, n.op, bytes, inst, std::move(done));
  }

  void finish(int u, int node, double t) {
    Unit& unit = units_[static_cast<std::size_t>(u)];
    unit.end_s[static_cast<std::size_t>(node)] = t;
    ++nodes_run_;
    const StageProgram& prog = g_.stages[static_cast<std::size_t>(unit.stage)];
    const StepNode& n = prog.nodes[static_cast<std::size_t>(node)];
    if (!n.next_step) unit.last_end_s = std::max(unit.last_end_s, t);
    const auto& ix = index_[static_cast<std::size_t>(unit.stage)];
    if (ix.live_delta[static_cast<std::size_t>(node)] < 0) unit.live += ix.live_delta[static_cast<std::size_t>(node)];
    if (n.kind == StepNodeKind::send) {
      message_time_[std::make_tuple(peer_unit(unit, n.peer_stage), n.tag)] = t - unit.start_s[static_cast<std::size_t>(node)];
    }
    if (options_.record_timeline && n.kind != StepNodeKind::recv) record(u, node, t);
    for (std::uint32_t k = ix.dep_offsets[static_cast<std::size_t>(node)]; k < ix.dep_offsets[static_cast<std::size_t>(node) + 1]; ++k) {
      const int d = static_cast<int>(ix.dependents[k]);
      if (--unit.waiting[static_cast<std::size_t>(d)] > 0) continue;
      if (prog.nodes[static_cast<std::size_t>(d)].weight_grad) ++unit.fill_ready;
      if (ix.resource[static_cast<std::size_t>(d)] == no_resource) {
        // (A weight-gradient filler becoming ready is seen by the compute stream's next try.)
        become_ready(u, d, t);
      } else {
        try_start(u, ix.resource[static_cast<std::size_t>(d)], t);
      }
    }
  }

  void record(int u, int node, double t) {
    const Unit& unit = units_[static_cast<std::size_t>(u)];
    const auto& ix = index_[static_cast<std::size_t>(unit.stage)];
    const StepNode& n = g_.stages[static_cast<std::size_t>(unit.stage)].nodes[static_cast<std::size_t>(node)];
    TimelineSpan span;
    span.start_s = unit.start_s[static_cast<std::size_t>(node)];
    span.end_s = t;
    span.name = n.name;
    span.track = static_cast<std::uint16_t>(ix.resource[static_cast<std::size_t>(node)]);
    span.kind = n.kind == StepNodeKind::compute ? SpanKind::compute : SpanKind::communication;
    span.unit = u;
    timeline_spans_.push_back(span);
  }

  StepSimResult result() {
    StepSimResult out;
    out.units = static_cast<int>(units_.size());
    out.nodes_run = nodes_run_;
    std::size_t expected = 0;
    for (const Unit& u : units_) expected += u.end_s.size();
    if (nodes_run_ != expected) {
      throw InfeasibleError(fmt::format(
          "step simulation stalled: {} of {} nodes never ran (the schedule's issue order deadlocks)",
          expected - nodes_run_, expected));
    }
    for (const Unit& u : units_) out.step_s = std::max(out.step_s, u.last_end_s);
    out.stages.assign(g_.stages.size(), {});
    std::vector<double> stage_busy(g_.stages.size(), -1.0);
    for (const Unit& u : units_) {
      double busy = 0.0;
      for (double e : u.exposed) busy += e;
      busy += u.busy_compute_s;
      const auto stage = static_cast<std::size_t>(u.stage);
      if (busy <= stage_busy[stage]) continue;
      stage_busy[stage] = busy;
      out.stages[stage].compute_s = u.compute_s;
      out.stages[stage].exposed_comm_s = u.exposed;
      // Its stream idles after its last kernel while its last collectives finish (a stage's
      // closing all-reduce, the head's logits gather): charged to the last one to end.
      // A send's time is counted where it is received.
      const StageProgram& prog = g_.stages[stage];
      int last = -1;
      for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
        if (prog.nodes[i].kind != StepNodeKind::collective || prog.nodes[i].next_step) continue;
        if (last < 0 || u.end_s[i] > u.end_s[static_cast<std::size_t>(last)]) last = static_cast<int>(i);
      }
      if (last >= 0 && u.end_s[static_cast<std::size_t>(last)] > u.stream_free_s) {
        out.stages[stage].exposed_comm_s[static_cast<std::size_t>(prog.nodes[static_cast<std::size_t>(last)].purpose)] +=
            u.end_s[static_cast<std::size_t>(last)] - u.stream_free_s;
      }
    }
    // The critical unit: the most compute.
    std::size_t crit = 0;
    for (std::size_t i = 1; i < units_.size(); ++i) {
      if (units_[i].busy_compute_s > units_[crit].busy_compute_s) crit = i;
    }
    Unit& c = units_[crit];
    // Its stream idles after its last kernel until the step ends: charged to what it waited for.
    const StageProgram& prog = g_.stages[static_cast<std::size_t>(c.stage)];
    if (out.step_s > c.stream_free_s) {
      int blocker = -1;
      for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
        if (prog.nodes[i].next_step || prog.nodes[i].kind == StepNodeKind::compute) continue;
        if (blocker < 0 || c.end_s[i] > c.end_s[static_cast<std::size_t>(blocker)]) blocker = static_cast<int>(i);
      }
      if (blocker >= 0 && c.end_s[static_cast<std::size_t>(blocker)] > c.stream_free_s) {
        charge(static_cast<int>(crit), blocker, c.end_s[static_cast<std::size_t>(blocker)] - c.stream_free_s);
        c.bubble_s += out.step_s - c.end_s[static_cast<std::size_t>(blocker)];
      } else {
        c.bubble_s += out.step_s - c.stream_free_s;
      }
    }
    out.critical_stage = c.stage;
    out.compute_s = c.compute_s;
    out.recompute_s = c.recompute_s;
    out.optimizer_s = c.optimizer_s;
    out.exposed_comm_s = c.exposed;
    out.bubble_s = c.bubble_s;
    // Next-step parameter gathers (the same on every unit of a stage): the critical unit's.
    double first = kNever, last = 0.0;
    for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
      if (!prog.nodes[i].next_step) continue;
      const auto& deps_end = c.end_s;
      double start = 0.0;
      for (std::uint32_t k = prog.nodes[i].deps_begin; k < prog.nodes[i].deps_end; ++k) start = std::max(start, deps_end[prog.deps[k]]);
      first = std::min(first, start);
      last = std::max(last, c.end_s[i]);
      out.last_gather_bucket_s = c.end_s[i] - start;
    }
    if (last > 0.0) out.next_step_gather_s = last - first;
    out.peak_in_flight.assign(g_.stages.size(), 0.0);
    for (const Unit& u : units_) {
      auto& p = out.peak_in_flight[static_cast<std::size_t>(u.stage)];
      p = std::max(p, static_cast<double>(u.peak_live) / vpp_);
    }
    if (options_.record_timeline) {
      Timeline& t = out.timeline;
      t.names = g_.names;
      t.tracks.assign(kTrackNames.begin(), kTrackNames.end());
      t.spans = std::move(timeline_spans_);
      t.units = static_cast<int>(units_.size());
      t.unit_of_rank.assign(static_cast<std::size_t>(g_.num_ranks), 0);
      for (int r = 0; r < g_.num_ranks; ++r) {
        t.unit_of_rank[static_cast<std::size_t>(r)] = unit_of_base(placement_.members(Parallelism::tp, r).front());
      }
    }
    return out;
  }

  const StepGraph& g_;
  const parallel::Placement& placement_;
  network::NetworkApi& net_;
  StepSimOptions options_;
  int vpp_;
  std::vector<ProgramIndex> index_;
  std::vector<Unit> units_;
  std::map<int, int> unit_by_base_;
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> compute_done_;
  std::map<std::tuple<int, int, int>, Barrier> barriers_;
  std::map<std::tuple<int, int>, double> arrived_;
  std::map<std::tuple<int, int>, int> receiving_;
  std::map<std::tuple<int, int>, double> message_time_;  // (receiving unit, tag) -> transfer time
  std::vector<TimelineSpan> timeline_spans_;
  std::size_t nodes_run_ = 0;
};

}  // namespace

StepSimResult simulate_step(const StepGraph& graph, const parallel::Placement& placement,
                            network::NetworkApi& network, const StepSimOptions& options, int vpp) {
  Simulation sim(graph, placement, network, options, vpp);
  return sim.run();
}

}  // namespace rapidllm::exec
