// Typed workload description: a distributed GEMM or an LLM (RAPID-LLM "model_param").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace rapidllm {

enum class ShardAxis { row, column };

struct GemmModelSpec {
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t n = 0;
  bool backward = false;
  ShardAxis shard_axis = ShardAxis::row;
};

enum class RunType { training, inference };
enum class AttentionType { mha, gqa, mla };

struct AttentionSpec {
  AttentionType type = AttentionType::mha;
  int num_heads = 0;
  int kv_heads = 0;  // = num_heads for MHA
  std::optional<int> head_dim;  // default hidden / heads
  bool use_flash_attention = false;
  std::optional<int> tile_size;  // derived from SRAM when absent
  // Sliding-window attention (Mistral, Gemma 2/3, Qwen2, Phi-3): each query attends to the
  // last `sliding_window` keys, itself included; 0 = full causal attention.
  std::int64_t sliding_window = 0;
  // Hybrid local/global: layers k-1, 2k-1, ... (0-based) keep full attention, the others
  // are windowed; 0 = every layer windowed (only meaningful with sliding_window).
  int global_every = 0;
  // MLA (DeepSeek) latent dimensions; zero when not MLA.
  int kv_lora_rank = 0;
  int q_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
};

struct MoeSpec {
  int num_experts = 1;
  int top_k = 1;
  std::int64_t moe_intermediate_size = 0;
  int n_shared_experts = 0;
  double expert_imbalance_factor = 1.0;
  int moe_layer_freq = 1;
  int first_k_dense_replace = 0;

  friend bool operator==(const MoeSpec&, const MoeSpec&) = default;
};

struct LlmModelSpec {
  RunType run_type = RunType::training;
  std::string model_type;  // gpt, llama, qwen2, phi3, deepseek_v3, glm4_moe
  bool tied_embeddings = false;
  std::int64_t global_batch_size = 1;
  int gradient_accumulation_steps = 1;
  std::int64_t seq_len = 0;
  std::int64_t decode_len = 0;
  std::int64_t hidden_dim = 0;
  AttentionSpec attention;
  MoeSpec moe;
  std::int64_t intermediate_size = 0;
  std::int64_t vocab_size = 0;
  int num_layers = 0;
};

struct ModelSpec {
  std::string source;  // file it was loaded from
  std::variant<GemmModelSpec, LlmModelSpec> workload;
};

[[nodiscard]] std::string_view to_string(ShardAxis axis);
[[nodiscard]] std::string_view to_string(RunType run_type);

}  // namespace rapidllm
