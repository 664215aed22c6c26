// Property: the same inputs give the same bytes out. A prediction does not depend on what
// a kernel-cost cache held before, on which thread ran it, or on what ran beside it; a
// sweep's CSV does not depend on its thread count; a seeded serving run repeats exactly.
// Reports are compared as rendered text, so a difference in the last digit of any field
// (a sum taken in another order, a race on shared state) fails.
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "property_support.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/report.hpp"
#include "rapidllm/serve.hpp"
#include "rapidllm/sweep.hpp"

namespace rapidllm::property {
namespace {

std::string json_of(const Scenario& s, PredictionCache* cache) {
  const Result r = predict(s, {.cache = cache, .exports = {}});
  return r.ok() ? render_prediction(r, s, OutputFormat::json) : "infeasible: " + r.message;
}

TEST(Determinism, PredictionsDoNotDependOnCacheOrThread) {
  Rng rng(0x5eed0007);
  constexpr int kCases = 12;
  std::vector<DrawnScenario> drawn;
  for (int i = 0; i < kCases; ++i) {
    drawn.push_back(rng.coin() ? random_training(rng, rng.pick(std::vector<int>{1, 2, 4})) : random_inference(rng));
  }
  // Reference: one after another, each with a cache of its own.
  std::vector<std::string> reference;
  for (const auto& d : drawn) reference.push_back(json_of(d.scenario, nullptr));

  // One cache warmed by every other scenario first, in reverse order.
  PredictionCache shared;
  for (auto it = drawn.rbegin(); it != drawn.rend(); ++it) (void)json_of(it->scenario, &shared);
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    EXPECT_EQ(json_of(drawn[i].scenario, &shared), reference[i]) << drawn[i].text;
  }

  // 2 and 4 threads at once, each with its own cache (a cache is per thread), each taking
  // every scenario in an order of its own.
  for (int threads : {2, 4}) {
    std::vector<std::vector<std::string>> got(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        PredictionCache cache;
        auto& out = got[static_cast<std::size_t>(t)];
        out.resize(drawn.size());
        for (std::size_t k = 0; k < drawn.size(); ++k) {
          const std::size_t i = (k + static_cast<std::size_t>(t) * 5) % drawn.size();
          out[i] = json_of(drawn[i].scenario, &cache);
        }
      });
    }
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) {
      for (std::size_t i = 0; i < drawn.size(); ++i) {
        EXPECT_EQ(got[static_cast<std::size_t>(t)][i], reference[i]) << threads << " threads, thread " << t << ": "
                                                                     << drawn[i].text;
      }
    }
  }
  int ok = 0;
  for (const auto& r : reference) ok += r.rfind("infeasible", 0) == 0 ? 0 : 1;
  EXPECT_GE(ok, kCases / 2) << "too many draws refused: the property checked too little";
}

// A random small plan space on a random shipped pair: the CSV and the ranked table must be
// byte-identical for 1, 2 and 4 sweep threads.
TEST(Determinism, SweepOutputDoesNotDependOnJobs) {
  Rng rng(0x5eed0008);
  constexpr int kSweeps = 2;
  for (int i = 0; i < kSweeps; ++i) {
    const std::string hw = rng.pick(shipped_hardware());
    const std::string model = rng.pick(shipped_models());
    const bool inference = i % 2 == 1;
    std::vector<std::string> sets{"model_param.seq_len=2048", "model_param.global_batch_size=16"};
    if (inference) {
      sets.push_back("model_param.run_type=inference");
      sets.push_back("model_param.decode_len=64");
    }
    SweepOptions o;
    o.gpus = rng.pick(std::vector<int>{4, 8, 16});
    o.top = 5;
    o.axes.tp = {1, 2, 4, 8};
    o.axes.pp = {1, 2};
    if (!inference) {
      o.axes.micro_batch_size = {1, 2};
      o.axes.zero_stage = {0, rng.uniform_int(1, 3)};
    }
    SCOPED_TRACE(fmt::format("sweep {}: {} x {} {} on {} GPUs", i, hw, model, inference ? "inference" : "training",
                             o.gpus));
    const std::string hw_path = source_path("configs/hardware/" + hw + ".yaml");
    const std::string model_path = source_path("configs/models/" + model + ".yaml");
    std::string csv_one;
    std::string table_one;
    for (int jobs : {1, 2, 4}) {
      o.jobs = jobs;
      const SweepResult r = sweep(hw_path, model_path, sets, o);
      ASSERT_GT(r.points.size(), 4u);
      const std::string csv = render_sweep(r, OutputFormat::csv);
      const std::string table = render_sweep(r, OutputFormat::table);
      if (jobs == 1) {
        csv_one = csv;
        table_one = table;
        EXPECT_GT(r.by_status.count(PointStatus::ok), 0u) << csv;
      } else {
        EXPECT_EQ(csv, csv_one) << jobs << " jobs";
        EXPECT_EQ(table, table_one) << jobs << " jobs";
      }
    }
  }
}

// Serving draws its arrivals and lengths from the workload's seed and nothing else.
TEST(Determinism, ASeededServingRunRepeats) {
  Rng rng(0x5eed0009);
  Scenario s = shipped("H100_SXM5_80GB", "llama3.1-8b");
  llm(s).run_type = RunType::inference;
  llm(s).global_batch_size = 1;
  llm(s).seq_len = 2048;
  llm(s).decode_len = 128;
  ServeOptions o;
  o.engine = *serve_engine_profile(rng.coin() ? "vllm" : "tensorrt-llm");
  o.workload.arrivals = ArrivalKind::poisson;
  o.workload.rate_per_s = rng.uniform(5.0, 40.0);
  o.workload.requests = 100;
  o.workload.input = {rng.uniform_int(64, 512), rng.uniform_int(513, 1500)};
  o.workload.output = {rng.uniform_int(8, 64), rng.uniform_int(65, 200)};
  o.workload.seed = static_cast<std::uint64_t>(rng.uniform_int(1, 1 << 30));
  SCOPED_TRACE(fmt::format("{} at {} req/s, seed {}", o.engine.name, o.workload.rate_per_s, o.workload.seed));
  const std::string first = render_serve(serve(s, o), s, o, OutputFormat::json);
  const std::string again = render_serve(serve(s, o), s, o, OutputFormat::json);
  EXPECT_EQ(again, first);
  // The seed matters: another one gives another run (else the check above proves little).
  ServeOptions other = o;
  other.workload.seed += 1;
  EXPECT_NE(render_serve(serve(s, other), s, other, OutputFormat::json), first);
}

}  // namespace
}  // namespace rapidllm::property
