// The schedules' instances, for parallel::schedule_of (registry.cpp), and the one issue
// pattern several of them share. A new schedule adds its file here and a case there.
#pragma once

#include <functional>
#include <vector>

#include "parallel/pipeline_schedule.hpp"

namespace rapidllm::parallel::detail {

[[nodiscard]] const Schedule& gpipe();
[[nodiscard]] const Schedule& one_f_one_b();
[[nodiscard]] const Schedule& interleaved_1f1b();
[[nodiscard]] const Schedule& zero_bubble();
[[nodiscard]] const Schedule& dualpipe();

// The shape of every 1F1B order over `passes` forward and as many backward passes: `warm`
// warm-up forwards, then one forward and one backward alternately, then the cool-down
// backwards. `forward(k)` and `backward(k)` give the k-th pass of each kind.
[[nodiscard]] std::vector<PassTask> warm_steady_cool(int passes, int warm, const std::function<PassTask(int)>& forward,
                                                     const std::function<PassTask(int)>& backward);

}  // namespace rapidllm::parallel::detail
