// The Pareto-optimal points of a sweep, kept as the points stream in: training throughput
// per GPU against memory headroom (the fastest plan that leaves room and the roomiest that
// is fast), inference throughput per GPU against throughput per user (1 / TPOT).
#pragma once

#include <vector>

#include "rapidllm/sweep.hpp"

namespace rapidllm::search {

// Adds `p` (an ok point) to `front` unless a member beats it (higher or equal on both
// axes; among equals the earlier point wins), and drops the members it beats. `front`
// stays sorted by throughput, highest first, so its headroom (or per-user rate) rises.
void add_to_front(std::vector<SweepPoint>& front, const SweepPoint& p, RunType run);

}  // namespace rapidllm::search
