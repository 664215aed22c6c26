// Incremental flow-level simulation on one Topology shared by many concurrent submissions
// (FlowPlans): a whole-step simulation submits collectives as they become ready and drives
// the engine event by event. Every active transfer gets a rate by weighted max-min fairness
// over the directed links it crosses, whichever submission it belongs to. Rates work at the
// level of usages (flow_usage.hpp): only the connected set of active usages overlapping one
// that gained or lost a slot is recomputed (flow_rates.hpp), found through the usages'
// neighbor lists; one that overlaps no active usage runs at its solo rate split over its
// slots. Time is a double in seconds; events sit in a binary heap ordered by (time, sequence).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "network/flow_plan.hpp"
#include "network/flow_rates.hpp"
#include "network/flow_usage.hpp"
#include "network/topology.hpp"
#include "network/work_meter.hpp"

namespace rapidllm::network {

class FlowEngine {
 public:
  // `router`: routes shared with other engines on the topology (nullptr: a private one).
  explicit FlowEngine(const Topology& topology, std::shared_ptr<Router> router = nullptr);

  using Done = std::function<void(double end_s)>;
  // Reports one transfer of a submission (its index in the plan) when it completes.
  using TransferDone = std::function<void(int transfer, double start_s, double end_s)>;

  // Adds the transfers of `plan` (its deps index into plan.transfers) as one submission
  // starting at `now` (>= the time of the last processed event); `done` is called from
  // advance() when the last of them completes (at `now` for an empty plan). Throws
  // InfeasibleError for an invalid dependency or a dependency cycle, std::invalid_argument
  // for a `now` before the last processed event.
  void submit(double now, FlowPlan plan, Done done, TransferDone on_transfer = {});
  // When the next event happens; infinity when idle.
  [[nodiscard]] double next_event_s() const;
  // Processes every event at next_event_s(), recomputes rates once, then calls the done
  // callbacks of the submissions that finished (a callback may submit more).
  void advance();

  // Counts events, member paths routed and neighbors found into `meter` (nullptr: none).
  void set_meter(WorkMeter* meter) {
    meter_ = meter;
    usages_.set_meter(meter);
  }

  [[nodiscard]] std::size_t events() const { return events_; }  // transfer starts, drains, completions
  [[nodiscard]] std::size_t rate_computations() const { return rate_computations_; }  // slot rates set
  [[nodiscard]] std::size_t transfers_run() const { return transfers_run_; }          // completed
  [[nodiscard]] double bytes_injected() const { return bytes_injected_; }    // bytes x members, started
  [[nodiscard]] double bytes_delivered() const { return bytes_delivered_; }  // integral of rate x members

 private:
  enum class EventType : std::uint8_t { start, drain, complete, finish };
  struct Event {
    double t = 0.0;
    std::uint64_t seq = 0;
    EventType type = EventType::start;
    int sub = 0;                // submission (start, complete, finish)
    int id = 0;                 // transfer (start, complete) or slot (drain)
    std::uint64_t version = 0;  // drain: valid only while the slot's version matches
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
  };
  struct Submission {
    FlowPlan plan;
    Done done;
    TransferDone on_transfer;
    std::vector<int> pending;                  // unfinished deps per transfer
    std::vector<std::vector<int>> dependents;  // per transfer
    std::vector<double> start_s;
    std::size_t left = 0;  // transfers not yet complete
  };
  struct Slot {  // an active transfer
    int sub = -1;
    int transfer = -1;
    Usage* usage = nullptr;
    std::size_t in_usage = 0;  // position in usage->slots
    double remaining = 0.0;    // bytes per member still to send
    double rate = 0.0;         // bytes/s per member
    double last_t = 0.0;
    std::uint64_t version = 0;
    bool active = false;
  };

  void push(double t, EventType type, int sub, int id, std::uint64_t version = 0);
  void activate(int sub, int transfer, double now);
  void drain(int slot, double now);
  void complete(int sub, int transfer, double now);
  void mark_dirty(Usage& u);
  void recompute(double now);
  void set_rate(int slot, double rate, double now);
  void finish(int sub, double now);
  void drop_stale_drains();

  UsageTable usages_;
  RateFiller filler_;
  std::vector<Submission> subs_;
  std::vector<int> free_subs_;
  std::vector<Slot> slots_;
  std::vector<int> free_slots_;
  std::vector<Usage*> dirty_;
  std::priority_queue<Event, std::vector<Event>, Later> events_queue_;
  std::uint64_t seq_ = 0;
  double now_ = 0.0;
  std::uint32_t visit_epoch_ = 0;
  std::vector<int> finished_;  // submissions whose done callback is due
  std::vector<Usage*> component_, stack_;
  std::vector<double> rates_;

  WorkMeter* meter_ = nullptr;
  std::size_t metered_events_ = 0;
  std::size_t events_ = 0;
  std::size_t rate_computations_ = 0;
  std::size_t transfers_run_ = 0;
  double bytes_injected_ = 0.0;
  double bytes_delivered_ = 0.0;
};

}  // namespace rapidllm::network
