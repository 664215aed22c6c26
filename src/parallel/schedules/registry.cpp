#include "parallel/pipeline_schedule.hpp"
#include "parallel/schedules/schedules.hpp"

namespace rapidllm::parallel {

const Schedule& schedule_of(PipelineSchedule schedule) {
  switch (schedule) {
    case PipelineSchedule::gpipe: return detail::gpipe();
    case PipelineSchedule::one_f_one_b: return detail::one_f_one_b();
    case PipelineSchedule::interleaved_1f1b: return detail::interleaved_1f1b();
    case PipelineSchedule::zero_bubble: return detail::zero_bubble();
    case PipelineSchedule::dualpipe: return detail::dualpipe();
  }
  // Unreachable for a valid enum value (the switch names them all; -Wswitch checks it).
  return detail::one_f_one_b();
}

}  // namespace rapidllm::parallel
