#include "serve/time_series.hpp"

#include <algorithm>
#include <cmath>

namespace rapidllm::serving {

void TimeSeries::add(double start_s, double duration_s, double kv_used_fraction, double running, double waiting) {
  if (!(duration_s > 0.0)) return;
  const double end_s = start_s + duration_s;
  while (end_s > width_s_ * static_cast<double>(kMaxBuckets)) {
    for (std::size_t i = 0; i < kMaxBuckets / 2; ++i) {
      const Bucket& a = buckets_[2 * i];
      const Bucket& b = buckets_[2 * i + 1];
      buckets_[i] = {a.covered_s + b.covered_s, a.kv_used + b.kv_used, a.running + b.running, a.waiting + b.waiting};
    }
    std::fill(buckets_.begin() + kMaxBuckets / 2, buckets_.end(), Bucket{});
    width_s_ *= 2.0;
  }
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
    if (b.covered_s <= 0.0) continue;
    out.push_back({width_s_ * static_cast<double>(k), b.kv_used / b.covered_s, b.running / b.covered_s,
                   b.waiting / b.covered_s});
  }
  return out;
}

}  // namespace rapidllm::serving
