#include "serve/time_series.hpp"

#include <algorithm>
#include <cmath>

namespace rapidllm::serving {

void TimeSeries::cover(double end_s) {
  while (end_s >= width_s_ * static_cast<double>(kMaxBuckets)) {
    for (std::size_t i = 0; i < kMaxBuckets / 2; ++i) {
      const Bucket& a = buckets_[2 * i];
      const Bucket& b = buckets_[2 * i + 1];
      buckets_[i] = {a.covered_s + b.covered_s, a.kv_used + b.kv_used, a.running + b.running, a.waiting + b.waiting,
                     a.preemptions + b.preemptions};
    }
    std::fill(buckets_.begin() + kMaxBuckets / 2, buckets_.end(), Bucket{});
    width_s_ *= 2.0;
  }
}

void TimeSeries::count_preemption(double at_s) {
  cover(at_s);
  ++buckets_[std::min(kMaxBuckets - 1, static_cast<std::size_t>(std::floor(at_s / width_s_)))].preemptions;
}

void TimeSeries::add(double start_s, double duration_s, double kv_used_fraction, double running, double waiting) {
  if (!(duration_s > 0.0)) return;
  const double end_s = start_s + duration_s;
  cover(end_s);
  for (double t = start_s; t < end_s;) {
    const auto k = std::min(kMaxBuckets - 1, static_cast<std::size_t>(std::floor(t / width_s_)));
    const double until = std::min(end_s, width_s_ * static_cast<double>(k + 1));
    const double w = until - t;
    if (w <= 0.0) break;
    Bucket& b = buckets_[k];
    b.covered_s += w;
    b.kv_used += w * kv_used_fraction;
    b.running += w * running;
    b.waiting += w * waiting;
    t = until;
  }
}

std::vector<ServeSample> TimeSeries::samples() const {
  std::vector<ServeSample> out;
  for (std::size_t k = 0; k < kMaxBuckets; ++k) {
    const Bucket& b = buckets_[k];
    if (b.covered_s <= 0.0 && b.preemptions == 0) continue;
    const double covered = std::max(b.covered_s, 1e-300);
    out.push_back({width_s_ * static_cast<double>(k), b.kv_used / covered, b.running / covered, b.waiting / covered,
                   b.preemptions});
  }
  return out;
}

}  // namespace rapidllm::serving
