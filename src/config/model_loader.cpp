#include "config/model_loader.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "config/cursor.hpp"

namespace rapidllm::config {

namespace {

constexpr const char* kGemmKeys[] = {"M", "K", "N", "backward", "gemm_shard_axis"};
constexpr const char* kLlmKeys[] = {"run_type", "model_type", "global_batch_size", "seq_len", "hidden_dim",
                                    "intermediate_size", "vocab_size", "num_layers", "attention", "moe"};

// Keys of the other mode are a sign of a mix-up, not something to ignore silently.
void reject_other_mode_keys(const Cursor& mp, bool gemm) {
  if (gemm) {
    for (const char* key : kLlmKeys) {
      if (mp.child(key).present()) mp.child(key).fail("this key is for mode: LLM, but the file says mode: GEMM", "remove it or set mode: LLM");
    }
  } else {
    for (const char* key : kGemmKeys) {
      if (mp.child(key).present()) mp.child(key).fail("this key is for mode: GEMM, but the file says mode: LLM", "remove it or set mode: GEMM");
    }
  }
}

GemmModelSpec read_gemm(const Cursor& mp) {
  GemmModelSpec g;
  g.m = mp.child("M").integer();
  g.k = mp.child("K").integer();
  g.n = mp.child("N").integer();
  g.backward = mp.child("backward").boolean();
  g.shard_axis = mp.child("gemm_shard_axis").choice() == "row" ? ShardAxis::row : ShardAxis::column;
  return g;
}

AttentionSpec read_attention(const Cursor& a, std::int64_t hidden) {
  AttentionSpec out;
  std::string type = a.child("attention_type").choice();
  out.type = type == "mha" ? AttentionType::mha : type == "gqa" ? AttentionType::gqa : AttentionType::mla;
  out.num_heads = a.child("num_heads").small_integer();
  auto kv = a.child("kv_heads").optional_integer();
  if (out.type == AttentionType::gqa) {
    if (!kv) a.child("kv_heads").fail("gqa needs kv_heads", "set attention.kv_heads (1 = multi-query attention)");
    if (out.num_heads % *kv != 0) {
      a.child("kv_heads").fail(fmt::format("num_heads ({}) is not a multiple of kv_heads ({})", out.num_heads, *kv),
                               "query heads are shared evenly among KV heads");
    }
    out.kv_heads = static_cast<int>(*kv);
  } else {
    // RAPID-LLM's schema: kv_heads is read only for gqa. Say so rather than drop it quietly.
    if (kv && *kv != out.num_heads && out.type == AttentionType::mha) {
      spdlog::warn("{}.kv_heads = {} is ignored because attention_type is mha (using {} KV heads); "
                   "set attention_type: gqa to use it",
                   a.path(), *kv, out.num_heads);
    }
    out.kv_heads = out.num_heads;
  }
  if (auto hd = a.child("head_dim").optional_integer()) out.head_dim = static_cast<int>(*hd);
  if (!out.head_dim && out.type != AttentionType::mla && hidden % out.num_heads != 0) {
    a.child("num_heads").fail(fmt::format("hidden_dim ({}) is not a multiple of num_heads ({})", hidden, out.num_heads),
                              "set attention.head_dim explicitly");
  }
  out.use_flash_attention = a.child("use_flashattention").boolean();
  if (auto tile = a.child("attention_tile_size").optional_integer()) out.tile_size = static_cast<int>(*tile);
  out.sliding_window = a.child("sliding_window").optional_integer().value_or(0);
  if (auto every = a.child("global_every").optional_integer()) {
    if (out.sliding_window == 0) {
      a.child("global_every").fail("global_every says which layers stay global among windowed ones, but no "
                                   "sliding_window is set",
                                   "set attention.sliding_window (tokens) or remove global_every");
    }
    out.global_every = static_cast<int>(*every);
  }
  out.kv_lora_rank = a.child("kv_lora_rank").small_integer();
  out.q_lora_rank = a.child("q_lora_rank").small_integer();
  out.qk_nope_head_dim = a.child("qk_nope_head_dim").small_integer();
  out.qk_rope_head_dim = a.child("qk_rope_head_dim").small_integer();
  out.v_head_dim = a.child("v_head_dim").small_integer();
  if (out.type == AttentionType::mla && (out.kv_lora_rank == 0 || out.v_head_dim == 0 || out.qk_nope_head_dim == 0)) {
    a.child("kv_lora_rank").fail("mla needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim",
                                 "copy them from the model's config.json");
  }
  return out;
}

MoeSpec read_moe(const Cursor& m) {
  MoeSpec out;
  out.num_experts = m.child("num_experts").small_integer();
  out.top_k = m.child("top_k").small_integer();
  out.moe_intermediate_size = m.child("moe_intermediate_size").integer();
  out.n_shared_experts = m.child("n_shared_experts").small_integer();
  out.expert_imbalance_factor = m.child("expert_imbalance_factor").real();
  out.moe_layer_freq = m.child("moe_layer_freq").small_integer();
  out.first_k_dense_replace = m.child("first_k_dense_replace").small_integer();
  if (out.top_k > out.num_experts) {
    m.child("top_k").fail(fmt::format("top_k ({}) exceeds num_experts ({})", out.top_k, out.num_experts),
                          "a token is routed to top_k distinct experts: lower top_k or raise num_experts");
  }
  if (out.expert_imbalance_factor < 1.0 || out.expert_imbalance_factor > out.num_experts) {
    m.child("expert_imbalance_factor")
        .fail(fmt::format("expert_imbalance_factor ({}) must lie in [1, num_experts = {}]", out.expert_imbalance_factor,
                          out.num_experts),
              "1 = balanced; a > 1 gives one expert a x the mean tokens and the others the rest evenly");
  }
  if (out.num_experts > 1 && out.moe_intermediate_size == 0) {
    m.child("moe_intermediate_size").fail("an MoE model (num_experts > 1) needs the expert MLP width",
                                        "add moe_intermediate_size (HF: moe_intermediate_size)");
  }
  return out;
}

LlmModelSpec read_llm(const Cursor& mp) {
  LlmModelSpec l;
  l.run_type = mp.child("run_type").choice() == "training" ? RunType::training : RunType::inference;
  l.tied_embeddings = mp.child("tied_embeddings").boolean();
  l.model_type = mp.child("model_type").choice();
  l.global_batch_size = mp.child("global_batch_size").integer();
  l.gradient_accumulation_steps = mp.child("gradient_accumulation_steps").small_integer();
  l.seq_len = mp.child("seq_len").integer();
  l.decode_len = mp.child("decode_len").integer();
  l.hidden_dim = mp.child("hidden_dim").integer();
  l.intermediate_size = mp.child("intermediate_size").integer();
  l.vocab_size = mp.child("vocab_size").integer();
  l.num_layers = mp.child("num_layers").small_integer();
  l.attention = read_attention(mp.child("attention"), l.hidden_dim);
  l.moe = read_moe(mp.child("moe"));
  if (l.run_type == RunType::inference && l.decode_len >= l.seq_len) {
    mp.child("decode_len").fail(fmt::format("decode_len ({}) must be smaller than seq_len ({}), which includes it",
                                            l.decode_len, l.seq_len),
                                "seq_len = prompt length + decode_len");
  }
  return l;
}

}  // namespace

ModelSpec read_model(const Document& doc) {
  Cursor root(doc);
  Cursor mp = root.child("model_param");
  if (!mp.present()) mp.fail("missing the model_param section", "a model file starts with 'model_param:'");
  ModelSpec out;
  out.source = doc.file;
  bool gemm = mp.child("mode").choice() == "GEMM";
  reject_other_mode_keys(mp, gemm);
  if (gemm) {
    out.workload = read_gemm(mp);
  } else {
    out.workload = read_llm(mp);
  }
  return out;
}

}  // namespace rapidllm::config
