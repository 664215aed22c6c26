// The sweep against brute force: every point of a small space predicted one by one through
// load_scenario + predict with the plan given as --set overrides (not the sweep's own plan
// writer), ranked independently; and the output's independence of --jobs and --shard.
#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api_fixtures.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/report.hpp"
#include "rapidllm/sweep.hpp"

namespace rapidllm {
namespace {

using testing::source_path;

const std::string kHardware = source_path("configs/hardware/H100_SXM5_80GB.yaml");
const std::string kModel = source_path("configs/models/llama3.1-8b.yaml");

std::vector<std::string> plan_overrides(const Plan& p) {
  return {fmt::format("parallelism.tp={}", p.tp),
          fmt::format("parallelism.tp_sp={}", p.sp),
          fmt::format("parallelism.cp={}", p.cp),
          fmt::format("parallelism.pp={}", p.pp),
          fmt::format("parallelism.train.dp={}", p.dp),
          fmt::format("parallelism.train.ep={}", p.ep),
          fmt::format("parallelism.pp_schedule={}", to_string(p.schedule)),
          fmt::format("parallelism.vpp={}", p.vpp),
          fmt::format("parallelism.micro_batch_size={}", p.micro_batch_size),
          fmt::format("sw_param.dp_zero_stage={}", p.zero_stage),
          fmt::format("sw_param.activation_recompute={}", to_string(p.recompute))};
}

SweepOptions small_space() {
  SweepOptions o;
  o.gpus = 16;
  o.top = 10;
  o.axes.tp = {1, 2, 4, 8};
  o.axes.cp = {1, 2};
  o.axes.pp = {1, 2, 4};
  o.axes.micro_batch_size = {1, 2, 3};
  o.axes.zero_stage = {0, 1};
  o.axes.recompute = {ActivationRecompute::selective, ActivationRecompute::full};
  return o;
}

TEST(Sweep, BestPointsEqualABruteForcePredictionOfEveryPoint) {
  const std::vector<std::string> sets{"model_param.global_batch_size=64", "model_param.seq_len=4096"};
  const SweepResult r = sweep(kHardware, kModel, sets, small_space());
  ASSERT_GT(r.points.size(), 100u);
  PredictionCache cache;
  std::vector<std::pair<double, std::int64_t>> brute;  // (tokens/s/GPU, index) of every point that runs and fits
  int invalid = 0;
  for (const SweepPoint& p : r.points) {
    std::vector<std::string> all = sets;
    for (const auto& o : plan_overrides(p.plan)) all.push_back(o);
    const Result result = predict(load_scenario(kHardware, kModel, all), {.cache = &cache, .exports = {}});
    if (p.status == PointStatus::invalid) {
      // A rule caught it before predicting: the prediction itself refuses it too.
      EXPECT_FALSE(result.ok()) << p.index << " " << p.reason;
      EXPECT_FALSE(p.reason.empty());
      ++invalid;
      continue;
    }
    ASSERT_TRUE(result.ok()) << p.index << ": " << result.message;
    const auto& t = std::get<TrainingPrediction>(result.prediction);
    // Plans that do not fit are pruned before timing; their memory is predict()'s.
    EXPECT_DOUBLE_EQ(p.peak_memory_bytes, t.memory.total_bytes) << p.index;
    EXPECT_EQ(p.status == PointStatus::does_not_fit, t.memory.total_bytes > t.memory.capacity_bytes) << p.index;
    if (p.status != PointStatus::does_not_fit) {
      EXPECT_DOUBLE_EQ(p.time_s, t.step_time_s) << p.index;
    }
    if (p.status == PointStatus::ok) brute.emplace_back(t.tokens_per_s / t.num_gpus, p.index);
  }
  EXPECT_GT(invalid, 0);  // micro-batch size 3 never divides the sequences per replica
  std::sort(brute.begin(), brute.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  ASSERT_EQ(r.best.size(), 10u);
  for (std::size_t k = 0; k < r.best.size(); ++k) EXPECT_EQ(r.best[k].index, brute[k].second) << "rank " << k;
}

TEST(Sweep, PlacementReordersTheGroupsAsTheDimensionListsWould) {
  SweepOptions o;
  o.gpus = 16;
  o.axes.tp = {8};
  o.axes.pp = {1};
  o.axes.micro_batch_size = {1};
  o.axes.recompute = {ActivationRecompute::full};
  // DP innermost: the TP groups leave the NVLink domain.
  o.axes.placement = {std::nullopt, parse_placement("dp-tp-cp-ep-pp")};
  const std::vector<std::string> sets{"model_param.global_batch_size=64"};
  const SweepResult r = sweep(kHardware, kModel, sets, o);
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(placement_name(r.points[1].plan), "dp-tp-cp-ep-pp");
  std::vector<std::string> all = sets;
  for (const auto& s : plan_overrides(r.points[1].plan)) all.push_back(s);
  all.emplace_back("network.dimensions[0].parallelisms=[dp, tp, cp]");
  all.emplace_back("network.dimensions[1].parallelisms=[ep, pp]");
  const Result direct = predict(load_scenario(kHardware, kModel, all));
  ASSERT_TRUE(direct.ok()) << direct.message;
  EXPECT_DOUBLE_EQ(r.points[1].time_s, std::get<TrainingPrediction>(direct.prediction).step_time_s);
  EXPECT_GT(r.points[1].time_s, r.points[0].time_s);
  EXPECT_FALSE(parse_placement("tp-tp-cp-ep-pp"));
  EXPECT_FALSE(parse_placement("tp-cp-ep-pp"));
}

TEST(Sweep, InfeasiblePointsCarryTheirReason) {
  SweepOptions o = small_space();
  o.axes.micro_batch_size = {3};
  const SweepResult r = sweep(kHardware, kModel, {"model_param.global_batch_size=64"}, o);
  ASSERT_FALSE(r.points.empty());
  for (const SweepPoint& p : r.points) {
    EXPECT_EQ(p.status, PointStatus::invalid);
    EXPECT_THAT(p.reason, ::testing::HasSubstr("micro-batch size"));
  }
  EXPECT_EQ(r.evaluated, 0);
  EXPECT_TRUE(r.best.empty());
  EXPECT_EQ(r.by_status.at(PointStatus::invalid), r.total);
}

TEST(Sweep, OutputDoesNotDependOnJobsAndShardsPartitionThePoints) {
  SweepOptions o = small_space();
  o.vary = {{"tech_param.DRAM.bandwidth", {"2 TB/s", "3.35 TB/s"}}};
  const std::vector<std::string> sets{"model_param.global_batch_size=64"};
  const SweepResult one = sweep(kHardware, kModel, sets, o);
  o.jobs = 2;
  const SweepResult two = sweep(kHardware, kModel, sets, o);
  EXPECT_EQ(render_sweep(one, OutputFormat::csv), render_sweep(two, OutputFormat::csv));
  EXPECT_EQ(render_sweep(one, OutputFormat::json), render_sweep(two, OutputFormat::json));
  // Streamed without keeping the points: the same rows, the same best points and front.
  std::string streamed = sweep_csv_header(one.varied_keys);
  o.keep_points = false;
  o.on_point = [&](const SweepPoint& p, RunType run) { streamed += sweep_csv_row(p, run); };
  const SweepResult lean = sweep(kHardware, kModel, sets, o);
  EXPECT_TRUE(lean.points.empty());
  EXPECT_EQ(streamed, render_sweep(one, OutputFormat::csv));
  EXPECT_EQ(render_sweep(lean, OutputFormat::table), render_sweep(one, OutputFormat::table));
  o.on_point = nullptr;
  o.keep_points = true;
  // Two shards hold every point once, with the same numbers.
  std::map<std::int64_t, double> times;
  o.jobs = 1;
  o.shard_count = 2;
  for (int s = 0; s < 2; ++s) {
    o.shard_index = s;
    for (const auto& p : sweep(kHardware, kModel, sets, o).points) times[p.index] = p.time_s;
  }
  ASSERT_EQ(times.size(), one.points.size());
  for (const auto& p : one.points) EXPECT_EQ(times[p.index], p.time_s);
  // Faster HBM never makes a plan slower.
  const std::size_t half = one.points.size() / 2;
  for (std::size_t i = 0; i < half; ++i) {
    if (one.points[i].status == PointStatus::ok) {
      EXPECT_LE(one.points[half + i].time_s, one.points[i].time_s);
    }
  }
}

TEST(Sweep, ParetoFrontIsNotDominated) {
  const SweepResult r = sweep(kHardware, kModel, {"model_param.global_batch_size=64"}, small_space());
  ASSERT_FALSE(r.pareto.empty());
  const auto headroom = [&](const SweepPoint& p) { return p.memory_capacity_bytes - p.peak_memory_bytes; };
  for (const SweepPoint& p : r.pareto) {
    for (const SweepPoint& q : r.points) {
      if (q.status != PointStatus::ok) continue;
      const bool dominates = q.tokens_per_s_per_gpu >= p.tokens_per_s_per_gpu && headroom(q) >= headroom(p) &&
                             (q.tokens_per_s_per_gpu > p.tokens_per_s_per_gpu || headroom(q) > headroom(p));
      EXPECT_FALSE(dominates) << p.index << " dominated by " << q.index;
    }
  }
  // The fastest point is on the front.
  EXPECT_EQ(r.pareto.front().index, r.best.front().index);
  // Every ok point not on the front is beaten by a front member.
  std::size_t on_front = 0;
  for (const SweepPoint& q : r.points) {
    if (q.status != PointStatus::ok) continue;
    const bool member = std::any_of(r.pareto.begin(), r.pareto.end(), [&](const SweepPoint& f) { return f.index == q.index; });
    on_front += member ? 1 : 0;
    if (member) continue;
    EXPECT_TRUE(std::any_of(r.pareto.begin(), r.pareto.end(), [&](const SweepPoint& f) {
      return f.tokens_per_s_per_gpu >= q.tokens_per_s_per_gpu && headroom(f) >= headroom(q);
    })) << q.index;
  }
  EXPECT_EQ(on_front, r.pareto.size());
}

}  // namespace
}  // namespace rapidllm
