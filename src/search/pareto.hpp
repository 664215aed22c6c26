// The Pareto-optimal points of a sweep: training throughput against memory headroom (the
// fastest plan that leaves room and the roomiest that is fast), inference throughput per
// GPU against throughput per user (1 / TPOT).
#pragma once

#include <cstddef>
#include <vector>

#include "rapidllm/sweep.hpp"

namespace rapidllm::search {

// Among `candidates` (indices into points): those no other candidate beats on both axes
// (>= on both, > on one), sorted by throughput, highest first.
[[nodiscard]] std::vector<std::size_t> pareto_front(const std::vector<SweepPoint>& points,
                                                    const std::vector<std::size_t>& candidates, RunType run);

}  // namespace rapidllm::search
