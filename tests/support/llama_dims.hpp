// Llama-3-8B's layer dimensions (hidden 4096, 32 query heads over 8 KV heads of 128, SwiGLU
// MLP of 14336, RMSNorm, rotary, FlashAttention) for tests that build layer ops directly.
#pragma once

#include "model/llm_dims.hpp"

namespace rapidllm::testing {

inline model::LlmDims llama3_8b_dims(int layers = 1) {
  model::LlmDims d;
  d.hidden = 4096;
  d.heads = 32;
  d.kv_heads = 8;
  d.head_dim = 128;
  d.ffn = 14336;
  d.vocab = 128256;
  d.layers = layers;
  d.mlp = model::MlpKind::swiglu;
  d.norm = model::NormKind::rmsnorm;
  d.rope = true;
  d.flash_attention = true;
  return d;
}

}  // namespace rapidllm::testing
