// One engine iteration's time on a replica. Its prefill chunks and decode tokens run as
// one forward: the linear layers, norms and collectives see all T tokens together; each
// prefill chunk's attention covers its prefix and itself; the decodes' attention is one
// batched kernel over their mean context (paged decode attention is memory-bound and
// linear in the context, so the mean stands for the sum); the head runs for every
// sequence that emits a token (engines skip it for a chunk in the middle of a prompt). Costs are cached by token count, so a long simulation
// costs a hash lookup and a few closed-form attention terms per iteration.
// The hardware's execution mode picks the network: hybrid times each collective on the
// simulated cluster alone; full_astrasim_hierarchical / flattened play each forward's step
// graph on it (exec/inference_step.hpp), once per token count, and add what the network
// made of it beyond the closed form to the body (a degraded link slows every iteration). A
// pool's replicas share one cost: a fault on one replica's GPU sets the pace of all.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>

#include "exec/cost_cache.hpp"
#include "exec/llm_context.hpp"
#include "exec/run_options.hpp"
#include "model/layer_ops.hpp"
#include "rapidllm/scenario.hpp"

namespace rapidllm::serving {

struct PrefillChunk {
  std::int64_t tokens = 0;  // this iteration's part of the prompt
  std::int64_t prefix = 0;  // tokens of it already in the KV cache
  bool completes = true;    // the prompt's last chunk: it emits a token
};

class IterationCost {
 public:
  // `scenario`: one replica (its tp and pp), an LLM model. Throws ConfigError for context
  // or expert parallelism (not modelled in serving).
  explicit IterationCost(const Scenario& scenario);
  // The context refers to this object's copies of the specs: it stays where it is built.
  IterationCost(const IterationCost&) = delete;
  IterationCost& operator=(const IterationCost&) = delete;

  // `decode_context_sum`: the decoding sequences' cached tokens, summed.
  [[nodiscard]] double time_s(std::int64_t decodes, std::int64_t decode_context_sum,
                              std::span<const PrefillChunk> chunks);

  [[nodiscard]] const exec::LlmContext& context() const { return ctx_; }

 private:
  struct Body {
    double non_attention_s = 0.0;  // every part but the attention cores, exposed collectives included
    double attention_s = 0.0;      // the attention cores of a prefill from an empty cache
  };
  [[nodiscard]] const Body& prefill_body(std::int64_t tokens);
  [[nodiscard]] double decode_body_s(std::int64_t sequences);
  [[nodiscard]] double head_s(std::int64_t sequences);
  [[nodiscard]] double decode_attention_s(std::int64_t sequences, std::int64_t context);
  [[nodiscard]] double chunk_attention_s(const PrefillChunk& chunk);
  // One layer's attention at `keys` keys, summed over the layers (windowed ones capped).
  [[nodiscard]] double over_layers(std::int64_t keys, const std::function<double(std::int64_t)>& one_layer_s) const;
  [[nodiscard]] double stage_sends_s(std::int64_t tokens);
  // The simulated forward of `shape` less `closed_s`, its closed form (0 unless the mode
  // simulates steps).
  [[nodiscard]] double network_excess_s(const model::LocalShape& shape, double closed_s);

  HardwareSpec hardware_;
  LlmModelSpec model_;
  exec::StepRunOptions run_;
  exec::CostCache costs_;
  exec::LlmContext ctx_;
  model::Op decode_attention_;   // template: one sequence, one cached token
  model::Op prefill_attention_;  // template: one sequence of one token
  std::unordered_map<std::int64_t, Body> prefill_;
  std::unordered_map<std::int64_t, double> decode_;
  std::unordered_map<std::int64_t, double> head_;
};

}  // namespace rapidllm::serving
