#include "model/moe_ops.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/elementwise_ops.hpp"
#include "model/op_factory.hpp"
#include "model/tp_share.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::model {

namespace {
double as_double(std::int64_t v) { return static_cast<double>(v); }
std::int64_t ceil_rows(double rows) { return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(rows - 1e-9))); }
}  // namespace

ExpertLoad expert_load(const LlmDims& d, const LocalShape& s) {
  const MoeSpec& m = d.moe;
  if (m.num_experts % s.ep != 0) {
    throw InfeasibleError(fmt::format("num_experts = {} is not divisible by the expert-parallel degree {}", m.num_experts,
                                      s.ep));
  }
  ExpertLoad load;
  load.local_experts = m.num_experts / s.ep;
  load.ffn = tp_split(m.moe_intermediate_size, s.tp, "moe_intermediate_size");
  const double tokens = as_double(s.tokens());  // per TP group on this CP rank
  load.rows = tokens * m.top_k;
  const double e = load.local_experts;
  // Each of the EP group's ep x T tokens picks top_k of E experts: an expert is missed by
  // all of them with probability (1 - k/E)^(ep T); the local experts that receive rows.
  const double hit = 1.0 - std::pow(1.0 - static_cast<double>(m.top_k) / m.num_experts, s.ep * tokens);
  const double active = e * hit;
  if (active < e - 0.5) {
    // Few tokens (decode): the expected distinct experts share the rows evenly.
    const auto experts = std::max<std::int64_t>(1, std::llround(active));
    load.groups.push_back({experts, ceil_rows(load.rows / static_cast<double>(experts))});
    return load;
  }
  // One-hot imbalance: the hot expert alpha x the mean rows, the others beta x.
  const double mean = load.rows / e;
  const double alpha = m.expert_imbalance_factor;
  const double beta = m.num_experts > 1 ? (m.num_experts - alpha) / (m.num_experts - 1) : 1.0;
  load.hot_rank_factor = (alpha + (e - 1.0) * beta) / e;
  const std::int64_t hot = ceil_rows(alpha * mean);
  const std::int64_t cold = ceil_rows(beta * mean);
  // Balanced routing (alpha 1) has no hot expert: one group, one grouped kernel a pass.
  if (hot == cold) {
    load.groups.push_back({load.local_experts, hot});
    return load;
  }
  load.groups.push_back({1, hot});
  if (load.local_experts > 1) load.groups.push_back({load.local_experts - 1, cold});
  return load;
}

void append_moe_ops(const LlmDims& d, const LocalShape& s, std::vector<Op>& ops) {
  const MoeSpec& m = d.moe;
  const ExpertLoad load = expert_load(d, s);
  const double eb = s.element_bytes;
  const double h = as_double(d.hidden);
  // With expert parallelism each TP rank routes its own sequence shard and sends it to its
  // EP peers; without, the TP group's gathered tokens are routed (moe_block_collectives).
  const std::int64_t routed_tokens = s.ep > 1 ? s.norm_tokens() : s.tokens();
  const double rt = as_double(routed_tokens);
  // Router: logits over the experts, then softmax / sigmoid and top-k (fp32 scores).
  ops.push_back(gemm_op(kMoeRouter, OpClass::router, TpRole::none, routed_tokens, m.num_experts, d.hidden));
  const double scores = rt * m.num_experts * 4.0 / eb;
  ops.push_back(memory_op("moe_topk", OpClass::router, 2.0 * scores, 3.0 * scores, eb));
  // Permute: copy each token to its top_k expert slots (read h, write k x h per token).
  const double copies = rt * m.top_k * h;
  ops.push_back(memory_op(kMoePermute, OpClass::router, rt * h + copies, rt * h + copies, eb));
  const double rows = load.rows * load.hot_rank_factor;
  const double act = rows * as_double(load.ffn);
  const bool gated = d.mlp == MlpKind::swiglu;
  const std::int64_t up_width = (gated ? 2 : 1) * load.ffn;
  // A stack that loops over the experts calls each one's quantize and GEMM on its own
  // (expert_calls; the coster charges them where the stack says so).
  const auto per_expert = [&ops](std::int64_t experts) { ops.back().expert_calls = experts; };
  for (const auto& g : load.groups) {
    ops.push_back(gemm_op("moe_expert_up", OpClass::experts, TpRole::none, g.rows, up_width, d.hidden, g.experts));
    per_expert(g.experts);
  }
  if (s.fp8_linears) {
    ops.push_back(fp8_casts("moe_expert_up_fp8_casts", rows, d.hidden, up_width, false));
    per_expert(load.local_experts);
  }
  ops.push_back(gated ? swiglu_op("moe_swiglu", OpClass::elementwise, act, s)
                      : memory_op("moe_gelu", OpClass::elementwise, 2 * act, 3 * act, eb));
  for (const auto& g : load.groups) {
    ops.push_back(gemm_op("moe_expert_down", OpClass::experts, TpRole::none, g.rows, d.hidden, load.ffn, g.experts));
    per_expert(g.experts);
  }
  if (s.fp8_linears) {
    ops.push_back(fp8_casts("moe_expert_down_fp8_casts", rows, load.ffn, d.hidden, false));
    per_expert(load.local_experts);
  }
  // Un-permute: weight each copy by its router probability and sum them per token.
  ops.push_back(memory_op(kMoeUnpermute, OpClass::router, copies + rt * h, 2.0 * copies + rt * h, eb));
  if (m.n_shared_experts > 0) {
    append_mlp_ops(d, s, tp_split(m.n_shared_experts * m.moe_intermediate_size, s.tp, "n_shared_experts x moe_intermediate_size"),
                   MlpNames{"shared_expert_up", "shared_expert_up_fp8_casts",
                            gated ? "shared_expert_swiglu" : "shared_expert_gelu", "shared_expert_down",
                            "shared_expert_down_fp8_casts"},
                   ops);
  }
}

}  // namespace rapidllm::model
