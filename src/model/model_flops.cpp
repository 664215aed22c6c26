#include "model/model_flops.hpp"

#include <array>

namespace rapidllm::model {

namespace {

// True when some layer's window is shorter than the sequence (else every layer is full
// causal attention and the dense formula applies unchanged).
bool window_applies(const LlmDims& d, std::int64_t seq) { return d.sliding_window > 0 && d.sliding_window < seq; }

// Query/key and value dims summed over heads, halved: QK^T and PV together cost 4 x this
// per (query, key) pair (MLA's keys are wider than its values).
double attention_width(const LlmDims& d) {
  if (!d.mla) return static_cast<double>(d.q_width());
  return static_cast<double>(d.heads) * static_cast<double>(d.latent.qk_head() + d.latent.v_head) / 2.0;
}

}  // namespace

double matmul_parameters(const LlmDims& d) {
  const double head = static_cast<double>(d.vocab) * static_cast<double>(d.hidden);
  if (!d.has_moe()) return d.layers * layer_parameter_count(d) + head;
  // A token passes its top_k routed experts (and the shared ones) only. Dense layers all
  // count the same, and so do MoE layers: each kind is counted once, then summed layer by
  // layer as before.
  std::array<double, 2> per_layer{};
  std::array<bool, 2> counted{};
  double layers = 0.0;
  for (int l = 0; l < d.layers; ++l) {
    const std::size_t moe = d.moe_layer(l) ? 1 : 0;
    if (!counted[moe]) {
      const LayerParameters p = layer_parameters(d, l);
      per_layer[moe] =
          p.dense + (p.routed_experts > 0.0 ? d.moe.top_k * mlp_parameter_count(d, d.moe.moe_intermediate_size) : 0.0);
      counted[moe] = true;
    }
    layers += per_layer[moe];
  }
  return layers + head;
}

double training_flops_per_token(const LlmDims& d, std::int64_t seq) {
  if (!window_applies(d, seq)) {
    const double attention = 6.0 * d.layers * static_cast<double>(seq) * attention_width(d);
    return 6.0 * matmul_parameters(d) + attention;
  }
  // Keys per query, averaged over the sequence: position p attends to min(p, w) keys, so
  // a causal layer averages s/2 and a windowed one (w s - w^2/2)/s = w - w^2/(2s) (equal at
  // w = s). 12 FLOPs per (query, key) and head dimension for forward + backward.
  const double s = static_cast<double>(seq);
  const double w = static_cast<double>(d.sliding_window);
  const int windowed = d.windowed_layers(0, d.layers);
  const double keys = (d.layers - windowed) * (s / 2.0) + windowed * (w - w * w / (2.0 * s));
  return 6.0 * matmul_parameters(d) + 12.0 * keys * attention_width(d);
}

std::string mfu_formula(const LlmDims& d, std::int64_t seq) {
  std::string formula =
      "mfu = tokens_per_step * (6 * N + 6 * layers * seq_len * heads * head_dim) / "
      "(step_time_s * num_gpus * dense_peak_flops_per_gpu), N = parameters in matmuls "
      "(all but the input embedding); causal attention counts half of PaLM's 12 * layers * seq_len * heads * head_dim";
  if (d.has_moe()) {
    formula += "; MoE: N counts the top_k routed and the shared experts of each MoE layer (the active parameters)";
  }
  if (d.mla) formula += "; MLA: head_dim = (qk_nope + qk_rope + v_head) / 2 (QK^T and PV widths averaged)";
  if (window_applies(d, seq)) {
    formula +=
        "; sliding window w: a windowed layer's attention term is 12 * (w - w^2 / (2 * seq_len)) * heads * head_dim "
        "instead of 6 * seq_len * heads * head_dim (each query attends to min(position, w) keys), global layers keep "
        "theirs";
  }
  return formula;
}

}  // namespace rapidllm::model
