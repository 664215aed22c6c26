// Settings of a model file (RAPID-LLM "model_param" schema).
#include "config/settings_tables.hpp"

namespace rapidllm::config {

namespace {
constexpr auto M = ConfigFile::model;
constexpr double kBig = 9.0e15;  // keeps integer products well inside int64
// A GEMM dimension: the tile model multiplies tile counts of two of them (and split-K), so
// each stays below 2^31 to keep those products inside int64 (widths and the sequence length
// become GEMM dimensions in LLM mode too).
constexpr double kGemmDim = 2147483647.0;
}  // namespace

std::vector<Setting> model_settings() {
  return {
      {"model_param.mode", M, ValueKind::choice, "", std::nullopt, "workload kind", {"GEMM", "LLM"}},
      // ---- GEMM mode ----
      {"model_param.M", M, ValueKind::integer, "", std::nullopt, "GEMM rows of A and C (mode GEMM)", {}, 1, kGemmDim},
      {"model_param.K", M, ValueKind::integer, "", std::nullopt, "GEMM reduction dimension (mode GEMM)", {}, 1, kGemmDim},
      {"model_param.N", M, ValueKind::integer, "", std::nullopt, "GEMM columns of B and C (mode GEMM)", {}, 1, kGemmDim},
      {"model_param.backward", M, ValueKind::boolean, "", "false", "also time the two backward GEMMs (mode GEMM)"},
      {"model_param.gemm_shard_axis", M, ValueKind::choice, "", "row",
       "TP shard axis: row (split K, all-reduce C) or column (split N, gather C)", {"row", "column"}},
      // ---- LLM mode ----
      {"model_param.run_type", M, ValueKind::choice, "", std::nullopt, "training or inference",
       {"training", "inference"}},
      {"model_param.tied_embeddings", M, ValueKind::boolean, "", "false", "input and output embeddings share weights"},
      {"model_param.model_type", M, ValueKind::choice, "", std::nullopt,
       "architecture family: gpt (GELU MLP, LayerNorm), llama/qwen2/phi3 (SwiGLU, RMSNorm, RoPE), MoE families",
       {"gpt", "llama", "qwen2", "phi3", "deepseek_v3", "glm4_moe"}},
      {"model_param.global_batch_size", M, ValueKind::integer, "", std::nullopt, "sequences per global batch", {}, 1, kBig},
      {"model_param.gradient_accumulation_steps", M, ValueKind::integer, "", "1",
       "micro-steps per optimizer update", {}, 1, 1e9},
      {"model_param.seq_len", M, ValueKind::integer, "", std::nullopt,
       "tokens per sequence (inference: prompt + decode_len)", {}, 1, kGemmDim},
      {"model_param.decode_len", M, ValueKind::integer, "", "0", "tokens generated per sequence (inference)", {}, 0, kBig},
      {"model_param.hidden_dim", M, ValueKind::integer, "", std::nullopt, "model width", {}, 1, kGemmDim},
      {"model_param.intermediate_size", M, ValueKind::integer, "", std::nullopt, "dense MLP width", {}, 1, kGemmDim},
      {"model_param.vocab_size", M, ValueKind::integer, "", std::nullopt, "vocabulary size", {}, 1, kGemmDim},
      {"model_param.num_layers", M, ValueKind::integer, "", std::nullopt, "transformer layers", {}, 1, 1e6},
      {"model_param.attention.attention_type", M, ValueKind::choice, "", "mha",
       "mha, gqa (kv_heads < num_heads; mqa = 1) or mla", {"mha", "gqa", "mla"}},
      {"model_param.attention.num_heads", M, ValueKind::integer, "", std::nullopt, "query heads", {}, 1, 1e6},
      {"model_param.attention.kv_heads", M, ValueKind::integer, "", "null",
       "key/value heads (gqa only; mha uses num_heads)", {}, 1, 1e6, true},
      {"model_param.attention.head_dim", M, ValueKind::integer, "", "null",
       "per-head width (default hidden_dim / num_heads)", {}, 1, 1e6, true},
      {"model_param.attention.use_flashattention", M, ValueKind::boolean, "", "false",
       "fused FlashAttention kernels (else materialised scores)"},
      {"model_param.attention.attention_tile_size", M, ValueKind::integer, "", "null",
       "FlashAttention tile (default: derived from shared memory)", {}, 1, 1e6, true},
      {"model_param.attention.sliding_window", M, ValueKind::integer, "tokens", "null",
       "sliding-window attention: each query attends to the last w keys, itself included (Mistral, Gemma, "
       "Qwen2, Phi-3); null or 0 = full causal attention; w >= seq_len is the same as full",
       {}, 0, kBig, true},
      {"model_param.attention.global_every", M, ValueKind::integer, "layers", "null",
       "hybrid local/global attention: every k-th layer (0-based layers k-1, 2k-1, ...) keeps full attention, "
       "the others use sliding_window (Gemma 2: 2, Gemma 3: 6); null = every layer windowed; needs sliding_window",
       {}, 1, 1e6, true},
      {"model_param.attention.kv_lora_rank", M, ValueKind::integer, "", "0", "MLA compressed KV rank", {}, 0, 1e6},
      {"model_param.attention.q_lora_rank", M, ValueKind::integer, "", "0", "MLA compressed query rank", {}, 0, 1e6},
      {"model_param.attention.qk_nope_head_dim", M, ValueKind::integer, "", "0", "MLA non-rotary q/k head width", {}, 0, 1e6},
      {"model_param.attention.qk_rope_head_dim", M, ValueKind::integer, "", "0", "MLA rotary q/k head width", {}, 0, 1e6},
      {"model_param.attention.v_head_dim", M, ValueKind::integer, "", "0", "MLA value head width", {}, 0, 1e6},
      {"model_param.moe.num_experts", M, ValueKind::integer, "", "1", "routed experts (1 = dense)", {}, 1, 1e6},
      {"model_param.moe.top_k", M, ValueKind::integer, "", "1", "experts per token", {}, 1, 1e6},
      {"model_param.moe.moe_intermediate_size", M, ValueKind::integer, "", "0", "expert MLP width", {}, 0, kGemmDim},
      {"model_param.moe.n_shared_experts", M, ValueKind::integer, "", "0", "always-active shared experts", {}, 0, 1e6},
      {"model_param.moe.expert_imbalance_factor", M, ValueKind::real, "", "1.0",
       "load of the busiest expert relative to the mean", {}, 1.0, 1e6},
      {"model_param.moe.moe_layer_freq", M, ValueKind::integer, "", "1", "every n-th layer is MoE", {}, 0, 1e6},
      {"model_param.moe.first_k_dense_replace", M, ValueKind::integer, "", "0",
       "leading layers that stay dense", {}, 0, 1e6},
  };
}

}  // namespace rapidllm::config
