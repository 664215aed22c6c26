// inference.csv rows -> inference predictions compared on throughput, TTFT, TPOT or
// end-to-end latency, whichever the row publishes (one case per metric).
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "validate/cases.hpp"
#include "validate/csv_table.hpp"
#include "validate/device_map.hpp"

namespace rapidllm::validate {

namespace {

bool has(const std::string& s, const char* needle) {
  std::string l(s);
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return l.find(needle) != std::string::npos;
}

std::optional<Scenario> scenario(const CsvRow& r, const CaseInputs& in, std::string& reason) {
  if (r.number("moe_experts").value_or(1) > 1) {
    reason = "mixture-of-experts models are not modelled yet";
    return std::nullopt;
  }
  auto hw = device_for(r.text("gpu"), in.config_dir, reason);
  if (!hw) return std::nullopt;
  // Static batching: the published batch size, or the fixed concurrency of online runs.
  auto batch = r.number("batch_size");
  if (!batch) batch = r.number("concurrency");
  for (const char* c : {"layers", "hidden", "heads", "ffn", "vocab", "input_len", "output_len", "tp"}) {
    if (!r.number(c)) {
      reason = fmt::format("'{}' is not stated as a number ('{}')", c, r.text(c));
      return std::nullopt;
    }
  }
  if (!batch) {
    reason = "in-flight batching with an engine-chosen, unpublished batch size needs a steady-state batching model";
    return std::nullopt;
  }
  Scenario s{*hw, ModelSpec{{}, LlmModelSpec{}}, r.text("row_id"), std::nullopt};
  LlmModelSpec& m = std::get<LlmModelSpec>(s.model.workload);
  m.run_type = RunType::inference;
  m.model_type = "llama";  // every modelled row is a Llama-family model (SwiGLU, RMSNorm, RoPE)
  m.num_layers = static_cast<int>(*r.number("layers"));
  m.hidden_dim = static_cast<std::int64_t>(*r.number("hidden"));
  m.intermediate_size = static_cast<std::int64_t>(*r.number("ffn"));
  m.vocab_size = static_cast<std::int64_t>(*r.number("vocab"));
  m.attention.num_heads = static_cast<int>(*r.number("heads"));
  m.attention.kv_heads = static_cast<int>(r.number("kv_heads").value_or(m.attention.num_heads));
  m.attention.type = m.attention.kv_heads == m.attention.num_heads ? AttentionType::mha : AttentionType::gqa;
  m.attention.use_flash_attention = true;
  m.global_batch_size = static_cast<std::int64_t>(*batch);
  const auto input = static_cast<std::int64_t>(*r.number("input_len"));
  m.decode_len = static_cast<std::int64_t>(*r.number("output_len"));
  m.seq_len = input + m.decode_len;
  s.hardware.parallelism.tp = static_cast<int>(*r.number("tp"));
  s.hardware.parallelism.pp = static_cast<int>(r.number("pp").value_or(1));
  s.hardware.parallelism.tp_sp = false;  // inference engines all-reduce
  // FP8 weights where the GPU has FP8 tensor cores ("FP16/BF16 on A100; FP8 on H100").
  // A hedged claim ("possibly FP8 (unverified)") is not read as FP8: the 16-bit default stands.
  const std::string weights = r.text("weight_dtype");
  const bool stated_fp8 = has(weights, "fp8") && !has(weights, "possibly") && !has(weights, "unverified");
  if (stated_fp8 && s.hardware.core.peak_flops_per_s(DType::fp8)) {
    s.hardware.sw.precision.matmul = Precision{1.0, DType::fp8};
  }
  return s;
}

// The row's inference prediction, or nullopt with `reason` when it cannot run.
std::optional<InferencePrediction> predict_row(const Scenario& s, PredictionCache& cache, std::string& reason) {
  Result result = predict(s, {.cache = &cache, .exports = {}});
  if (!result.ok()) {
    reason = result.message;
    return std::nullopt;
  }
  return std::get<InferencePrediction>(std::move(result.prediction));
}

}  // namespace

std::vector<CaseResult> inference_cases(const CaseInputs& in, PredictionCache& cache) {
  std::vector<CaseResult> out;
  for (const auto& r : read_csv(in.data_dir + "/inference.csv")) {
    CaseResult base;
    base.row_id = r.text("row_id");
    base.source = source_name(r.text("source"));
    base.kind = "inference";
    base.description = fmt::format("{} tp{} batch {} in {} out {}", r.text("model").substr(0, 20), r.text("tp"),
                                   r.text("batch_size").empty() ? r.text("concurrency") : r.text("batch_size"),
                                   r.text("input_len"), r.text("output_len"));
    // The metrics this row publishes: (metric, column, unit scale to SI).
    std::vector<std::tuple<std::string, std::string, double>> metrics;
    if (r.number("out_tok_s_total")) metrics.emplace_back("output_tokens_per_s", "out_tok_s_total", 1.0);
    if (r.number("ttft_ms")) metrics.emplace_back("ttft_s", "ttft_ms", 1e-3);
    if (r.number("tpot_ms")) metrics.emplace_back("tpot_s", "tpot_ms", 1e-3);
    if (r.number("e2e_latency_s")) metrics.emplace_back("e2e_latency_s", "e2e_latency_s", 1.0);
    if (metrics.empty()) {
      base.metric = "none";
      base.reason = "no throughput or latency published";
      out.push_back(base);
      continue;
    }
    std::string reason;
    auto s = scenario(r, in, reason);
    std::optional<InferencePrediction> p;
    std::optional<InferencePrediction> single;  // one request alone (online serving's TTFT)
    bool waves = false;
    if (s) {
      try {
        p = predict_row(*s, cache, reason);
        // Online serving at fixed concurrency: each request's prefill runs as it arrives,
        // so its time to first token is a batch-1 prefill; decode steps batch them all.
        if (p && !r.text("concurrency").empty()) {
          Scenario one = *s;
          std::get<LlmModelSpec>(one.model.workload).global_batch_size = 1;
          single = predict_row(one, cache, reason);
        }
        // A static batch whose KV cache does not fit is run in waves by the engine.
        waves = p && r.text("concurrency").empty() && !p->memory.fits();
      } catch (const ConfigError& e) {  // an architecture the models do not cover
        reason = e.what();
      }
    }
    for (const auto& [metric, column, scale] : metrics) {
      CaseResult c = base;
      c.metric = metric;
      c.measured = *r.number(column) * scale;
      if (!s) {
        c.reason = reason;
      } else if (waves) {
        c.reason = "the batch's KV cache does not fit in memory: the engine runs it in waves, not as one static batch";
      } else if (!p) {
        c.status = CaseStatus::failed;
        c.reason = reason;
      } else {
        c.status = CaseStatus::compared;
        if (metric == "output_tokens_per_s") {
          c.predicted = p->replicas * static_cast<double>(p->batch_size) * static_cast<double>(p->decode_len) /
                        p->total_time_s;
        }
        if (metric == "ttft_s") c.predicted = single ? single->prefill_time_s : p->prefill_time_s;
        if (metric == "tpot_s") c.predicted = p->tpot.mean_s;
        if (metric == "e2e_latency_s") c.predicted = p->total_time_s;
      }
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace rapidllm::validate
