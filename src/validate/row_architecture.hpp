// Mixture-of-experts, multi-head latent attention and sliding-window attention as the
// training.csv rows write them, and the rows' expert parallelism in rapidllm's terms.
//
// Why a file of its own: dense rows carry their whole architecture in numeric columns
// (layers, hidden, heads, ffn), which training_cases.cpp reads directly. MoE and MLA rows
// put theirs in free text: `moe_experts` "256 routed + 1 shared", `ffn` "18432 dense
// (first 3 layers); 2048 per expert", `arch_notes` "MLA (q_lora 1536, kv_lora 512, ...)"
// or "alternating sliding-window(128)/full attention, head_dim 64". Reading that text is
// the error-prone part, so it lives here, is tested on the rows' own strings
// (tests/validation/row_architecture_test.cpp), and says why when a form is not read: such
// a row is skipped, never guessed. Nothing here names a model or a row.
//
// Expert parallelism differs between the sources and rapidllm. In the rows (Megatron /
// NeMo), world = tp x pp x dp x cp and EP is carved out of the data-parallel ranks (expert
// tensor parallelism = tp unless stated). In rapidllm (RAPID-LLM's semantics) ep multiplies
// the GPU count, GPUs = tp x cp x ep x pp x dp: dense layers are data-parallel over
// dp x ep, experts are sharded over ep (and split over tp when tp_ep) and replicated over
// dp and cp. map_expert_parallel() converts the first into the second.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rapidllm/model_spec.hpp"
#include "validate/csv_table.hpp"

namespace rapidllm::validate {

// What a row's architecture text says beyond the numeric columns.
struct RowArchitecture {
  // num_experts 1 for a dense row. For MoE: num_experts, n_shared_experts, top_k,
  // moe_intermediate_size and first_k_dense_replace from the text; expert_imbalance_factor
  // 1 (the sources force-balance or do not say) and moe_layer_freq 1 (2 for "MoE on
  // alternate layers"); a shared expert also from "(+shared expert)" or "+ shared expert".
  MoeSpec moe;
  // The dense MLP width when `ffn` is text (the first k dense layers' width, else the
  // expert width); 0 when `ffn` is a plain number, which the caller reads.
  std::int64_t intermediate_size = 0;
  // Only what the text states: type (mla, else left mha for the caller to settle from
  // kv_heads), head_dim, sliding_window / global_every and the five MLA dimensions.
  AttentionSpec attention;
  // "llama" (gated MLP, RMSNorm, RoPE) for MoE rows unless arch_notes say GeLU without a
  // gate, "deepseek_v3" for MLA rows; "" = the dense rule (training_cases.cpp).
  std::string model_type;
  // Multi-token-prediction depth ("MTP depth 1"): not modelled by rapidllm, but counted in
  // the FLOPs some sources publish (megatron_flops.hpp).
  int mtp_depth = 0;
  // `ffn` gave a dense width for layers between the MoE ones ("W per expert; D dense"),
  // which arch_notes must place ("MoE on alternate layers": moe_layer_freq 2).
  bool interleaved_dense = false;
  // arch_notes mention chunked (local) attention, which rapidllm does not model.
  bool chunked_attention = false;

  [[nodiscard]] bool moe_row() const { return moe.num_experts > 1; }
};

// Reads `moe_experts`, `moe_topk`, `ffn` and `arch_notes`; nullopt with `reason` when the
// row states something in a form this does not read.
[[nodiscard]] std::optional<RowArchitecture> read_row_architecture(const CsvRow& row, std::string& reason);

// rapidllm's dp / ep / tp_ep for a row's Megatron tp, dp, cp and ep.
struct ExpertParallelLayout {
  int dp = 1;
  int ep = 1;
  bool tp_ep = true;
  std::string note;  // how the row's layout was re-expressed, when not one-to-one; else ""
};

// ep divides dp: dp / ep and ep, experts split over tp (Megatron's default expert TP = tp).
// ep > dp with EP spanning the TP ranks (expert TP 1), ep / tp dividing dp: ep / tp
// expert ranks, each split over tp, which holds the same expert shard per GPU and the
// same replication (tp x cp x dp / ep) as the row. Anything else: nullopt with `reason`.
// The mapped ep must divide the experts evenly.
[[nodiscard]] std::optional<ExpertParallelLayout> map_expert_parallel(int tp, int dp, int cp, int ep, int num_experts,
                                                                      std::string& reason);

}  // namespace rapidllm::validate
