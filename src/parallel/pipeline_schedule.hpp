// Time of one pipeline flush of m micro-batches over p stages for each schedule, from the
// per-stage forward/backward times of one micro-batch.
//
//  gpipe, 1f1b:       T = m * max(c) + (sum(c) - max(c))              c_i = f_i + b_i
//  interleaved_1f1b:  T = m * max(c) + (sum(c) - max(c)) / v
//  zero_bubble:       ZB-H1 (Qi et al. 2023): the bubble shrinks by two weight-gradient
//                     passes per stage, T = m * max(c) + max(0, sum over other stages of
//                     c_i - 2 w_i)
//  dualpipe:          DeepSeek-V3 report, table 2: bubble (p/2 - 1)(F&B + B - 3W), with
//                     F&B = f + b of the slowest stage and B = b - w its input-gradient
//                     backward; the caller averages mirrored stages (rank i runs stage i
//                     of one pipeline and stage p-1-i of the other)
// For equal stages these give the bubble fractions (p-1)/(m+p-1) and (p-1)/(v m + p - 1).
#pragma once

#include <vector>

#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::parallel {

struct StageTime {
  double forward_s = 0.0;       // one micro-batch, incl. sending its activations on
  double backward_s = 0.0;      // incl. weight gradients and recompute
  double weight_grad_s = 0.0;   // the part of backward_s that computes weight gradients
  // The part of forward_s + backward_s its host spends blocked on pipeline transfers (a
  // blocking engine's handshakes, sw_param.pipeline_transfer_stall).
  double transfer_stall_s = 0.0;
};

struct PipelineTime {
  double total_s = 0.0;
  double busy_s = 0.0;    // m x the slowest stage: the time no schedule can remove
  double bubble_s = 0.0;  // total - busy
};

// Throws InfeasibleError for a schedule the stage count cannot run (dualpipe: odd p).
[[nodiscard]] PipelineTime pipeline_time(PipelineSchedule schedule, const std::vector<StageTime>& stages,
                                         int micro_batches, int virtual_stages);

}  // namespace rapidllm::parallel
