#include "search/pareto.hpp"

#include <algorithm>
#include <limits>

namespace rapidllm::search {

std::vector<std::size_t> pareto_front(const std::vector<SweepPoint>& points, const std::vector<std::size_t>& candidates,
                                      RunType run) {
  const auto x = [&](std::size_t i) { return points[i].tokens_per_s_per_gpu; };
  const auto y = [&](std::size_t i) {
    const SweepPoint& p = points[i];
    return run == RunType::training ? p.memory_capacity_bytes - p.peak_memory_bytes : p.tokens_per_s_per_user;
  };
  std::vector<std::size_t> order = candidates;
  // By x descending (ties: y descending, then enumeration order): a point is on the front
  // when its y beats every point before it.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (x(a) != x(b)) return x(a) > x(b);
    if (y(a) != y(b)) return y(a) > y(b);
    return points[a].index < points[b].index;
  });
  std::vector<std::size_t> front;
  double best_y = -std::numeric_limits<double>::infinity();
  for (std::size_t i : order) {
    if (y(i) > best_y) {
      front.push_back(i);
      best_y = y(i);
    }
  }
  return front;
}

}  // namespace rapidllm::search
