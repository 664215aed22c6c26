// The kernels one rank runs for a transformer layer, the embedding and the LM head, in
// forward, with what their backward costs. Shapes are local: after tensor parallelism
// (heads, MLP width and vocabulary split by tp), sequence parallelism (norms and residuals
// on tokens/tp) and context parallelism (queries on seq/cp, keys and values on seq).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "model/llm_dims.hpp"
#include "rapidllm/gemm.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::model {

// router: the MoE gate and the token permutations around the experts; experts: the routed
// expert MLPs (shared experts count as mlp).
enum class OpClass { qkv_projection, attention, output_projection, mlp, elementwise, embedding, lm_head, loss, router, experts };
enum class OpKind { gemm, attention, memory };
// How tensor parallelism splits an op (Megatron-LM): a column-parallel linear splits its
// output features (its input arrives whole, or sequence-sharded under SP), a row-parallel
// one its input features (each rank holds a partial sum of the output). The vocabulary-
// parallel embedding is row-like: partial rows summed across the group.
enum class TpRole { none, column, row };

[[nodiscard]] std::string_view to_string(OpClass c);
// The class's breakdown category: "compute." + to_string(c).
[[nodiscard]] std::string_view compute_category(OpClass c);

struct AttentionShape {
  std::int64_t batch = 0;      // sequences
  std::int64_t heads = 0;      // local query heads
  std::int64_t kv_heads = 0;   // local KV heads
  std::int64_t q_len = 0;      // queries per sequence on this rank
  std::int64_t kv_len = 0;     // keys per sequence
  std::int64_t head_dim = 0;
  bool causal = true;
  bool flash = true;
  std::int64_t tile = 0;       // flash tile (Br = Bc); 0 = derive from shared memory
  double element_bytes = 2.0;  // Q, K, V, O
  double kv_element_bytes = 2.0;  // the KV cache (decode)
  // Sliding window: each query attends to the last `window` keys, itself included (the
  // causal band); 0 = full causal attention. Decode shapes carry min(kv, window) in kv_len.
  std::int64_t window = 0;
  // Decode: elements cached per token and KV head (0 = a key and a value of head_dim each;
  // MLA: one latent plus its rope key, read for both).
  std::int64_t cache_width = 0;
};

struct Op {
  std::string_view name;
  OpClass cls = OpClass::elementwise;
  OpKind kind = OpKind::memory;
  TpRole tp_role = TpRole::none;
  GemmShape gemm;              // kind gemm: the forward GEMM (backward: dgrad + wgrad)
  // kind gemm: the widths (N) of the separate matmuls a fused op stands for in the reference
  // model code, in call order (Q, K, V; gate, up); all zero = one matmul. Op-level
  // recompute (model/op_recompute.hpp) counts them.
  std::array<std::int64_t, 3> matmul_columns{};
  // kind gemm: runs in the activation format even where the linears run in FP8 (the LM head:
  // Transformer Engine converts its own linear layers only; inference quantizers skip it).
  bool in_tensor_format = false;
  AttentionShape attention;    // kind attention
  double forward_bytes = 0.0;  // kind memory: HBM bytes read + written
  double backward_bytes = 0.0;
  // kind memory: kernels each pass launches (1 fused; an eager op sequence, one per op).
  int forward_kernels = 1;
  int backward_kernels = 1;
  // Mixture-of-experts ops: the experts the op is one call per (a GEMM: each pass, dgrad and
  // wgrad each; FP8 casts: each pass), where the stack loops over them on the host
  // (SoftwareSpec::expert_call_overhead_s); 0 = not a per-expert op.
  std::int64_t expert_calls = 0;
};

// Per-rank extents of one micro-batch.
struct LocalShape {
  std::int64_t micro_batch = 1;  // sequences (b)
  std::int64_t seq = 0;          // tokens per sequence in the model (s)
  int tp = 1;
  int cp = 1;
  int ep = 1;  // expert parallelism of MoE layers (experts split ep ways, each over the tp ranks)
  bool sequence_parallel = false;
  double element_bytes = 2.0;    // activations
  double kv_element_bytes = 2.0; // KV cache
  // FP8 GEMMs on 16-bit activations (Transformer Engine recipes): every linear layer
  // casts its input to FP8 and, in backward, casts and transposes its output gradient.
  bool fp8_linears = false;
  // Norms, gated activations and rotary embeddings as PyTorch eager ops (SoftwareSpec::
  // elementwise_kernels); otherwise each is one fused kernel.
  bool eager_elementwise = false;
  // The loss's cross-entropy kernels (SoftwareSpec::cross_entropy).
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::fused;
  // Inference decode: one new token per sequence attending to kv_len cached ones.
  bool decode = false;
  std::int64_t kv_len = 0;
  // Sliding-window attention of this layer (tokens; 0 = full causal attention). A decode
  // step attends to min(kv_len, window) cached tokens.
  std::int64_t window = 0;

  [[nodiscard]] std::int64_t tokens() const;       // tokens entering the GEMMs on this rank
  [[nodiscard]] std::int64_t norm_tokens() const;  // tokens of norms/residuals (SP shards them)

  friend bool operator==(const LocalShape&, const LocalShape&) = default;
};

// The names of an MLP's ops (dense, or the shared experts of an MoE layer).
struct MlpNames {
  std::string_view up;          // gate_up (gated) or up
  std::string_view up_casts;    // its FP8 casts
  std::string_view activation;  // swiglu or gelu
  std::string_view down;
  std::string_view down_casts;
};
// The MLP of width `ffn` (already split by tp) on this rank's tokens, TP column then row.
void append_mlp_ops(const LlmDims& d, const LocalShape& s, std::int64_t ffn, const MlpNames& names,
                    std::vector<Op>& ops);
// The attention kernel of a layer: `heads` query heads and `kv_heads` KV heads on this rank.
[[nodiscard]] Op attention_op(const LlmDims& d, const LocalShape& s, std::int64_t heads, std::int64_t kv_heads,
                              std::int64_t head_dim);

// A dense layer, or with `moe` a layer whose MLP is the mixture of experts (moe_ops.hpp).
[[nodiscard]] std::vector<Op> transformer_layer_ops(const LlmDims& d, const LocalShape& s, bool moe = false);
[[nodiscard]] std::vector<Op> embedding_ops(const LlmDims& d, const LocalShape& s);
// Final norm, LM head (vocabulary split by tp) and, when training, the cross-entropy loss.
[[nodiscard]] std::vector<Op> head_ops(const LlmDims& d, const LocalShape& s, bool with_loss);

}  // namespace rapidllm::model
