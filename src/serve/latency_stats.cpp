#include "serve/latency_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rapidllm::serving {

namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(pos));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (pos - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

LatencyStats summarize(std::vector<double>& values) {
  LatencyStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.mean_s = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  s.p50_s = quantile(values, 0.50);
  s.p90_s = quantile(values, 0.90);
  s.p99_s = quantile(values, 0.99);
  s.max_s = values.back();
  return s;
}

void GapHistogram::add(double gap_s, std::int64_t count) {
  if (count <= 0) return;
  const double bin = gap_s <= kLowest ? 0.0 : std::floor(std::log(gap_s / kLowest) / std::log(kGrowth));
  counts_[std::min(static_cast<std::size_t>(bin), kBins - 1)] += count;
  total_ += count;
  sum_ += gap_s * static_cast<double>(count);
  max_ = std::max(max_, gap_s);
}

LatencyStats GapHistogram::summary() const {
  LatencyStats s;
  if (total_ == 0) return s;
  s.mean_s = sum_ / static_cast<double>(total_);
  s.max_s = max_;
  // The q-quantile: the geometric middle of the bin holding the ceil(q n)-th gap.
  const auto at = [&](double q) {
    const auto rank = static_cast<std::int64_t>(std::ceil(q * static_cast<double>(total_)));
    std::int64_t seen = 0;
    for (std::size_t b = 0; b < kBins; ++b) {
      seen += counts_[b];
      if (seen >= rank) return std::min(max_, kLowest * std::pow(kGrowth, static_cast<double>(b) + 0.5));
    }
    return max_;
  };
  s.p50_s = at(0.50);
  s.p90_s = at(0.90);
  s.p99_s = at(0.99);
  return s;
}

}  // namespace rapidllm::serving
