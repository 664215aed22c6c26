#include "model/model_flops.hpp"

namespace rapidllm::model {

double matmul_parameters(const LlmDims& d) {
  const double head = static_cast<double>(d.vocab) * static_cast<double>(d.hidden);
  return d.layers * layer_parameter_count(d) + head;
}

double training_flops_per_token(const LlmDims& d, std::int64_t seq) {
  const double attention = 6.0 * d.layers * static_cast<double>(seq) * static_cast<double>(d.q_width());
  return 6.0 * matmul_parameters(d) + attention;
}

std::string mfu_formula() {
  return "mfu = tokens_per_step * (6 * N + 6 * layers * seq_len * heads * head_dim) / "
         "(step_time_s * num_gpus * dense_peak_flops_per_gpu), N = parameters in matmuls "
         "(all but the input embedding); causal attention counts half of PaLM's 12 * layers * seq_len * heads * head_dim";
}

}  // namespace rapidllm::model
