// inference.csv rows -> inference predictions compared on throughput, TTFT, TPOT or
// end-to-end latency, whichever the row publishes (one case per metric). Static batches
// are predicted as one static batch; online runs at a fixed concurrency are simulated as a
// closed loop of that many clients on the serving engine; offline max-throughput runs of
// an in-flight batching engine (engine-chosen batch) take the engine's steady state.

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/serve.hpp"
#include "validate/cases.hpp"
#include "validate/csv_table.hpp"
#include "validate/device_map.hpp"
#include "validate/row_architecture.hpp"

namespace rapidllm::validate {

namespace {

// `row_arch`: the row's MoE and attention text (row_architecture.hpp), read by the caller.
std::optional<Scenario> scenario(const CsvRow& r, const RowArchitecture& row_arch, const CaseInputs& in,
                                 std::string& reason) {
  auto hw = device_for(r.text("gpu"), in.config_dir, in.overrides, reason);
  if (!hw) return std::nullopt;
  use_row_stack(*hw, r.text("engine"), RunType::inference);
  // Static batching: the published batch size, or the fixed concurrency of online runs.
  auto batch = r.number("batch_size");
  if (!batch) batch = r.number("concurrency");
  for (const char* c : {"layers", "hidden", "heads", "ffn", "vocab", "input_len", "output_len", "tp"}) {
    // An MoE row's ffn is text, read above.
    if (row_arch.intermediate_size > 0 && std::string_view(c) == "ffn") continue;
    if (!r.number(c)) {
      reason = fmt::format("'{}' is not stated as a number ('{}')", c, r.text(c));
      return std::nullopt;
    }
  }
  if (!batch && !has_text(r.text("batching"), "offline")) {
    reason = "no batch size, concurrency or offline load stated";
    return std::nullopt;
  }
  Scenario s{*hw, ModelSpec{{}, LlmModelSpec{}}, r.text("row_id"), std::nullopt, {}};
  LlmModelSpec& m = std::get<LlmModelSpec>(s.model.workload);
  m.run_type = RunType::inference;
  // Every modelled row is a Llama-family model (SwiGLU, RMSNorm, RoPE), gated experts on MoE rows.
  m.model_type = "llama";
  m.num_layers = static_cast<int>(*r.number("layers"));
  m.hidden_dim = static_cast<std::int64_t>(*r.number("hidden"));
  m.intermediate_size =
      row_arch.intermediate_size > 0 ? row_arch.intermediate_size : static_cast<std::int64_t>(*r.number("ffn"));
  // Experts split over the TP ranks (the engines' expert parallelism over the same GPUs
  // moves the same bytes and FLOPs per GPU at the batches these rows run).
  m.moe = row_arch.moe;
  m.attention.head_dim = row_arch.attention.head_dim;
  m.vocab_size = static_cast<std::int64_t>(*r.number("vocab"));
  m.attention.num_heads = static_cast<int>(*r.number("heads"));
  m.attention.kv_heads = static_cast<int>(r.number("kv_heads").value_or(m.attention.num_heads));
  m.attention.type = m.attention.kv_heads == m.attention.num_heads ? AttentionType::mha : AttentionType::gqa;
  m.attention.use_flash_attention = true;
  m.global_batch_size = static_cast<std::int64_t>(batch.value_or(1.0));
  const auto input = static_cast<std::int64_t>(*r.number("input_len"));
  m.decode_len = static_cast<std::int64_t>(*r.number("output_len"));
  m.seq_len = input + m.decode_len;
  if (row_arch.moe_row() && r.number("ep").value_or(1.0) > 1.0 && *r.number("ep") != *r.number("tp")) {
    reason = fmt::format("EP {} other than TP {}: the experts are modelled split over the TP ranks", r.text("ep"),
                         r.text("tp"));
    return std::nullopt;
  }
  s.hardware.parallelism.tp = static_cast<int>(*r.number("tp"));
  s.hardware.parallelism.pp = static_cast<int>(r.number("pp").value_or(1));
  s.hardware.parallelism.tp_sp = false;  // inference engines all-reduce
  // FP8 weights where the GPU has FP8 tensor cores ("FP16/BF16 on A100; FP8 on H100").
  // A hedged claim ("possibly FP8 (unverified)") is not read as FP8: the 16-bit default stands.
  const std::string weights = r.text("weight_dtype");
  const bool stated_fp8 = has_text(weights, "fp8") && !has_text(weights, "possibly") && !has_text(weights, "unverified");
  if (stated_fp8 && s.hardware.core.peak_flops_per_s(DType::fp8)) {
    s.hardware.sw.precision.matmul = Precision{1.0, DType::fp8};
    s.hardware.sw.precision.parameters = Precision{1.0, DType::fp8};  // the checkpoint stores them in FP8
    // The ModelOpt FP8 checkpoints quantize the KV cache too (their hf_quant_config's
    // kv_cache_quant_algo is FP8): "FP8 (ModelOpt default...)" is read as FP8.
    const std::string kv = r.text("kv_dtype");
    if (has_text(kv, "fp8") && has_text(kv, "modelopt")) s.hardware.sw.precision.kv_cache = Precision{1.0, DType::fp8};
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

// The engine a served row ran on: TensorRT-LLM (NIM's backend for these models, and the
// max-throughput tables' engine).
ServeOptions served_options(const CsvRow& r) {
  ServeOptions o;
  o.engine = *serve_engine_profile("tensorrt-llm");
  o.workload.input = {static_cast<std::int64_t>(*r.number("input_len")), static_cast<std::int64_t>(*r.number("input_len"))};
  o.workload.output = {static_cast<std::int64_t>(*r.number("output_len")),
                       static_cast<std::int64_t>(*r.number("output_len"))};
  o.keep_requests = false;
  return o;
}

// What a served row's metrics are predicted from.
struct Served {
  double output_tokens_per_s = 0.0;
  double ttft_s = 0.0;
  double tpot_s = 0.0;
  double e2e_s = 0.0;
};

// Online at a fixed concurrency: a closed loop of that many clients, each sending its next
// request when the last one ends, long enough (20 requests per client) that the start-up
// weighs little; means, as the benchmark clients report them.
std::optional<Served> serve_closed_loop(const Scenario& s, const CsvRow& r, std::string& reason) {
  ServeOptions o = served_options(r);
  o.workload.arrivals = ArrivalKind::concurrency;
  o.workload.concurrency = static_cast<int>(*r.number("concurrency"));
  o.workload.requests = 20LL * o.workload.concurrency;
  try {
    const ServeResult res = serve(s, o);
    return Served{res.output_tokens_per_s, res.ttft.mean_s, res.tpot.mean_s, res.e2e.mean_s};
  } catch (const InfeasibleError& e) {
    reason = e.what();
    return std::nullopt;
  }
}

// Offline maximum throughput (every request queued): the engine's steady state with the
// row's request count.
std::optional<Served> serve_offline(const Scenario& s, const CsvRow& r, std::string& reason) {
  ServeOptions o = served_options(r);
  o.workload.arrivals = ArrivalKind::offline;
  o.workload.requests = static_cast<std::int64_t>(r.number("num_requests").value_or(0.0));
  try {
    const SteadyState st = serve_steady_state(s, o);
    return Served{st.output_tokens_per_s, 0.0, 0.0, 0.0};
  } catch (const InfeasibleError& e) {
    reason = e.what();
    return std::nullopt;
  }
}

}  // namespace

std::vector<CaseResult> inference_cases(const CaseInputs& in, PredictionCache& cache) {
  std::vector<CaseResult> out;
  for (const auto& r : read_csv(in.data_dir + "/inference.csv")) {
    if (!in.wanted(source_name(r.text("source")))) continue;
    CaseResult base;
    base.row_id = r.text("row_id");
    base.source = source_name(r.text("source"));
    // MoE rows are their own kind, as in training: their error is not the dense rows'.
    base.kind = r.text("moe_experts").empty() ? "inference" : "inference_moe";
    base.description = fmt::format("{} tp{} batch {} in {} out {}", r.text("model").substr(0, 20), r.text("tp"),
                                   r.text("batch_size").empty() ? r.text("concurrency") : r.text("batch_size"),
                                   r.text("input_len"), r.text("output_len"));
    std::string reason;
    const auto arch = read_row_architecture(r, reason);  // MoE and attention text; dense rows pass
    if (arch && arch->chunked_attention) base.description += " (its chunked attention run as full causal)";
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
    auto s = arch ? scenario(r, *arch, in, reason) : std::nullopt;
    std::optional<InferencePrediction> p;
    std::optional<Served> served;
    const bool online = !r.text("concurrency").empty();
    const bool offline = !online && r.text("batch_size").empty();
    bool waves = false;
    if (s) {
      try {
        if (online) {
          served = serve_closed_loop(*s, r, reason);
        } else if (offline) {
          served = serve_offline(*s, r, reason);
        } else {
          p = predict_row(*s, cache, reason);
          // A static batch whose KV cache does not fit is run in waves by the engine.
          waves = p && !p->memory.fits();
        }
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
      } else if (served) {
        if (offline && metric != "output_tokens_per_s") {
          c.reason = "an offline steady state predicts throughput, not per-request latency";
        } else {
          c.status = CaseStatus::compared;
          c.predicted = metric == "output_tokens_per_s" ? served->output_tokens_per_s
                        : metric == "ttft_s"            ? served->ttft_s
                        : metric == "tpot_s"            ? served->tpot_s
                                                        : served->e2e_s;
        }
      } else if (!p) {
        c.status = CaseStatus::failed;
        c.reason = reason;
      } else {
        c.status = CaseStatus::compared;
        if (metric == "output_tokens_per_s") {
          c.predicted = p->replicas * static_cast<double>(p->batch_size) * static_cast<double>(p->decode_len) /
                        p->total_time_s;
        }
        if (metric == "ttft_s") c.predicted = p->prefill_time_s;
        if (metric == "tpot_s") c.predicted = p->tpot.mean_s;
        if (metric == "e2e_latency_s") c.predicted = p->total_time_s;
      }
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace rapidllm::validate
