// A network whose submissions complete after their idle-network time (analytical, or one
// collective simulated alone): a heap orders the completions, ties in submission order so
// runs are deterministic.
#pragma once

#include <cstdint>
#include <limits>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

#include "network/network_api.hpp"

namespace rapidllm::network {

class QueuedNetwork : public NetworkApi {
 public:
  void submit_collective(double start_s, CollectiveOp op, double bytes, const std::vector<GroupSpan>& group,
                         Done done) override {
    push(start_s + collective(op, bytes, group).time_s, std::move(done));
  }
  void submit_message(double start_s, const NetworkDimension& dimension, double bytes, Done done) override {
    push(start_s + message_s(dimension, bytes), std::move(done));
  }
  [[nodiscard]] double next_completion_s() const override {
    return pending_.empty() ? std::numeric_limits<double>::infinity() : pending_.top().end_s;
  }
  void deliver_next() override {
    if (pending_.empty()) return;
    Pending p = pending_.top();
    pending_.pop();
    p.done(p.end_s);
  }

 protected:
  void push(double end_s, Done done) { pending_.push(Pending{end_s, next_order_++, std::move(done)}); }

 private:
  struct Pending {
    double end_s;
    std::uint64_t order;
    Done done;
    bool operator>(const Pending& o) const { return std::tie(end_s, order) > std::tie(o.end_s, o.order); }
  };
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  std::uint64_t next_order_ = 0;
};

}  // namespace rapidllm::network
