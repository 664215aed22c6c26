// A pipeline schedule (GPipe, 1F1B, Megatron's interleaved 1F1B, ZB-H1, DeepSeek's DualPipe)
// as one type that owns everything the tool knows about it: the rule on stages and
// micro-batches it needs, the order a stage issues its passes in (the step simulation), the
// micro-batches a stage holds at its peak (the memory model) and the closed-form time of a
// flush (the analytical predictor). The predictor, the simulator, the memory model and the
// sweep ask `schedule_of` instead of switching on PipelineSchedule, so a rule is written once.
//
// Closed forms of one flush of m micro-batches over p stages, c_i = f_i + b_i:
//  gpipe, 1f1b:       T = m * max(c) + (sum(c) - max(c))
//  interleaved_1f1b:  T = m * max(c) + (sum(c) - max(c)) / v
//  zero_bubble:       ZB-H1 (Qi et al. 2023): the bubble shrinks by two weight-gradient
//                     passes per stage, T = m * max(c) + max(0, sum over other stages of
//                     c_i - 2 w_i)
//  dualpipe:          DeepSeek-V3 report, table 2: bubble (p/2 - 1)(F&B + B - 3W), with
//                     F&B = f + b of the slowest stage and B = b - w its input-gradient
//                     backward; the caller averages mirrored stages (rank i runs stage i
//                     of one pipeline and stage p-1-i of the other)
// For equal stages these give the bubble fractions (p-1)/(m+p-1) and (p-1)/(v m + p - 1).
// The implementations live in parallel/schedules/, one file each.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
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

// What the closed forms read off the stage times besides the steady state.
struct FlushPath {
  std::size_t critical = 0;  // the slowest stage by f + b (the first of equals)
  // The other stages' f + b: the fill and drain path. The two ends of a hop stall on its
  // handshake at the same time, so a hop costs one stall and each other stage's count half.
  double others_s = 0.0;
};

// One micro-batch pass a stage issues.
enum class PassKind { forward, backward, weight_grad };

// A pass in a stage's issue order: its micro-batch, its chunk (interleaved: virtual stage;
// DualPipe: 0 = the pipeline fed from rank 0, 1 = the one fed from the last rank), and
// whether a backward leaves its weight gradients to a later weight_grad pass.
struct PassTask {
  PassKind kind = PassKind::forward;
  int micro_batch = 0;
  int chunk = 0;
  bool defers_weight_grads = false;
};

class Schedule {
 public:
  Schedule() = default;
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;
  Schedule(Schedule&&) = delete;
  Schedule& operator=(Schedule&&) = delete;
  virtual ~Schedule() = default;

  // Whether a rank holds several chunks of one long pipeline (Megatron's interleaving:
  // parallelism.vpp of them); virtual_stages is then vpp, else 1.
  [[nodiscard]] virtual bool interleaves() const { return false; }
  [[nodiscard]] int virtual_stages(int vpp) const { return interleaves() ? vpp : 1; }
  // Whether weight-gradient passes are filler work the simulator runs only when the stage's
  // next forward or backward is not ready (ZB-H1), rather than where the order puts them.
  [[nodiscard]] virtual bool weight_grads_fill_bubbles() const { return false; }
  // Whether each rank runs two mirrored pipelines (DualPipe: stage i of the one fed from rank
  // 0, stage pp-1-i of the one fed from the last rank), each for half the micro-batches.
  [[nodiscard]] virtual bool mirrored() const { return false; }

  // Why `pp` stages with `micro_batches` per flush cannot run this schedule (the sweep
  // lists it as the point's reason), or nothing.
  [[nodiscard]] virtual std::optional<std::string> broken_rule(int pp, int micro_batches) const;
  // Throws InfeasibleError with broken_rule's reason.
  void check(int pp, int micro_batches) const;

  // The order stage `stage` issues its passes in (the step builder lays the stage's program
  // out in it, and the pipeline's shape comes out of it). Throws as `check` does.
  [[nodiscard]] std::vector<PassTask> stage_order(int stage, int pp, int micro_batches, int vpp) const;

  // Micro-batches whose activations stage `stage` holds at its peak, never more on a later
  // stage than on an earlier one (exec/stage_memory sizes only the earliest of ranks that
  // hold alike).
  [[nodiscard]] virtual double in_flight_micro_batches(int stage, int pp, int micro_batches, int vpp) const = 0;

  // One flush from the per-stage times of one micro-batch (the formulas above). Needs no
  // more than the closed form does: a stage count the formula cannot take throws
  // InfeasibleError, a micro-batch count the issue order could not lay out does not.
  [[nodiscard]] PipelineTime flush_time(const std::vector<StageTime>& stages, int micro_batches, int vpp) const;

 protected:
  // stage_order after its rule held.
  [[nodiscard]] virtual std::vector<PassTask> issue_order(int stage, int pp, int micro_batches, int vpp) const = 0;
  // The time a flush spends beyond m x the slowest stage.
  [[nodiscard]] virtual double bubble_s(const std::vector<StageTime>& stages, const FlushPath& path,
                                        int vpp) const = 0;
};

// The one instance of each schedule.
[[nodiscard]] const Schedule& schedule_of(PipelineSchedule schedule);

}  // namespace rapidllm::parallel
