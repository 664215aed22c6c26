#include "serve/iteration_cost.hpp"

#include <algorithm>

#include "exec/inference_step.hpp"
#include "exec/step_simulator.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/software_stack.hpp"

namespace rapidllm::serving {

namespace {

constexpr auto kAttention = static_cast<std::size_t>(model::OpClass::attention);

const LlmModelSpec& llm(const Scenario& s) {
  const auto* m = std::get_if<LlmModelSpec>(&s.model.workload);
  if (m == nullptr) {
    throw ConfigError(SourceLocation{s.model_file, 0, 0, {}}, "model_param.mode", "serving needs an LLM model",
                      "give an LLM model file (GEMM workloads are not served)");
  }
  return *m;
}

HardwareSpec replica_hardware(const Scenario& s) {
  const ParallelismSpec& p = s.hardware.parallelism;
  if (p.cp > 1 || p.moe_dp > 1) {
    throw ConfigError(SourceLocation{s.hardware.source, 0, 0, {}}, p.cp > 1 ? "parallelism.cp" : "parallelism.inference.moe_dp",
                      "serving with context or expert parallelism is not modelled",
                      "serve with tp and pp (set cp and moe_dp to 1); `predict` models them for a static batch");
  }
  // Served iterations are inference steps: the stack resolved for inference, as the
  // report's software_stack says (a file loaded for training resolved "auto" otherwise).
  HardwareSpec hw = s.hardware;
  hw.sw = effective_software(hw.sw, RunType::inference);
  return hw;
}

LlmModelSpec inference_model(const Scenario& s) {
  LlmModelSpec m = llm(s);
  m.run_type = RunType::inference;  // the workload sets lengths and batches
  return m;
}

model::Op attention_op(const exec::LlmContext& ctx, model::LocalShape shape) {
  for (const auto& op : model::transformer_layer_ops(ctx.dims(), shape)) {
    if (op.kind == model::OpKind::attention) return op;
  }
  throw InfeasibleError("serving: the model's layer has no attention core to cost");
}

}  // namespace

IterationCost::IterationCost(const Scenario& scenario)
    : hardware_(replica_hardware(scenario)),
      model_(inference_model(scenario)),
      run_(exec::step_run_options(hardware_, RunType::inference)),
      ctx_(hardware_, model_, scenario.model_file, costs_, exec::ExecutorKind::analytical, run_.network) {
  model::LocalShape decode = ctx_.local_shape(1, 1);
  decode.decode = true;
  decode.sequence_parallel = false;
  decode.kv_len = 1;
  decode_attention_ = attention_op(ctx_, decode);
  prefill_attention_ = attention_op(ctx_, ctx_.local_shape(1, 1));
}

const IterationCost::Body& IterationCost::prefill_body(std::int64_t tokens) {
  auto [it, fresh] = prefill_.try_emplace(tokens);
  if (!fresh) return it->second;
  // One sequence of `tokens` from an empty cache, as the static predictor's prefill.
  const exec::PartCosts parts = ctx_.run_parts(ctx_.local_shape(1, tokens));
  const exec::GraphCost layers = ctx_.layers_cost(parts, 0, ctx_.dims().layers);
  it->second.attention_s = layers.compute.forward_s[kAttention];
  it->second.non_attention_s = layers.forward_s() - it->second.attention_s + parts.embedding.forward_s();
  if (run_.simulate_step) {
    it->second.non_attention_s += network_excess_s(ctx_.local_shape(1, tokens), layers.forward_s() +
                                                                                    parts.embedding.forward_s() +
                                                                                    parts.head.forward_s() +
                                                                                    stage_sends_s(tokens));
  }
  return it->second;
}

double IterationCost::decode_body_s(std::int64_t sequences) {
  auto [it, fresh] = decode_.try_emplace(sequences);
  if (!fresh) return it->second;
  model::LocalShape shape = ctx_.local_shape(sequences, 1);
  shape.decode = true;
  shape.sequence_parallel = false;
  shape.kv_len = 1;  // everything but the attention core is the same at every context
  const exec::PartCosts parts = ctx_.run_parts(shape);
  const exec::GraphCost layers = ctx_.layers_cost(parts, 0, ctx_.dims().layers);
  it->second = layers.forward_s() - layers.compute.forward_s[kAttention] + parts.embedding.forward_s();
  head_.try_emplace(sequences, parts.head.forward_s());
  if (run_.simulate_step) {
    it->second += network_excess_s(shape, layers.forward_s() + parts.embedding.forward_s() + parts.head.forward_s() +
                                              stage_sends_s(sequences));
  }
  return it->second;
}

double IterationCost::head_s(std::int64_t sequences) {
  if (const auto it = head_.find(sequences); it != head_.end()) return it->second;
  (void)decode_body_s(sequences);  // costs the head with it
  return head_.at(sequences);
}

double IterationCost::over_layers(std::int64_t keys, const std::function<double(std::int64_t)>& one_layer_s) const {
  // Sliding-window layers attend to at most their window of keys (their rolling buffer),
  // global ones to all of them.
  const auto& d = ctx_.dims();
  const int windowed = d.windowed_layers(0, d.layers);
  if (windowed == 0) return d.layers * one_layer_s(keys);
  return (d.layers - windowed) * one_layer_s(keys) + windowed * one_layer_s(std::min(keys, d.sliding_window));
}

double IterationCost::decode_attention_s(std::int64_t sequences, std::int64_t context) {
  return over_layers(context, [&](std::int64_t kv) {
    model::Op op = decode_attention_;
    op.attention.batch = sequences;
    op.attention.kv_len = kv;
    return ctx_.coster().time(op).forward_s;
  });
}

double IterationCost::chunk_attention_s(const PrefillChunk& chunk) {
  if (chunk.prefix == 0) return prefill_body(chunk.tokens).attention_s;
  // A chunk after a cached prefix: each of its queries sees the prefix and the chunk's
  // tokens up to itself, prefix + (c + 1) / 2 keys on average; costed as that many keys
  // for every query (no causal block skipping left to do past the prefix).
  return over_layers(chunk.prefix + (chunk.tokens + 1) / 2, [&](std::int64_t kv) {
    model::Op op = prefill_attention_;
    op.attention.q_len = chunk.tokens;
    op.attention.kv_len = kv;
    op.attention.causal = false;
    op.attention.window = 0;
    return ctx_.coster().time(op).forward_s;
  });
}

double IterationCost::stage_sends_s(std::int64_t tokens) {
  const int pp = ctx_.degrees().pp;
  if (pp == 1) return 0.0;
  const double bytes = static_cast<double>(tokens) * static_cast<double>(ctx_.dims().hidden) * ctx_.element_bytes();
  const model::CommOp send{CollectiveOp::send_recv, Parallelism::pp, bytes, model::CommPurpose::pp,
                           model::HiddenUnder::nothing, 0.0};
  // A blocking pipeline engine's handshake holds both ends of each hop (once per hop).
  return (pp - 1) * (ctx_.executor().comm(send).time_s + hardware_.sw.pipeline_transfer_stall_s);
}

double IterationCost::network_excess_s(const model::LocalShape& shape, double closed_s) {
  const double boundary = static_cast<double>(shape.tokens()) * static_cast<double>(ctx_.dims().hidden) * ctx_.element_bytes();
  const exec::StepGraph graph = exec::build_inference_step(ctx_, shape, boundary, shape.decode ? "decode" : "prefill");
  exec::StepSimOptions o;
  o.symmetric = run_.symmetric;
  o.distinct_gpus = run_.distinct_gpus;
  return exec::simulate_step(graph, ctx_.placement(), ctx_.network(), o, 1).step_s - closed_s;
}

double IterationCost::time_s(std::int64_t decodes, std::int64_t decode_context_sum,
                             std::span<const PrefillChunk> chunks) {
  std::int64_t prefill_tokens = 0;
  for (const PrefillChunk& c : chunks) prefill_tokens += c.tokens;
  const std::int64_t tokens = prefill_tokens + decodes;
  if (tokens == 0) return 0.0;
  // A decode-only iteration runs the decode graphs; with a prefill in it, one forward over
  // all the tokens.
  double t = prefill_tokens == 0 ? decode_body_s(decodes) : prefill_body(tokens).non_attention_s;
  // Every decode and every chunk that ends its prompt emits a token.
  std::int64_t emitting = decodes;
  for (const PrefillChunk& c : chunks) emitting += c.completes ? 1 : 0;
  if (emitting > 0) t += head_s(emitting);
  if (decodes > 0) {
    const std::int64_t mean_context = (decode_context_sum + decodes / 2) / decodes;
    t += decode_attention_s(decodes, std::max<std::int64_t>(1, mean_context));
  }
  for (const PrefillChunk& c : chunks) t += chunk_attention_s(c);
  return t + stage_sends_s(tokens);
}

}  // namespace rapidllm::serving
