#include "parallel/pipeline_schedule.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::parallel {

PipelineTime pipeline_time(PipelineSchedule schedule, const std::vector<StageTime>& stages, int m, int v) {
  std::size_t critical = 0;
  double sum = 0.0;
  double stalls = 0.0;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const double c = stages[i].forward_s + stages[i].backward_s;
    sum += c;
    stalls += stages[i].transfer_stall_s;
    if (c > stages[critical].forward_s + stages[critical].backward_s) critical = i;
  }
  const StageTime& crit = stages[critical];
  const double c_max = crit.forward_s + crit.backward_s;
  PipelineTime out;
  out.busy_s = m * c_max;
  // On the fill and drain path the two ends of a hop stall on its handshake at the same
  // time: a hop costs one stall, so each other stage's stalls count half.
  const double others = sum - c_max - 0.5 * (stalls - crit.transfer_stall_s);
  switch (schedule) {
    case PipelineSchedule::interleaved_1f1b:
      out.bubble_s = others / v;
      break;
    case PipelineSchedule::zero_bubble: {
    double bubble = 0.0;
    for (std::size_t i = 0; i < stages.size(); ++i) {
      if (i != critical) {
        bubble += stages[i].forward_s + stages[i].backward_s - 2.0 * stages[i].weight_grad_s -
                  0.5 * stages[i].transfer_stall_s;
      }
    }
    out.bubble_s = std::max(0.0, bubble);
      break;
    }
    case PipelineSchedule::dualpipe: {
    const std::size_t p = stages.size();
    if (p % 2 != 0) {
      throw InfeasibleError(fmt::format("dualpipe needs an even number of pipeline stages (pp = {})", p));
    }
    const double half = static_cast<double>(p) / 2.0 - 1.0;
    // The table's B is the input-gradient backward alone: b - w.
    out.bubble_s = std::max(0.0, half * (c_max + (crit.backward_s - crit.weight_grad_s) - 3.0 * crit.weight_grad_s));
      break;
    }
    case PipelineSchedule::gpipe:  // gpipe, 1f1b: same bubble, different activation memory
    case PipelineSchedule::one_f_one_b:
      out.bubble_s = others;
      break;
  }
  out.total_s = out.busy_s + out.bubble_s;
  return out;
}

}  // namespace rapidllm::parallel
