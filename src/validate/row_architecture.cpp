#include "validate/row_architecture.hpp"

#include <regex>

#include <fmt/format.h>

namespace rapidllm::validate {

namespace {

constexpr auto kSyntax = std::regex::ECMAScript | std::regex::icase;

bool mentions(const std::string& text, const char* pattern) {
  return std::regex_search(text, std::regex(pattern, kSyntax));
}

// The first capture group of `pattern` in `text`, as a number.
std::optional<std::int64_t> captured(const std::string& text, const char* pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern, kSyntax))) return std::nullopt;
  return std::stoll(m[1].str());
}

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// moe_experts: "128", "8", "256 routed + 1 shared"; empty = dense.
bool read_experts(const CsvRow& row, RowArchitecture& a, std::string& reason) {
  const std::string text = trimmed(row.text("moe_experts"));
  if (text.empty()) {
    if (mentions(row.text("arch_notes"), R"(\bMoE\b)")) {
      reason = "arch_notes say MoE but 'moe_experts' does not give the expert count";
      return false;
    }
    return true;
  }
  std::smatch m;
  if (!std::regex_match(text, m, std::regex(R"((\d+)(?:\s+routed)?(?:\s*\+\s*(\d+)\s+shared)?)", kSyntax))) {
    reason = fmt::format("'moe_experts' is not in a form this reads ('{}'; expected N or 'N routed + M shared')", text);
    return false;
  }
  a.moe.num_experts = std::stoi(m[1].str());
  a.moe.n_shared_experts = m[2].matched ? std::stoi(m[2].str()) : 0;
  if (a.moe.num_experts < 1 || (a.moe.num_experts == 1 && a.moe.n_shared_experts > 0)) {
    reason = fmt::format("'moe_experts' ('{}') gives no routed experts to choose among", text);
    return false;
  }
  if (!a.moe_row()) return true;
  const auto top_k = row.number("moe_topk");
  if (!top_k || *top_k < 1 || *top_k > a.moe.num_experts) {
    reason = fmt::format("'moe_topk' ('{}') is not a number of experts between 1 and {}", row.text("moe_topk"),
                         a.moe.num_experts);
    return false;
  }
  a.moe.top_k = static_cast<int>(*top_k);
  // The sources force-balance the routing or do not say; every layer past the dense ones
  // is an MoE layer.
  a.moe.expert_imbalance_factor = 1.0;
  a.moe.moe_layer_freq = 1;
  return true;
}

// ffn: a plain number (dense width, or every expert's width on an MoE row),
// "W per expert", "W per expert (+shared expert)" (one shared expert of the same width),
// "D dense (first K layers); W per expert", or "W per expert; D dense" (dense layers of
// width D between the MoE ones, where arch_notes say which: read_notes).
bool read_ffn(const CsvRow& row, RowArchitecture& a, std::string& reason) {
  const std::string text = trimmed(row.text("ffn"));
  std::smatch m;
  if (const auto plain = row.number("ffn")) {
    if (a.moe_row()) {
      a.moe.moe_intermediate_size = static_cast<std::int64_t>(*plain);
      a.intermediate_size = a.moe.moe_intermediate_size;
    }
    return true;  // a dense row's width is read with its other numeric columns
  }
  const std::regex dense_then_experts(
      R"((\d+)\s+dense\s*\(\s*first\s+(\d+)\s+layers?\s*\)\s*[;,]\s*(\d+)\s+per\s+expert)", kSyntax);
  if (std::regex_match(text, m, dense_then_experts)) {
    a.intermediate_size = std::stoll(m[1].str());
    a.moe.first_k_dense_replace = std::stoi(m[2].str());
    a.moe.moe_intermediate_size = std::stoll(m[3].str());
  } else if (std::regex_match(text, m, std::regex(R"((\d+)\s+per\s+expert\s*(\(\s*\+\s*shared\s+expert\s*\))?)", kSyntax))) {
    // No dense layers; the dense MLP width is defined as the expert's.
    a.moe.moe_intermediate_size = std::stoll(m[1].str());
    a.intermediate_size = a.moe.moe_intermediate_size;
    if (m[2].matched) a.moe.n_shared_experts = std::max(a.moe.n_shared_experts, 1);
  } else if (std::regex_match(text, m, std::regex(R"((\d+)\s+per\s+expert\s*[;,]\s*(\d+)\s+dense)", kSyntax))) {
    a.moe.moe_intermediate_size = std::stoll(m[1].str());
    a.intermediate_size = std::stoll(m[2].str());
    a.interleaved_dense = true;
  } else {
    // A dense row with a non-numeric ffn keeps training_cases.cpp's reason.
    if (!a.moe_row()) return true;
    reason = fmt::format("'ffn' is not in a form this reads ('{}'; expected W, 'W per expert', 'W per expert "
                         "(+shared expert)', 'D dense (first K layers); W per expert' or 'W per expert; D dense')",
                         text);
    return false;
  }
  if (!a.moe_row()) {
    reason = fmt::format("'ffn' gives an expert width ('{}') but 'moe_experts' no experts", text);
    return false;
  }
  const auto layers = row.number("layers");
  if (layers && a.moe.first_k_dense_replace >= *layers) {
    reason = fmt::format("'ffn' makes the first {} layers dense but the model has {}", a.moe.first_k_dense_replace,
                         row.text("layers"));
    return false;
  }
  return true;
}

// arch_notes: MLA dimensions, head_dim, the sliding-window pattern, MTP depth.
bool read_notes(const CsvRow& row, RowArchitecture& a, std::string& reason) {
  const std::string& notes = row.text("arch_notes");
  if (auto hd = captured(notes, R"(\bhead_dim[\s=:]+(\d+))")) a.attention.head_dim = static_cast<int>(*hd);
  if (auto mtp = captured(notes, R"(\bMTP\s+depth[\s=:]+(\d+))")) a.mtp_depth = static_cast<int>(*mtp);
  if (mentions(notes, R"(\bMLA\b)")) {
    const auto kv_lora = captured(notes, R"(\bkv_lora(?:_rank)?[\s=:]+(\d+))");
    const auto qk_nope = captured(notes, R"(\bqk_nope(?:_head_dim)?[\s=:]+(\d+))");
    const auto qk_rope = captured(notes, R"(\bqk_rope(?:_head_dim)?[\s=:]+(\d+))");
    const auto v = captured(notes, R"(\bv(?:_head_dim)?[\s=:]+(\d+))");
    if (!kv_lora || !qk_nope || !qk_rope || !v) {
      reason = "arch_notes say MLA without all of its dimensions (kv_lora, qk_nope, qk_rope, v)";
      return false;
    }
    a.attention.type = AttentionType::mla;
    a.attention.kv_lora_rank = static_cast<int>(*kv_lora);
    // No q_lora: the queries are not compressed (DeepSeek-V2-Lite), 0 in the schema.
    a.attention.q_lora_rank = static_cast<int>(captured(notes, R"(\bq_lora(?:_rank)?[\s=:]+(\d+))").value_or(0));
    a.attention.qk_nope_head_dim = static_cast<int>(*qk_nope);
    a.attention.qk_rope_head_dim = static_cast<int>(*qk_rope);
    a.attention.v_head_dim = static_cast<int>(*v);
    a.model_type = "deepseek_v3";
  }
  if (mentions(notes, R"(sliding[- ]?window)")) {
    // Alternating local/global (gpt-oss): layers 0, 2, ... windowed, 1, 3, ... full.
    const auto window = captured(notes, R"(alternating\s+sliding[- ]?window\s*\(\s*(\d+)\s*\)\s*/\s*full)");
    if (!window) {
      reason = "sliding-window attention in a form this does not read (expected "
               "'alternating sliding-window(N)/full attention')";
      return false;
    }
    a.attention.sliding_window = *window;
    a.attention.global_every = 2;
  }
  if (a.moe_row() && mentions(notes, R"(\+\s*shared\s+expert)")) a.moe.n_shared_experts = std::max(a.moe.n_shared_experts, 1);
  const bool alternate = mentions(notes, R"(\bMoE\s+(?:on|in)\s+(?:every\s+other|alternate)\s+layers?)");
  if (a.interleaved_dense != alternate) {
    reason = a.interleaved_dense ? "'ffn' gives dense layers between the MoE ones but arch_notes do not say which "
                                   "(expected 'MoE on alternate layers')"
                                 : "arch_notes put MoE on alternate layers but 'ffn' gives no dense width "
                                   "(expected 'W per expert; D dense')";
    return false;
  }
  // Every other layer an MoE layer: rapidllm's layers 0, 2, 4, ... (the same count and
  // widths as odd-numbered ones).
  if (alternate) a.moe.moe_layer_freq = 2;
  // Chunked local attention (a token sees only its own chunk's earlier tokens) is not
  // modelled: such rows run full causal attention, which costs at least as much and is
  // the same below the chunk length (the caller says so in the case).
  a.chunked_attention = mentions(notes, R"(\bchunked\b)");
  if (a.moe_row() && a.model_type.empty()) {
    // MoE models are gated (three matrices per expert, which their parameter counts
    // imply) unless the notes say a plain GeLU MLP.
    const bool plain_gelu = mentions(notes, R"(\bgelu\b)") && !mentions(notes, R"(swiglu|geglu|gated)");
    a.model_type = plain_gelu ? "gpt" : "llama";
  }
  return true;
}

}  // namespace

std::optional<RowArchitecture> read_row_architecture(const CsvRow& row, std::string& reason) {
  RowArchitecture a;
  if (!read_experts(row, a, reason) || !read_ffn(row, a, reason) || !read_notes(row, a, reason)) return std::nullopt;
  return a;
}

std::optional<ExpertParallelLayout> map_expert_parallel(int tp, int dp, int cp, int ep, int num_experts,
                                                        std::string& reason) {
  if (tp < 1 || dp < 1 || cp < 1 || ep < 1) {
    reason = fmt::format("tp {}, dp {}, cp {}, ep {}: every degree must be at least 1", tp, dp, cp, ep);
    return std::nullopt;
  }
  ExpertParallelLayout out;
  if (dp % ep == 0) {
    // EP carved out of DP: the other dp / ep ranks replicate each expert shard.
    out.ep = ep;
    out.dp = dp / ep;
  } else if (tp > 1 && ep % tp == 0 && dp % (ep / tp) == 0) {
    // EP spans the TP ranks too (expert TP 1): ep / tp expert ranks, each split over tp,
    // hold the same expert fraction per GPU; replication tp x cp x dp / ep is unchanged.
    out.ep = ep / tp;
    out.dp = dp / out.ep;
    out.note = fmt::format("EP {} spans TP {} (expert TP 1); modelled as ep {} with experts split over tp", ep, tp,
                           out.ep);
  } else {
    reason = fmt::format("EP {} is neither a divisor of DP {} nor TP {} x a divisor of it (CP {}): no rapidllm "
                         "layout gives the same experts per GPU",
                         ep, dp, tp, cp);
    return std::nullopt;
  }
  if (num_experts % out.ep != 0) {
    reason = fmt::format("{} experts do not divide evenly over ep {}", num_experts, out.ep);
    return std::nullopt;
  }
  out.tp_ep = true;
  return out;
}

}  // namespace rapidllm::validate
