// Where requests come from: lengths drawn from the workload's ranges (seeded, so a run is
// reproducible), arrival times of an open loop (Poisson), a trace file, or all at once.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "rapidllm/serve.hpp"

namespace rapidllm::serving {

struct Arrival {
  double time_s = 0.0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
};

class Workload {
 public:
  // Throws ConfigError for a workload that cannot run (no rate, no limit, a bad trace).
  explicit Workload(const ServeWorkload& w);

  // Open loop (Poisson, trace, offline): the next arrival, or false when there is none.
  bool next_open(Arrival& out);
  // Closed loop: a new request at `time_s`, or false when the limits are reached.
  bool next_closed(double time_s, Arrival& out);
  [[nodiscard]] bool closed_loop() const { return w_.arrivals == ArrivalKind::concurrency; }
  [[nodiscard]] std::int64_t longest_request_tokens() const { return longest_; }
  [[nodiscard]] std::int64_t longest_prompt_tokens() const { return longest_prompt_; }

 private:
  [[nodiscard]] bool within_limits(double time_s) const;
  Arrival draw(double time_s);

  ServeWorkload w_;
  std::mt19937_64 rng_;
  std::vector<Arrival> trace_;
  std::int64_t issued_ = 0;
  double clock_s_ = 0.0;
  std::int64_t longest_ = 0;
  std::int64_t longest_prompt_ = 0;
};

}  // namespace rapidllm::serving
