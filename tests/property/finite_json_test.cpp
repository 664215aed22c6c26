// Property: no NaN or infinity ever reaches a JSON report. nlohmann_json writes a
// non-finite double as `null` (and a hand-written one would not parse), so a division by a
// zero time or an empty phase would surface as a null where a number belongs. The reports
// write no nulls of their own, so every null is one, and so is every non-finite number.
// Inputs are random valid plans plus valid extremes: one-token prompts and answers, no
// launch overhead or power figures, bandwidths a million times off, empty and one-rank
// collectives.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "property_support.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/report.hpp"
#include "rapidllm/serve.hpp"

namespace rapidllm::property {
namespace {

// JSON pointers of every null and non-finite number under `j`.
void collect_non_finite(const nlohmann::json& j, const std::string& path, std::vector<std::string>& bad) {
  if (j.is_null()) {
    bad.push_back(path + " = null");
  } else if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) bad.push_back(path + " = " + std::to_string(j.get<double>()));
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) collect_non_finite(value, path + "/" + key, bad);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) collect_non_finite(j[i], path + "/" + std::to_string(i), bad);
  }
}

// Parses `text` (a report) and fails with the paths of every non-finite value.
void expect_finite_json(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    ADD_FAILURE() << "not JSON (a bare nan or inf?): " << e.what();
    return;
  }
  std::vector<std::string> bad;
  collect_non_finite(j, "", bad);
  EXPECT_TRUE(bad.empty()) << fmt::format("{}", fmt::join(bad, "\n"));
}

// An extreme but valid change to a scenario; says what it did.
std::string make_extreme(Scenario& s, Rng& rng) {
  HardwareSpec& hw = s.hardware;
  switch (rng.uniform_int(0, 6)) {
    case 0:
      hw.sw.kernel_launch_overhead_s = 0.0;
      hw.core.static_power_w = 0.0;
      hw.core.max_power_w = 0.0;
      return "no launch overhead, no power figures";
    case 1:
      for (auto& d : hw.network.dimensions) {
        for (double& b : d.bandwidth_bytes_per_s) b *= 1e6;
        d.latency_s = 0.0;
        d.protocols.clear();
      }
      return "network 1e6x faster, no latency";
    case 2:
      for (auto& d : hw.network.dimensions) {
        for (double& b : d.bandwidth_bytes_per_s) b *= 1e-6;
      }
      return "network 1e6x slower";
    case 3:
      hw.memory.back().bandwidth_bytes_per_s *= 1e-4;
      return "HBM 1e4x slower";
    case 4:
      hw.core.frequency_hz *= 1e4;
      return "clock 1e4x faster";
    case 5:
      if (llm(s).run_type == RunType::inference) {
        llm(s).decode_len = 1;
        llm(s).seq_len = 2;
        return "one-token prompt, one-token answer";
      }
      llm(s).seq_len = 16;
      return "16-token sequences";
    default:
      hw.core.util = 1e-3;
      return "tensor cores at 0.1% util";
  }
}

TEST(FiniteJson, PredictionReports) {
  Rng rng(0x5eed000a);
  PredictionCache cache;
  constexpr int kCases = 80;
  int rendered = 0;
  for (int i = 0; i < kCases; ++i) {
    DrawnScenario d = i % 2 == 0 ? random_training(rng, rng.pick(std::vector<int>{1, 2, 4})) : random_inference(rng);
    const std::string extreme = rng.coin() ? make_extreme(d.scenario, rng) : "none";
    SCOPED_TRACE(fmt::format("case {}: {}; extreme: {}", i, d.text, extreme));
    const Result r = predict(d.scenario, {.cache = &cache, .exports = {}});
    if (!r.ok()) continue;
    expect_finite_json(render_prediction(r, d.scenario, OutputFormat::json));
    ++rendered;
  }
  report_checked(rendered, kCases);
  EXPECT_GE(rendered, kCases / 2) << "too many draws refused: the property checked too little";
}

TEST(FiniteJson, GemmReports) {
  Rng rng(0x5eed000b);
  PredictionCache cache;
  constexpr int kCases = 20;
  for (int i = 0; i < kCases; ++i) {
    Scenario s = shipped(rng.pick(shipped_hardware()), "llama2-7b");
    // From a single element to large training GEMMs; one dimension of 1 is a GEMV.
    GemmModelSpec g;
    g.m = rng.coin(0.2) ? 1 : rng.uniform_int(1, 1 << 16);
    g.k = rng.uniform_int(1, 1 << 15);
    g.n = rng.uniform_int(1, 1 << 15);
    g.backward = rng.coin();
    s.model.workload = g;
    // The dtypes the shipped hardware describes (the A100 has no FP8 tensor cores).
    std::vector<DType> dtypes{DType::bf16};
    for (const auto& [dtype, scale] : s.hardware.core.dtype_flop_scale) dtypes.push_back(dtype);
    s.gemm_dtype = rng.pick(dtypes);
    SCOPED_TRACE(fmt::format("case {}: gemm {}x{}x{} backward={} {}", i, g.m, g.k, g.n, g.backward,
                             dtype_name(*s.gemm_dtype)));
    const Result r = predict(s, {.cache = &cache, .exports = {}});
    ASSERT_TRUE(r.ok()) << r.message;
    expect_finite_json(render_prediction(r, s, OutputFormat::json));
  }
}

TEST(FiniteJson, CollectiveReports) {
  Rng rng(0x5eed000c);
  const std::vector<CollectiveOp> ops{CollectiveOp::all_reduce, CollectiveOp::all_gather,
                                      CollectiveOp::reduce_scatter, CollectiveOp::all_to_all,
                                      CollectiveOp::broadcast,  CollectiveOp::send_recv};
  constexpr int kCases = 60;
  for (int i = 0; i < kCases; ++i) {
    const HardwareSpec& hw = shipped(rng.pick(shipped_hardware()), "llama2-7b").hardware;
    CollectiveRequest req;
    req.op = rng.pick(ops);
    // Zero bytes and one rank are valid and take no time: busbw must still be a number.
    req.bytes = rng.coin(0.15) ? 0.0 : rng.log_uniform(1.0, 1e10);
    req.ranks = rng.coin(0.15) ? 1 : rng.pick(std::vector<int>{2, 4, 8, 16, 64});
    if (rng.coin(0.3)) req.dimension = hw.network.dimensions.front().id;
    req.backend = rng.coin(0.3) ? NetworkBackend::flow : NetworkBackend::analytical;
    if (req.dimension && req.ranks > 8) req.ranks = 8;  // the NVLink domain holds 8
    SCOPED_TRACE(fmt::format("case {}: {} of {} bytes over {} ranks on {} ({})", i, to_string(req.op), req.bytes,
                             req.ranks, req.dimension.value_or("all dimensions"), to_string(req.backend)));
    const CollectiveEstimate e = run_collective(hw, req);
    expect_finite_json(render_collective(e, req, hw, OutputFormat::json));
  }
}

TEST(FiniteJson, ServeReports) {
  Rng rng(0x5eed000d);
  constexpr int kCases = 6;
  for (int i = 0; i < kCases; ++i) {
    Scenario s = shipped(rng.pick(shipped_hardware()), rng.pick(std::vector<std::string>{"llama2-7b", "llama3.1-8b"}));
    llm(s).run_type = RunType::inference;
    llm(s).global_batch_size = 1;
    llm(s).seq_len = 2048;
    llm(s).decode_len = 128;
    s.hardware.parallelism.tp = rng.pick(std::vector<int>{1, 2});
    ServeOptions o;
    o.engine = *serve_engine_profile(rng.coin() ? "vllm" : "tensorrt-llm");
    o.workload.arrivals = rng.pick(std::vector<ArrivalKind>{ArrivalKind::poisson, ArrivalKind::offline,
                                                            ArrivalKind::concurrency});
    o.workload.rate_per_s = rng.log_uniform(0.1, 50.0);
    o.workload.concurrency = rng.uniform_int(1, 16);
    // A single request and one-token answers are the edges of the latency statistics
    // (no inter-token gaps, percentiles of one sample).
    o.workload.requests = rng.coin(0.3) ? 1 : rng.uniform_int(2, 60);
    const std::int64_t in = rng.uniform_int(1, 1024);
    const std::int64_t out = rng.coin(0.3) ? 1 : rng.uniform_int(1, 128);
    o.workload.input = {in, in + rng.uniform_int(0, 256)};
    o.workload.output = {out, out + rng.uniform_int(0, 16)};
    o.workload.seed = static_cast<std::uint64_t>(i + 1);
    if (rng.coin()) o.slo_ttft_s = rng.log_uniform(1e-3, 1.0);
    if (rng.coin()) o.slo_tpot_s = rng.log_uniform(1e-3, 0.1);
    SCOPED_TRACE(fmt::format("case {}: {} {} requests {} input [{}, {}] output [{}, {}] tp={}", i, o.engine.name,
                             to_string(o.workload.arrivals), o.workload.requests, o.workload.input.lo,
                             o.workload.input.hi, o.workload.output.lo, o.workload.output.hi,
                             s.hardware.parallelism.tp));
    expect_finite_json(render_serve(serve(s, o), s, o, OutputFormat::json));
    // The closed form takes fixed lengths.
    o.workload.input.hi = o.workload.input.lo;
    o.workload.output.hi = o.workload.output.lo;
    expect_finite_json(render_serve_steady_state(serve_steady_state(s, o), s, o, OutputFormat::json));
  }
}

}  // namespace
}  // namespace rapidllm::property
