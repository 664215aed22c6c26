// KV-cache use and queue lengths over a run, time-weighted, in at most kMaxBuckets equal
// intervals from t = 0: the interval doubles (neighbours merged) whenever the run outgrows
// them, so a run of millions of iterations keeps a few hundred numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rapidllm/serve.hpp"

namespace rapidllm::serving {

class TimeSeries {
 public:
  // The state held from `start_s` for `duration_s`.
  void add(double start_s, double duration_s, double kv_used_fraction, double running, double waiting);
  // A preemption at `at_s`.
  void count_preemption(double at_s);
  // Each interval's time-weighted means (intervals nothing covered are left out).
  [[nodiscard]] std::vector<ServeSample> samples() const;

 private:
  struct Bucket {
    double covered_s = 0.0;
    double kv_used = 0.0;  // integrals over the covered time
    double running = 0.0;
    double waiting = 0.0;
    std::int64_t preemptions = 0;
  };
  // Doubles the interval until the buckets reach `end_s`.
  void cover(double end_s);
  static constexpr std::size_t kMaxBuckets = 256;
  double width_s_ = 1e-3;
  std::vector<Bucket> buckets_ = std::vector<Bucket>(kMaxBuckets);
};

}  // namespace rapidllm::serving
