// Bytes one transformer layer keeps for backward per micro-batch, on one rank: the saved
// tensors of each op, after Korthikanti et al. 2022 ("Reducing Activation Recomputation in
// Large Transformer Models", sec. 4), generalised to GQA, SwiGLU and FlashAttention. For
// GPT without recompute this is s b h (34 + 5 a s / h) with 16-bit activations; tensor
// parallelism divides what is split over heads and MLP columns, sequence parallelism also
// the norm, residual and dropout tensors; selective recompute drops the attention scores,
// full recompute keeps only the layer input, op-level recompute (torchtitan's selective op
// checkpointing, model/op_recompute.hpp) the layer input and the saved ops' outputs.
#pragma once

#include "model/layer_ops.hpp"

namespace rapidllm::memory {

enum class Recompute { none, selective, full, op_level };

struct ActivationOptions {
  Recompute recompute = Recompute::none;
  bool dropout = false;  // GPT-style dropout masks (1 byte per element); Llama trains without
  double stats_bytes = 4.0;  // sw_param.precision.stats: the norms' saved per-token statistics
};

// `moe`: the layer's MLP is the mixture of experts: the router scores, the permuted rows
// entering the experts (the busiest rank's), their intermediates, the expert outputs the
// weighted sum reads back, and the shared experts' intermediates replace the dense MLP's.
// MLA keeps its latents and per-head queries, keys and values.
[[nodiscard]] double layer_activation_bytes(const model::LlmDims& d, const model::LocalShape& s,
                                            const ActivationOptions& options, bool moe = false);

}  // namespace rapidllm::memory
