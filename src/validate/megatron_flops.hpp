// The FLOPs of one training step as Megatron-LM counts them (num_floating_point_operations),
// the count behind the TFLOP/s per GPU that some rows publish. A row compared on TFLOP/s
// converts the predicted step time with it, so the count must be the source's own.
#pragma once

#include "rapidllm/model_spec.hpp"

namespace rapidllm::validate {

// Dense MHA/GQA models: 12 B s L h^2 ((1 + g/a + s/h) + f/h x (3 if gated else 2)/2 +
// V/(2 L h)), full attention: the convention behind the Megatron-LM README's TFLOP/s, used
// for every dense row that publishes only TFLOP/s (Megatron-LM README, NeMo long-sequence,
// OPT).
//
// MoE or MLA models: today's formula, which the MoE sources (dgxc-benchmarking 25.x,
// Megatron-Bridge 25.11) use (tests/validation/row_architecture_test.cpp reproduces their
// published counts): causal attention halved, (1 + g/a + s/(2h)) x a d/h per
// layer with head_dim d, or Megatron's MLA projections and core attention; per MoE layer
// top_k routed experts plus the shared experts, the dense MLP on the first k layers;
// `mtp_depth` multi-token-prediction layers (one more transformer layer, its projection
// and norms, one more logit GEMM each). Gated (x 3/2) unless model_type is gpt. Known
// departures of single sources: Megatron-Bridge 25.11 leaves DeepSeek-V3's MTP layer out
// and counts gpt-oss's experts ungated (its clamped activation is not SiLU); those rows
// publish tokens/s, so none is compared on this count.
[[nodiscard]] double megatron_flops(const LlmModelSpec& m, int mtp_depth = 0);

}  // namespace rapidllm::validate
