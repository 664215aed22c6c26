// training.csv rows -> training predictions compared on step time (or throughput, or
// TFLOP/s where that is all a source printed).
#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "validate/cases.hpp"
#include "validate/csv_table.hpp"
#include "validate/device_map.hpp"
#include "validate/megatron_flops.hpp"
#include "validate/pipeline_micro_batch.hpp"
#include "validate/row_architecture.hpp"
#include "validate/row_stack.hpp"

namespace rapidllm::validate {

namespace {

// A row's scenario, with what the comparison needs beyond it.
struct Built {
  Scenario scenario;
  int mtp_depth = 0;  // counted in the source's FLOPs (megatron_flops.hpp), not modelled
  std::string note;   // for the case description: how the row was re-expressed, or ""
  int assumed_micro_batch = 0;  // the micro-batch read for a row that states none (0: it states one)
};

// Builds the scenario, or says why the row cannot be modelled.
std::optional<Built> scenario(const CsvRow& r, const CaseInputs& in, std::string& reason) {
  const std::string arch = r.text("arch_notes");
  // MoE, MLA and sliding-window text (row_architecture.hpp); dense rows pass unchanged.
  const auto row_arch = read_row_architecture(r, reason);
  if (!row_arch) return std::nullopt;
  if (has_text(r.text("model"), "lora")) {
    reason = "parameter-efficient fine-tuning (frozen base weights, LoRA adapters) is not modelled yet";
    return std::nullopt;
  }
  auto hw = device_for(r.text("gpu"), in.config_dir, in.overrides, reason);
  if (!hw) return std::nullopt;
  use_row_stack(*hw, r.text("framework"), RunType::training);
  use_framework_rank_order(*hw);
  for (const char* c : {"tp", "pp", "dp", "layers", "hidden", "heads", "ffn", "vocab", "seq_len", "global_batch_seqs"}) {
    // An MoE row's ffn is text, read above.
    if (row_arch->intermediate_size > 0 && std::string_view(c) == "ffn") continue;
    if (!r.number(c)) {
      reason = fmt::format("'{}' is not stated as a number ('{}')", c, r.text(c));
      return std::nullopt;
    }
  }
  Built b{Scenario{*hw, ModelSpec{{}, LlmModelSpec{}}, r.text("row_id"), std::nullopt, {}}, row_arch->mtp_depth, ""};
  Scenario& s = b.scenario;
  LlmModelSpec& m = std::get<LlmModelSpec>(s.model.workload);
  m.run_type = RunType::training;
  m.model_type = !row_arch->model_type.empty() ? row_arch->model_type : has_text(arch, "swiglu") ? "llama" : "gpt";
  m.num_layers = static_cast<int>(*r.number("layers"));
  m.hidden_dim = static_cast<std::int64_t>(*r.number("hidden"));
  m.intermediate_size =
      row_arch->intermediate_size > 0 ? row_arch->intermediate_size : static_cast<std::int64_t>(*r.number("ffn"));
  m.vocab_size = static_cast<std::int64_t>(*r.number("vocab"));
  m.seq_len = static_cast<std::int64_t>(*r.number("seq_len"));
  m.global_batch_size = static_cast<std::int64_t>(*r.number("global_batch_seqs"));
  m.attention.num_heads = static_cast<int>(*r.number("heads"));
  m.attention.kv_heads = static_cast<int>(r.number("kv_heads").value_or(m.attention.num_heads));
  m.attention.type = m.attention.kv_heads == m.attention.num_heads ? AttentionType::mha : AttentionType::gqa;
  const AttentionSpec& text = row_arch->attention;
  if (text.type == AttentionType::mla) {
    m.attention.type = AttentionType::mla;
    m.attention.kv_heads = m.attention.num_heads;
    m.attention.kv_lora_rank = text.kv_lora_rank;
    m.attention.q_lora_rank = text.q_lora_rank;
    m.attention.qk_nope_head_dim = text.qk_nope_head_dim;
    m.attention.qk_rope_head_dim = text.qk_rope_head_dim;
    m.attention.v_head_dim = text.v_head_dim;
  }
  m.attention.head_dim = text.head_dim;
  m.attention.sliding_window = text.sliding_window;
  m.attention.global_every = text.global_every;
  m.moe = row_arch->moe;
  // FlashAttention reached the training stacks in 2023; earlier releases computed it unfused.
  m.attention.use_flash_attention = !predates_flash_attention(r.text("framework"));

  ParallelismSpec& p = s.hardware.parallelism;
  p.tp = static_cast<int>(*r.number("tp"));
  p.pp = static_cast<int>(*r.number("pp"));
  p.dp = static_cast<int>(*r.number("dp"));
  p.cp = static_cast<int>(r.number("cp").value_or(1));
  int vpp = static_cast<int>(r.number("vpp").value_or(1));
  const std::string_view stack = row_stack_name(r.text("framework"));
  if (!r.number("vpp") && p.pp > 1 && (stack == "megatron-core" || stack == "nemo-24")) {
    // NVIDIA's Megatron-Core and NeMo tables that publish it run pp > 1 interleaved (84 of the
    // 88 such rows in the data), most often at one layer per virtual stage: a row that does
    // not publish it takes the fewest layers per stage its layers divide into.
    for (int v = m.num_layers / p.pp; v >= 2 && vpp == 1; --v) {
      if (m.num_layers % (p.pp * v) == 0) vpp = v;
    }
    if (vpp > 1) b.note = fmt::format("vpp {} (not published: interleaved, one layer per virtual stage)", vpp);
  }
  p.pp_schedule = vpp > 1 ? PipelineSchedule::interleaved_1f1b : PipelineSchedule::one_f_one_b;
  p.vpp = vpp > 1 ? vpp : 1;
  const std::string sp = lowercase(r.text("seq_parallel"));
  const bool megatron = has_text(r.text("framework"), "nemo") || has_text(r.text("framework"), "megatron");
  p.tp_sp = p.tp > 1 && (sp.rfind("yes", 0) == 0 || sp.rfind("likely yes", 0) == 0 || (sp.empty() && megatron));
  // NeMo and Megatron-Core run their H100 performance recipes with tp_comm_overlap: the
  // sequence-parallel all-gathers and reduce-scatters are split and pipelined under the TP
  // GEMMs (Transformer Engine userbuffers).
  if (megatron && p.tp_sp) s.hardware.network.overlap.tp_sp_overlap = 1.0;
  // Megatron-LM's default micro-batch is 1; rows that do not state one are read so.
  p.micro_batch_size = static_cast<int>(r.number("micro_batch").value_or(1));
  if (has_text(r.text("framework"), "torchtitan")) {
    const auto micro_batch = torchtitan_micro_batch(*p.micro_batch_size, p.pp, reason);
    if (!micro_batch) return std::nullopt;
    p.micro_batch_size = *micro_batch;
    if (p.pp > 1 && vpp <= 1 && has_text(r.text("notes"), "interleaved")) {
      p.pp_schedule = PipelineSchedule::interleaved_1f1b;
      p.vpp = kTorchtitanStagesPerRank;
    }
    // torch.compile fuses each block's norms, SwiGLU and rotary embedding; a run without it
    // runs them as PyTorch eager ops.
    if (!has_text(r.text("notes"), "compile")) s.hardware.sw.elementwise_kernels = ElementwiseKernels::eager;
  }
  s.hardware.sw.dp_zero_stage = zero_stage_of(r.text("zero_fsdp"));
  const std::string rc = lowercase(r.text("recompute"));
  // "selective (op)": torchtitan's selective op checkpointing.
  s.hardware.sw.recompute = rc.rfind("full", 0) == 0 ? ActivationRecompute::full
                            : rc.find("(op)") != std::string::npos ? ActivationRecompute::op
                            : rc.rfind("none", 0) == 0 && rc.find("selective") == std::string::npos
                                ? ActivationRecompute::none
                                : ActivationRecompute::selective;
  if (has_text(r.text("precision"), "fp8") || has_text(r.text("precision"), "float8")) {
    s.hardware.sw.precision.matmul = Precision{1.0, DType::fp8};
  }
  const bool megatron_v1 = predates_megatron_micro_batches(r.text("framework"));
  if (megatron_v1) {
    // Megatron-LM v1's DDP all-reduced the half-precision .grad of its FP16 module as they
    // were (--fp32-allreduce off by default); its FP16 optimizer kept the fp32 copies.
    s.hardware.sw.precision.grad_communication = s.hardware.sw.precision.tensor_format;
  }
  if (row_arch->moe_row()) {
    // DeepSeek-V3's DualPipe runs one micro-batch's dispatch and combine all-to-alls under
    // another's compute, "full computation-communication overlap" (its report, Sec. 3.2.1).
    if (has_text(r.text("notes"), "dualpipe")) s.hardware.network.overlap.ep_overlap = 1.0;
    // The row's EP is carved out of its DP ranks; rapidllm's multiplies the GPU count.
    const auto layout = map_expert_parallel(p.tp, p.dp, p.cp, static_cast<int>(r.number("ep").value_or(1)),
                                            m.moe.num_experts, reason);
    if (!layout) return std::nullopt;
    p.dp = layout->dp;
    p.ep = layout->ep;
    p.tp_ep = layout->tp_ep;
    b.note += fmt::format("{}{}", b.note.empty() || layout->note.empty() ? "" : "; ", layout->note);
  }
  if (b.mtp_depth > 0) b.note += fmt::format("{}MTP depth {} not modelled", b.note.empty() ? "" : "; ", b.mtp_depth);
  const long long gpus = 1LL * p.tp * p.pp * p.dp * p.cp * p.ep;
  if (auto n = r.number("num_gpus"); n && static_cast<long long>(*n) != gpus) {
    reason = p.ep > 1 ? fmt::format("tp x pp x dp x cp x ep = {} (after mapping EP) but the row says {} GPUs", gpus, *n)
                      : fmt::format("tp x pp x dp x cp = {} but the row says {} GPUs", gpus, *n);
    return std::nullopt;
  }
  // A row that states no micro-batch: Megatron's default of 1, but the rank's whole batch in
  // one pass under FSDP with no gradient accumulation stated (every further micro-batch
  // would gather every layer's parameters again) and under Megatron-LM before v2.0 (its
  // --batch-size was the rank's batch; it had no micro-batches).
  const long long ranks = 1LL * p.dp * (m.moe.num_experts > 1 ? p.ep : 1);
  const auto nearest = [](long long total, long long share) {
    return std::max(1LL, std::llround(static_cast<double>(total) / static_cast<double>(share)));
  };
  if (!r.number("micro_batch")) {
    const bool one_pass = (s.hardware.sw.dp_zero_stage == 3 && r.number("grad_accum").value_or(1) == 1) ||
                          megatron_v1;
    b.assumed_micro_batch = one_pass ? static_cast<int>(nearest(m.global_batch_size, ranks)) : 1;
    p.micro_batch_size = b.assumed_micro_batch;
  }
  // A published global batch that the data-parallel ranks cannot share evenly (a rounded
  // "2M tokens") runs as the nearest batch they can: the rate per token is what is compared.
  const long long replicas = ranks * p.micro_batch_size.value_or(1);
  if (m.global_batch_size % replicas != 0) {
    const long long shared = nearest(m.global_batch_size, replicas) * replicas;
    b.note += fmt::format("{}global batch {} run as {} (dp x micro-batch = {} does not divide it)",
                          b.note.empty() ? "" : "; ", m.global_batch_size, shared, replicas);
    m.global_batch_size = shared;
  }
  return b;
}

CaseResult compare(const CsvRow& r, const CaseInputs& in, PredictionCache& cache) {
  CaseResult c;
  c.row_id = r.text("row_id");
  c.source = source_name(r.text("source"));
  // Mixture-of-experts rows are summarised (and gated) on their own: their error is not the
  // dense rows' and should not hide in it.
  c.kind = r.text("moe_experts").empty() ? "training" : "training_moe";
  c.description = fmt::format("{} on {} x {}", r.text("model"), r.text("num_gpus"), r.text("gpu").substr(0, 14));
  // The published metric, in order of preference.
  if (auto t = r.number("step_time_s")) {
    c.metric = "step_time_s";
    c.measured = *t;
  } else if (auto tps = r.number("tokens_per_s_total")) {
    c.metric = "tokens_per_s";
    c.measured = *tps;
  } else if (auto tpg = r.number("tokens_per_s_per_gpu")) {
    c.metric = "tokens_per_s_per_gpu";
    c.measured = *tpg;
  } else if (auto tf = r.number("tflops_per_gpu")) {
    c.metric = "tflops_per_gpu";
    c.measured = *tf;
  } else {
    c.reason = "no step time, throughput or TFLOP/s published";
    return c;
  }
  std::string reason;
  auto built = scenario(r, in, reason);
  if (!built) {
    c.reason = reason;
    return c;
  }
  if (built->assumed_micro_batch > 0) c.description += fmt::format(" (micro-batch assumed {})", built->assumed_micro_batch);
  if (!built->note.empty()) c.description += "; " + built->note;
  const Scenario& s = built->scenario;
  try {
    const Result result = predict(s, {.cache = &cache, .exports = {}});
    if (!result.ok()) {
      c.status = CaseStatus::failed;
      c.reason = result.message;
      return c;
    }
    const auto& p = std::get<TrainingPrediction>(result.prediction);
    if (c.metric == "step_time_s") c.predicted = p.step_time_s;
    if (c.metric == "tokens_per_s") c.predicted = p.tokens_per_s;
    if (c.metric == "tokens_per_s_per_gpu") c.predicted = p.tokens_per_s / p.num_gpus;
    if (c.metric == "tflops_per_gpu") {
      const double flops = megatron_flops(std::get<LlmModelSpec>(s.model.workload), built->mtp_depth);
      c.predicted = flops / p.step_time_s / p.num_gpus / 1e12;
    }
    c.status = CaseStatus::compared;
  } catch (const ConfigError& e) {  // an architecture the models do not cover
    c.status = CaseStatus::failed;
    c.reason = e.what();
  }
  return c;
}

}  // namespace

std::optional<Scenario> training_row_scenario(const CaseInputs& in, const std::string& row_id) {
  for (const auto& row : read_csv(in.data_dir + "/training.csv")) {
    if (row.text("row_id") != row_id) continue;
    std::string reason;
    auto built = scenario(row, in, reason);
    if (!built) throw InfeasibleError(fmt::format("{} cannot be modelled: {}", row_id, reason));
    built->scenario.model_file = fmt::format("{} ({} on {} x {}{}{})", row_id, row.text("model"), row.text("num_gpus"),
                                             row.text("gpu"), built->note.empty() ? "" : "; ", built->note);
    return std::move(built->scenario);
  }
  return std::nullopt;
}

std::vector<CaseResult> training_cases(const CaseInputs& in, PredictionCache& cache) {
  std::vector<CaseResult> out;
  for (const auto& row : read_csv(in.data_dir + "/training.csv")) {
    if (in.wanted(source_name(row.text("source")))) out.push_back(compare(row, in, cache));
  }
  return out;
}

}  // namespace rapidllm::validate
