// memory.csv rows -> the training memory model: torchtitan's measured per-GPU peaks, and
// Korthikanti et al.'s per-GPU breakdowns (static terms and first-stage activations).

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "validate/cases.hpp"
#include "validate/csv_table.hpp"
#include "validate/device_map.hpp"
#include "validate/pipeline_micro_batch.hpp"

namespace rapidllm::validate {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double category(const MemoryBreakdown& m, const std::string& name) {
  for (const auto& [n, b] : m.bytes) {
    if (n == name) return b;
  }
  return 0.0;
}

}  // namespace

std::vector<CaseResult> memory_cases(const CaseInputs& in, PredictionCache& cache) {
  std::vector<CaseResult> out;
  for (const auto& r : read_csv(in.data_dir + "/memory.csv")) {
    if (!in.wanted(source_name(r.text("source")))) continue;
    CaseResult c;
    c.row_id = r.text("row_id");
    c.source = source_name(r.text("source"));
    c.kind = "memory";
    c.description = fmt::format("{} on {} x {}", r.text("model").substr(0, 18), r.text("num_gpus"), r.text("gpu").substr(0, 12));
    const std::string metric = r.text("metric");
    c.metric = has_text(metric, "activation") ? "activation_bytes_first_stage"
               : has_text(metric, "parameters+gradients") ? "static_bytes_first_stage"
                                                      : "peak_memory_bytes";
    c.measured = r.number("value_GiB").value_or(0.0) * kGiB;
    std::string reason;
    auto hw = device_for(r.text("gpu"), in.config_dir, in.overrides, reason);
    if (has_text(r.text("precision"), "float8") || has_text(r.text("metric"), "sampled")) {
      reason = "float8 training memory (fp8 weight copies and scales) is not modelled yet";
      hw.reset();
    }
    if (!hw) {
      c.reason = reason;
      out.push_back(c);
      continue;
    }
    use_row_stack(*hw, r.text("framework"), RunType::training);  // e.g. torchtitan's eager cross-entropy
    LlmModelSpec m;
    m.run_type = RunType::training;
    const bool llama = has_text(r.text("model"), "llama");
    m.model_type = llama ? "llama" : "gpt";
    m.num_layers = static_cast<int>(r.number("layers").value_or(0));
    m.hidden_dim = static_cast<std::int64_t>(r.number("hidden").value_or(0));
    m.intermediate_size = static_cast<std::int64_t>(r.number("ffn").value_or(4.0 * static_cast<double>(m.hidden_dim)));
    m.vocab_size = static_cast<std::int64_t>(r.number("vocab").value_or(51200));
    m.seq_len = static_cast<std::int64_t>(r.number("seq_len").value_or(0));
    m.attention.num_heads = static_cast<int>(r.number("heads").value_or(1));
    m.attention.kv_heads = static_cast<int>(r.number("kv_heads").value_or(m.attention.num_heads));
    m.attention.type = m.attention.kv_heads == m.attention.num_heads ? AttentionType::mha : AttentionType::gqa;
    m.attention.use_flash_attention = llama;  // torchtitan uses SDPA flash; the 2022 study predates it
    m.global_batch_size = static_cast<std::int64_t>(r.number("global_batch_seqs").value_or(1));
    ParallelismSpec& p = hw->parallelism;
    p.tp = static_cast<int>(r.number("tp").value_or(1));
    p.pp = static_cast<int>(r.number("pp").value_or(1));
    p.cp = static_cast<int>(r.number("cp").value_or(1));
    p.dp = static_cast<int>(r.number("dp_or_fsdp").value_or(1));
    p.tp_sp = p.tp > 1 && (has_text(r.text("seq_parallel"), "yes") || llama);
    p.micro_batch_size = static_cast<int>(r.number("micro_batch").value_or(1));
    if (has_text(r.text("framework"), "torchtitan")) {
      const auto micro_batch = torchtitan_micro_batch(*p.micro_batch_size, p.pp, reason);
      if (!micro_batch) {
        c.reason = reason;
        out.push_back(c);
        continue;
      }
      p.micro_batch_size = *micro_batch;
    }
    const auto vpp = r.number("vpp");
    const bool interleaved = has_text(r.text("pipeline_schedule"), "interleav") || (vpp && *vpp > 1);
    p.pp_schedule = interleaved ? PipelineSchedule::interleaved_1f1b : PipelineSchedule::one_f_one_b;
    p.vpp = interleaved ? static_cast<int>(vpp.value_or(2)) : 1;
    const std::string rc = r.text("recompute");
    hw->sw.recompute = has_text(rc, "full")        ? ActivationRecompute::full
                       : has_text(rc, "(op)")      ? ActivationRecompute::op  // torchtitan's selective op checkpointing
                       : has_text(rc, "selective") ? ActivationRecompute::selective
                                              : ActivationRecompute::none;  // "none" (and "any" for static rows)
    if (has_text(r.text("zero_fsdp"), "fsdp")) {
      // FSDP2 mixed precision: fp32 sharded parameters (they are the master copy), fp32
      // gradients and Adam moments, all sharded over the data-parallel ranks.
      hw->sw.dp_zero_stage = 3;
      hw->sw.precision.parameters = Precision{4.0, DType::fp32};
      hw->sw.precision.master_parameters_bytes = 0.0;
    }
    const Scenario s{std::move(*hw), ModelSpec{{}, m}, c.row_id, std::nullopt, {}};
    try {
      const Result result = predict(s, {.cache = &cache, .exports = {}});
      if (result.ok()) {
        const auto& pred = std::get<TrainingPrediction>(result.prediction);
        const MemoryBreakdown& first = pred.stage_memory.front();
        if (c.metric == "peak_memory_bytes") c.predicted = pred.memory.total_bytes;
        if (c.metric == "activation_bytes_first_stage") c.predicted = category(first, "activations");
        if (c.metric == "static_bytes_first_stage") {
          c.predicted = category(first, "weights") + category(first, "gradients") + category(first, "optimizer_states");
        }
        c.status = CaseStatus::compared;
      } else {
        c.status = CaseStatus::failed;
        c.reason = result.message;
      }
    } catch (const ConfigError& e) {  // an architecture the models do not cover
      c.status = CaseStatus::failed;
      c.reason = e.what();
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace rapidllm::validate
