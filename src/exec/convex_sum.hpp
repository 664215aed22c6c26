// Exact sum of a convex piecewise-linear function over the integers lo..hi with a few
// evaluations: a decode step's time is a max of linear functions of the KV-cache length
// (HBM-, compute- or launch-bound), so summing all decode steps costs O(pieces x log n)
// evaluations instead of one per generated token.
#pragma once

#include <cstdint>
#include <functional>

namespace rapidllm::exec {

[[nodiscard]] double sum_convex_piecewise_linear(const std::function<double(std::int64_t)>& f, std::int64_t lo,
                                                 std::int64_t hi);

}  // namespace rapidllm::exec
