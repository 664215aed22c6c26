#include "exec/pipeline_order.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <utility>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::exec {

namespace {

// DeepSeek's DualPipe (github.com/deepseek-ai/DualPipe, dualpipe.py, `step`): every rank
// holds two chunks, stage r of the pipeline fed from rank 0 (chunk 0) and stage pp-1-r of
// the one fed from rank pp-1 (chunk 1); half the micro-batches take each. A rank's eight
// phases, in its own terms: phase 0 is chunk 0 on the first half of the ranks and chunk 1
// on the second. Backward passes marked zero-bubble defer their weight gradients to a FIFO
// that explicit W steps drain.
std::vector<PassTask> dualpipe_order(int rank, int pp, int m) {
  if (pp % 2 != 0) {
    throw InfeasibleError(fmt::format("dualpipe needs an even number of pipeline stages (pp = {})", pp));
  }
  if (m % 2 != 0 || m < 2 * pp) {
    throw InfeasibleError(fmt::format(
        "dualpipe needs an even number of micro-batches, at least 2 x pp = {} (DeepSeek's rule); got {}", 2 * pp, m));
  }
  const int half_ranks = pp / 2;
  const int half_rank = std::min(rank, pp - 1 - rank);
  const int second_half = rank >= half_ranks ? 1 : 0;
  const int half_m = m / 2;
  std::vector<PassTask> out;
  std::array<int, 2> next_f{}, next_b{};
  std::deque<std::pair<int, int>> deferred;  // (chunk, micro-batch) whose W is still due
  auto forward = [&](int phase) {
    const int c = phase ^ second_half;
    out.push_back({0, c * half_m + next_f[static_cast<std::size_t>(c)]++, c, false});
  };
  auto backward = [&](int phase, bool zero_bubble) {
    const int c = phase ^ second_half;
    const int mb = c * half_m + next_b[static_cast<std::size_t>(c)]++;
    out.push_back({1, mb, c, zero_bubble});
    if (zero_bubble) deferred.emplace_back(c, mb);
  };
  auto weight = [&] {
    out.push_back({2, deferred.front().second, deferred.front().first, false});
    deferred.pop_front();
  };
  for (int i = 0; i < (half_ranks - half_rank - 1) * 2; ++i) forward(0);  // 1: nF0
  for (int i = 0; i < half_rank + 1; ++i) {                                // 2: nF0F1
    forward(0);
    forward(1);
  }
  for (int i = 0; i < half_ranks - half_rank - 1; ++i) {  // 3: nB1W1F1
    backward(1, true);
    weight();
    forward(1);
  }
  // 4: nF0B1F1B0 (the middle ranks do not overlap their first F0 and B1: the same order)
  for (int i = 0; i < half_m - pp + half_rank + 1; ++i) {
    forward(0);
    backward(1, false);
    forward(1);
    backward(0, false);
  }
  for (int i = 0; i < half_ranks - half_rank - 1; ++i) {  // 5: nB1F1B0
    backward(1, false);
    forward(1);
    backward(0, false);
  }
  bool zero_bubble = false;  // 6: nB1B0, the second half with deferred W
  for (int i = 0, n = half_rank + 1; i < n; ++i) {
    if (i == n / 2 && half_rank % 2 == 1) zero_bubble = true;
    backward(1, zero_bubble);
    if (i == n / 2 && half_rank % 2 == 0) zero_bubble = true;
    backward(0, zero_bubble);
  }
  for (int i = 0; i < half_ranks - half_rank - 1; ++i) {  // 7: nWB0
    weight();
    backward(0, true);
  }
  while (!deferred.empty()) weight();  // 8: nW
  return out;
}


}  // namespace

std::vector<PassTask> stage_order(PipelineSchedule schedule, int stage, int pp, int m, int v) {
  std::vector<PassTask> out;
  const int warm_1f1b = std::min(pp - stage - 1, m);
  switch (schedule) {
    case PipelineSchedule::gpipe:
      for (int k = 0; k < m; ++k) out.push_back({0, k, 0, false});
      for (int k = 0; k < m; ++k) out.push_back({1, k, 0, false});
      break;
    case PipelineSchedule::one_f_one_b:
      for (int k = 0; k < warm_1f1b; ++k) out.push_back({0, k, 0, false});
      for (int k = 0; k < m - warm_1f1b; ++k) {
        out.push_back({0, warm_1f1b + k, 0, false});
        out.push_back({1, k, 0, false});
      }
      for (int k = m - warm_1f1b; k < m; ++k) out.push_back({1, k, 0, false});
      break;
    case PipelineSchedule::zero_bubble:
      // ZB-H1 (Qi et al. 2023): 1F1B's order of F and B (input gradients only, so gradients
      // travel back faster); each W (weight gradients) is listed after its B but is filler
      // work: the simulator runs a stage's W passes only when its next F or B is not ready,
      // which puts them into 1F1B's cool-down bubbles.
      for (int k = 0; k < warm_1f1b; ++k) out.push_back({0, k, 0, false});
      for (int k = 0; k < m - warm_1f1b; ++k) {
        out.push_back({0, warm_1f1b + k, 0, false});
        out.push_back({1, k, 0, true});
        out.push_back({2, k, 0, false});
      }
      for (int k = m - warm_1f1b; k < m; ++k) {
        out.push_back({1, k, 0, true});
        out.push_back({2, k, 0, false});
      }
      break;
    case PipelineSchedule::interleaved_1f1b: {
      // Megatron-LM's interleaved schedule: virtual micro-batch k is micro-batch
      // (k / (pp v)) pp + k % pp of chunk (k / pp) % v (backward: chunks in reverse).
      if (m % pp != 0) {
        throw InfeasibleError(fmt::format(
            "the interleaved 1F1B schedule needs the micro-batches per pipeline ({}) to be a multiple of pp = {} "
            "(Megatron-LM's rule); the step simulation cannot lay it out otherwise",
            m, pp));
      }
      const int total = m * v;
      auto mb = [&](int k) { return (k / (pp * v)) * pp + k % pp; };
      auto chunk = [&](int k, bool fwd) { return fwd ? (k / pp) % v : v - 1 - (k / pp) % v; };
      const int warm = std::min(total, (pp - stage - 1) * 2 + (v - 1) * pp);
      for (int k = 0; k < warm; ++k) out.push_back({0, mb(k), chunk(k, true), false});
      for (int j = 0; j < total - warm; ++j) {
        out.push_back({0, mb(warm + j), chunk(warm + j, true), false});
        out.push_back({1, mb(j), chunk(j, false), false});
      }
      for (int j = total - warm; j < total; ++j) out.push_back({1, mb(j), chunk(j, false), false});
      break;
    }
    case PipelineSchedule::dualpipe:
      return dualpipe_order(stage, pp, m);
  }
  return out;
}


}  // namespace rapidllm::exec
