// Model FLOPs for MFU after the PaLM paper (Chowdhery et al. 2022, appendix B): 6 N per
// token for the dense matmuls (forward + backward) plus the attention score and context
// matmuls, 12 L s a d per token there. Decoder LLMs are causal, so only half of those are
// needed work: 6 L s a d (otherwise long sequences report MFU above 100%). No recompute.
// Sliding-window layers (window w < s) count the keys they attend to: query p sees
// min(p, w), 12 (w - w^2/(2s)) a d per token instead of 6 s a d.
#pragma once

#include <string>

#include "model/llm_dims.hpp"

namespace rapidllm::model {

// N: parameters in matmuls, i.e. every parameter except the input embedding table (the
// LM head's matmul counts, so with tied embeddings the table is counted once).
[[nodiscard]] double matmul_parameters(const LlmDims& d);
[[nodiscard]] double training_flops_per_token(const LlmDims& d, std::int64_t seq);
// The formula as reported; it names the windowed term when a window is shorter than seq.
[[nodiscard]] std::string mfu_formula(const LlmDims& d, std::int64_t seq);

}  // namespace rapidllm::model
