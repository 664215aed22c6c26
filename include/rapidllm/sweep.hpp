// Plan and design-space search: every parallel plan of a model on a fixed number of GPUs
// (TP x SP x PP x schedule x vpp x DP x CP x EP x micro-batch size x ZeRO x recompute), on
// every variant of the configs (`vary`: any numeric config key over a range or a list),
// each predicted through predict() and ranked. An invalid or infeasible point is a row
// with its reason, never an abort. Results are in enumeration order whatever `jobs` is.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm {

// One parallel plan. dp (training) or replicas (inference) fills the GPUs the rest leave.
struct Plan {
  int tp = 1;
  bool sp = false;  // sequence parallelism (tp > 1)
  int cp = 1;
  int ep = 1;  // expert parallelism (training ep, inference moe_dp); 1 for dense models
  int pp = 1;
  int dp = 1;  // data-parallel replicas (training dp; inference replica_count)
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int vpp = 1;
  int micro_batch_size = 1;  // training only
  int zero_stage = 0;        // training only
  ActivationRecompute recompute = ActivationRecompute::selective;  // training only
  // Rank order of the parallel groups, innermost first (which groups share a node's fast
  // dimension); `placed` false = the hardware file's own order.
  bool placed = false;
  std::array<Parallelism, 5> order{Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::pp,
                                   Parallelism::dp};

  friend bool operator==(const Plan&, const Plan&) = default;
};

// "tp-cp-ep-pp-dp" for a placed plan, "config" for the hardware file's order.
[[nodiscard]] std::string placement_name(const Plan& plan);
// The order a placement name gives; nothing when it is not a permutation of tp, cp, ep, pp, dp.
[[nodiscard]] std::optional<std::array<Parallelism, 5>> parse_placement(const std::string& name);

// The values each plan axis takes; an empty axis takes its default (SweepSpace defaults,
// docs/sweep.md). Axis names on the command line: tp, sp, cp, ep, pp, schedule, vpp, mbs,
// zero, recompute, placement.
struct SweepAxes {
  std::vector<int> tp, cp, ep, pp, vpp, micro_batch_size, zero_stage;
  std::vector<std::optional<std::array<Parallelism, 5>>> placement;  // nullopt = the hardware file's order
  std::vector<bool> sp;
  std::vector<PipelineSchedule> schedule;
  std::vector<ActivationRecompute> recompute;
};

// The most hardware/model variants (the product of the vary lists) one sweep loads: each is
// a whole loaded scenario held for the run.
inline constexpr std::int64_t kMaxSweepVariants = 100'000;

// One swept config key: its override values ("key=value" texts as for --set).
struct SweepVary {
  std::string key;
  std::vector<std::string> values;
};

enum class PointStatus { ok, does_not_fit, invalid, infeasible, over_limit };

struct SweepPoint {
  std::int64_t index = 0;               // position in the enumeration
  std::vector<std::string> varied;      // this point's value of every SweepVary key, in order
  Plan plan;
  PointStatus status = PointStatus::ok;
  std::string reason;                   // why not ok
  // Training: step time; inference: total time (prefill + decode). Throughput: training
  // tokens per second; inference generated tokens per second. A training plan that does
  // not fit is not timed (zeros here; its memory is filled).
  double time_s = 0.0;
  double tokens_per_s = 0.0;
  double tokens_per_s_per_gpu = 0.0;
  double tokens_per_s_per_user = 0.0;   // inference: 1 / mean TPOT
  double ttft_s = 0.0;                  // inference
  double tpot_s = 0.0;                  // inference, mean
  double mfu = 0.0;                     // training
  double peak_memory_bytes = 0.0;
  double memory_capacity_bytes = 0.0;
  double energy_j = 0.0;
  std::optional<double> refined_time_s;  // the simulated step's time (refine)
};

struct SweepOptions {
  int gpus = 0;
  int top = 10;
  int jobs = 1;
  SweepAxes axes;
  std::vector<SweepVary> vary;
  std::optional<double> max_ttft_s;  // inference limits
  std::optional<double> max_tpot_s;
  int refine = 0;       // re-predict the best `refine` points with the simulated step
  int shard_index = 0;  // evaluate only points with index % shard_count == shard_index
  int shard_count = 1;
  // Called now and then from the calling thread with (points done, points in all).
  std::function<void(std::int64_t, std::int64_t)> progress;
  // Called with every point of the shard in enumeration order, from the calling thread, as
  // soon as it and all before it are done (stream them out: a big sweep need not be held).
  std::function<void(const SweepPoint&, RunType)> on_point;
  // Keep every point in SweepResult::points (off: only the best and the Pareto front are
  // kept, memory bounded whatever the size of the space).
  bool keep_points = true;
  // Points already evaluated (an interrupted run's CSV, other shards): not evaluated again,
  // handed on and ranked as if they had been.
  std::vector<SweepPoint> known;
};

struct SweepResult {
  RunType run_type = RunType::training;
  std::vector<std::string> varied_keys;
  std::vector<SweepPoint> points;  // every point of this shard in enumeration order (keep_points)
  std::vector<SweepPoint> best;    // the best `top` ok points, best first
  std::vector<SweepPoint> pareto;  // the Pareto-optimal ok points, highest throughput first
  std::int64_t total = 0;          // points of this shard
  std::int64_t evaluated = 0;      // points timed (not rejected by a rule or, training, by memory first)
  std::map<PointStatus, std::int64_t> by_status;
  double seconds = 0.0;                      // wall time of the sweep
};

// Loads the configs once per variant (their --set `overrides` first, then the varied keys)
// and sweeps. Throws ConfigError for a bad config, vary key or axis value.
[[nodiscard]] SweepResult sweep(const std::string& hardware_path, const std::string& model_path,
                                const std::vector<std::string>& overrides, const SweepOptions& options);

// One result from the points of several shards (any order; every point once): the points
// in enumeration order, the counts, the best `top` and the front, as one run would give.
// `evaluated` is the shards' sum. Refine the merged result with refine_best.
[[nodiscard]] SweepResult merge_sweep(std::vector<SweepPoint> points, RunType run,
                                      std::vector<std::string> varied_keys, std::int64_t evaluated, int top);

// Re-predicts the best `options.refine` points of `result` with the whole step simulated
// (full_astrasim_hierarchical), as sweep() does; the configs are reloaded for the
// variants they need.
void refine_best(SweepResult& result, const std::string& hardware_path, const std::string& model_path,
                 const std::vector<std::string>& overrides, const SweepOptions& options);

[[nodiscard]] std::string_view to_string(PointStatus s);

}  // namespace rapidllm
