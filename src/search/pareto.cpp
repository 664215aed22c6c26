#include "search/pareto.hpp"

#include <algorithm>

namespace rapidllm::search {

void add_to_front(std::vector<SweepPoint>& front, const SweepPoint& p, RunType run) {
  const auto x = [](const SweepPoint& q) { return q.tokens_per_s_per_gpu; };
  const auto y = [run](const SweepPoint& q) {
    return run == RunType::training ? q.memory_capacity_bytes - q.peak_memory_bytes : q.tokens_per_s_per_user;
  };
  // The order the front is read in: throughput down, then the second axis down, then index.
  const auto before = [&](const SweepPoint& a, const SweepPoint& b) {
    if (x(a) != x(b)) return x(a) > x(b);
    if (y(a) != y(b)) return y(a) > y(b);
    return a.index < b.index;
  };
  const auto pos = std::find_if(front.begin(), front.end(), [&](const SweepPoint& f) { return !before(f, p); });
  // Everything before p in that order has at least its throughput; the last of them has
  // the highest second axis.
  if (pos != front.begin() && y(*(pos - 1)) >= y(p)) return;
  const auto inserted = front.insert(pos, p);
  const auto beaten = std::find_if(inserted + 1, front.end(), [&](const SweepPoint& f) { return y(f) > y(p); });
  front.erase(inserted + 1, beaten);
}

}  // namespace rapidllm::search
