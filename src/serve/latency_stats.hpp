// Latency summaries: exact percentiles of per-request values, and a log-binned histogram
// for the inter-token gaps (one per output token: too many to keep for a long run).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "rapidllm/serve.hpp"

namespace rapidllm::serving {

// Mean, p50, p90, p99 (linear interpolation between order statistics) and max; zeros for
// no values. Sorts `values`.
[[nodiscard]] LatencyStats summarize(std::vector<double>& values);

// Counts in bins 1% wide (log scale) from 1 us to 10^4 s; percentiles within 0.5%.
class GapHistogram {
 public:
  void add(double gap_s, std::int64_t count = 1);
  [[nodiscard]] LatencyStats summary() const;

 private:
  static constexpr double kLowest = 1e-6;
  static constexpr double kGrowth = 1.01;
  static constexpr std::size_t kBins = 2320;  // 1.01^2320 ~ 1e10
  std::array<std::int64_t, kBins> counts_{};
  std::int64_t total_ = 0;
  double sum_ = 0.0;
  double max_ = 0.0;
};

}  // namespace rapidllm::serving
