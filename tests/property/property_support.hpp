// Shared pieces of the property tests: a seeded generator whose seed is printed (and can be
// replaced through RAPIDLLM_PROPERTY_SEED to replay or widen a run), the shipped configs,
// and random parallel plans on them. Plans are drawn from the values the configs allow
// (heads, layers, the NVLink domain); a draw the model still refuses is skipped by the
// caller and counted, so a property cannot pass on zero cases.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"
#include "rapidllm/scenario.hpp"

namespace rapidllm::property {

inline std::string source_path(const std::string& rel) { return std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel; }

// The seed a test runs with: its own constant, or RAPIDLLM_PROPERTY_SEED when set. Printed
// and recorded in the test's XML properties, so a failure in CI names what to replay.
class Rng {
 public:
  explicit Rng(std::uint64_t default_seed) : seed_(default_seed) {
    if (const char* env = std::getenv("RAPIDLLM_PROPERTY_SEED"); env != nullptr && *env != '\0') {
      seed_ = std::strtoull(env, nullptr, 0);
    }
    gen_.seed(seed_);
    std::cout << "[ property ] seed " << seed_ << " (replay: RAPIDLLM_PROPERTY_SEED=" << seed_ << ")\n";
    ::testing::Test::RecordProperty("seed", std::to_string(seed_));
  }

  [[nodiscard]] std::uint64_t seed() const { return seed_; }
  // Inclusive bounds.
  int uniform_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen_); }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen_); }
  // Spread evenly over orders of magnitude (message sizes, bandwidths).
  double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(gen_); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(uniform_int(0, static_cast<int>(v.size()) - 1))];
  }

 private:
  std::uint64_t seed_;
  std::mt19937_64 gen_;
};

inline const std::vector<std::string>& shipped_hardware() {
  static const std::vector<std::string> names{"H100_SXM5_80GB", "A100_SXM4_80GB"};
  return names;
}
inline const std::vector<std::string>& shipped_models() {
  static const std::vector<std::string> names{"llama2-7b", "llama3.1-8b", "mistral-7b", "llama3.1-70b"};
  return names;
}

// One shipped hardware x model pair, loaded once per test binary (loading parses YAML; the
// properties edit copies of the specs instead of reloading).
inline const Scenario& shipped(const std::string& hardware, const std::string& model) {
  static std::map<std::pair<std::string, std::string>, Scenario> loaded;
  auto it = loaded.find({hardware, model});
  if (it == loaded.end()) {
    it = loaded
             .emplace(std::make_pair(hardware, model),
                      load_scenario(source_path("configs/hardware/" + hardware + ".yaml"),
                                    source_path("configs/models/" + model + ".yaml")))
             .first;
  }
  return it->second;
}

inline LlmModelSpec& llm(Scenario& s) { return std::get<LlmModelSpec>(s.model.workload); }
inline const LlmModelSpec& llm(const Scenario& s) { return std::get<LlmModelSpec>(s.model.workload); }

// A random shipped scenario with a random training plan: TP inside the NVLink domain and
// dividing the heads, PP dividing the layers, a schedule with its virtual stages, and the
// global batch made of dp x accumulation x micro-batches x micro-batch size. Sequences are
// kept short enough that the whole suite stays fast under the sanitizers.
struct DrawnScenario {
  Scenario scenario;
  std::string text;  // the draw, for failure messages
};

inline DrawnScenario random_training(Rng& rng, int dp) {
  const std::string& hw = rng.pick(shipped_hardware());
  const std::string& model = rng.pick(shipped_models());
  Scenario s = shipped(hw, model);
  LlmModelSpec& m = llm(s);
  ParallelismSpec& p = s.hardware.parallelism;
  p.tp = rng.pick(std::vector<int>{1, 2, 4, 8});
  p.tp_sp = p.tp > 1 && rng.coin();
  p.pp = rng.pick(std::vector<int>{1, 2, 4});
  p.dp = dp;
  p.pp_schedule = rng.pick(std::vector<PipelineSchedule>{PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b,
                                                         PipelineSchedule::interleaved_1f1b,
                                                         PipelineSchedule::zero_bubble});
  p.vpp = p.pp_schedule == PipelineSchedule::interleaved_1f1b && p.pp > 1 ? 2 : 1;
  if (p.pp_schedule == PipelineSchedule::interleaved_1f1b && p.pp == 1) p.pp_schedule = PipelineSchedule::one_f_one_b;
  const int micro_batch_size = rng.uniform_int(1, 2);
  p.micro_batch_size = micro_batch_size;
  p.mb = p.pp * rng.uniform_int(1, 2);  // interleaving needs micro-batches in multiples of pp
  m.gradient_accumulation_steps = rng.uniform_int(1, 2);
  m.global_batch_size = static_cast<std::int64_t>(dp) * m.gradient_accumulation_steps * p.mb * micro_batch_size;
  m.seq_len = rng.pick(std::vector<std::int64_t>{1024, 2048, 4096});
  s.hardware.sw.dp_zero_stage = rng.uniform_int(0, 3);
  s.hardware.sw.recompute = rng.pick(std::vector<ActivationRecompute>{
      ActivationRecompute::none, ActivationRecompute::selective, ActivationRecompute::full});
  s.hardware.sw.dp_microbatch = rng.coin() ? DpMicrobatchSync::every_mb : DpMicrobatchSync::last_mb;
  // Hybrid: the same step formulas with every collective flow-simulated (milliseconds); the
  // whole-step simulations cost too much for a sanitizer run of many draws.
  s.hardware.execution.mode = rng.coin(0.25) ? ExecutionMode::hybrid : ExecutionMode::analytical;
  std::string text = fmt::format(
      "{} x {}: training tp={} sp={} pp={} {} vpp={} dp={} mb={} mbs={} gas={} seq={} zero={} recompute={} dp_sync={} "
      "mode={}",
      hw, model, p.tp, p.tp_sp, p.pp, to_string(p.pp_schedule), p.vpp, p.dp, p.mb, micro_batch_size,
      m.gradient_accumulation_steps, m.seq_len, s.hardware.sw.dp_zero_stage, to_string(s.hardware.sw.recompute),
      s.hardware.sw.dp_microbatch == DpMicrobatchSync::every_mb ? "every_mb" : "last_mb",
      to_string(s.hardware.execution.mode));
  return {std::move(s), std::move(text)};
}

// A random inference run: TP and PP inside the limits above, replicas, a batch per replica,
// a prompt and an answer length (seq_len holds both).
inline DrawnScenario random_inference(Rng& rng) {
  const std::string& hw = rng.pick(shipped_hardware());
  const std::string& model = rng.pick(shipped_models());
  Scenario s = shipped(hw, model);
  LlmModelSpec& m = llm(s);
  ParallelismSpec& p = s.hardware.parallelism;
  m.run_type = RunType::inference;
  p.tp = rng.pick(std::vector<int>{1, 2, 4, 8});
  p.tp_sp = false;
  p.pp = rng.pick(std::vector<int>{1, 2});
  p.dp = 1;
  p.replica_count = rng.uniform_int(1, 2);
  p.mb = 1;
  p.micro_batch_size.reset();
  const int batch = rng.pick(std::vector<int>{1, 2, 8, 32});
  m.global_batch_size = static_cast<std::int64_t>(batch) * p.replica_count;
  m.gradient_accumulation_steps = 1;
  const std::int64_t prompt = rng.pick(std::vector<std::int64_t>{128, 512, 2048});
  m.decode_len = rng.pick(std::vector<std::int64_t>{1, 16, 128});
  m.seq_len = prompt + m.decode_len;
  std::string text = fmt::format("{} x {}: inference tp={} pp={} replicas={} batch={} prompt={} decode={}", hw, model,
                                 p.tp, p.pp, p.replica_count, batch, prompt, m.decode_len);
  return {std::move(s), std::move(text)};
}

// How many draws a property really checked (the others were refused by the model), in the
// log and the XML report.
inline void report_checked(int checked, int drawn) {
  std::cout << "[ property ] " << checked << " of " << drawn << " draws checked\n";
  ::testing::Test::RecordProperty("checked", checked);
}

// a <= b up to a relative tolerance (floating-point reassociation, not model slack).
inline bool not_above(double a, double b, double rel = 1e-9) { return a <= b + rel * std::max(std::abs(a), std::abs(b)); }

}  // namespace rapidllm::property
