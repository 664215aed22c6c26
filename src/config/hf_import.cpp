// Hugging Face config.json -> rapidllm model YAML (include/rapidllm/hf_import.hpp).
#include "rapidllm/hf_import.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <fstream>
#include <sstream>
#include <string_view>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "config/document.hpp"
#include "config/model_loader.hpp"
#include "config/schema_check.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm {

namespace {

using nlohmann::json;

enum class MoeFields {
  none,
  mixtral,    // num_local_experts, num_experts_per_tok; intermediate_size is the expert width
  qwen3_moe,  // num_experts, num_experts_per_tok, moe_intermediate_size, decoder_sparse_step, mlp_only_layers
  deepseek,   // n_routed_experts, num_experts_per_tok, moe_intermediate_size, n_shared_experts,
              // first_k_dense_replace, moe_layer_freq
};

struct Family {
  const char* architecture;  // HF class name in "architectures"
  const char* hf_model_type;  // HF "model_type", used when "architectures" is absent
  const char* model_type;     // rapidllm's model_param.model_type
  bool tie_default;           // the config class's default for tie_word_embeddings
  bool mla;
  MoeFields moe;
  const char* note;  // how the family is approximated (comment only), or ""
};

constexpr Family kFamilies[] = {
    {"LlamaForCausalLM", "llama", "llama", false, false, MoeFields::none, ""},
    {"MistralForCausalLM", "mistral", "llama", false, false, MoeFields::none,
     "Mistral is the Llama layer (SwiGLU, RMSNorm, RoPE, GQA)."},
    {"Qwen2ForCausalLM", "qwen2", "qwen2", false, false, MoeFields::none,
     "Qwen2's q/k/v biases (about 0.01 % of the parameters) are not counted."},
    {"Qwen3ForCausalLM", "qwen3", "llama", false, false, MoeFields::none,
     "Qwen3 is modelled as the Llama layer; its per-head q/k RMSNorm weights (2 x head_dim per layer) are not "
     "counted."},
    {"Gemma2ForCausalLM", "gemma2", "llama", true, false, MoeFields::none,
     "Gemma 2's gated GELU MLP is modelled as SwiGLU (the same three matrices); its extra pre/post-feedforward "
     "norms and logit soft-capping are not modelled."},
    {"Gemma3ForCausalLM", "gemma3_text", "llama", true, false, MoeFields::none,
     "Gemma 3's gated GELU MLP is modelled as SwiGLU (the same three matrices); its extra norms are not "
     "modelled."},
    {"Gemma3ForConditionalGeneration", "gemma3", "llama", true, false, MoeFields::none,
     "Only the text decoder (text_config) is imported; the vision tower is not modelled. Gemma 3's gated GELU "
     "MLP is modelled as SwiGLU (the same three matrices)."},
    {"Phi3ForCausalLM", "phi3", "phi3", false, false, MoeFields::none,
     "Phi-3's fused qkv and gate_up projections hold the same weights as separate ones."},
    {"GPTNeoXForCausalLM", "gpt_neox", "gpt", false, false, MoeFields::none,
     "GPT-NeoX: GELU MLP and LayerNorm as model_type gpt; its parallel residual and partial rotary embedding "
     "are not modelled, nor are its linear biases counted."},
    {"MixtralForCausalLM", "mixtral", "llama", false, false, MoeFields::mixtral,
     "Mixtral: Llama/Mistral layers whose MLP is a mixture of experts."},
    {"Qwen3MoeForCausalLM", "qwen3_moe", "llama", false, false, MoeFields::qwen3_moe,
     "Qwen3-MoE: Llama-style attention (q/k norms not counted) with a mixture-of-experts MLP."},
    {"DeepseekV3ForCausalLM", "deepseek_v3", "deepseek_v3", false, true, MoeFields::deepseek, ""},
    {"DeepseekV2ForCausalLM", "deepseek_v2", "deepseek_v3", false, true, MoeFields::deepseek,
     "DeepSeek-V2 is modelled as deepseek_v3 (the same MLA + shared/routed experts layout; V2's softmax router "
     "and group-limited routing are not modelled)."},
    {"GptOssForCausalLM", "gpt_oss", "llama", false, false, MoeFields::mixtral,
     "gpt-oss: attention sinks, attention biases and the clamped SwiGLU are not modelled."},
    {"Glm4MoeForCausalLM", "glm4_moe", "glm4_moe", false, false, MoeFields::deepseek, ""},
};

// Reads fields of one JSON object, naming the field (with its "text_config." prefix) on error.
class Fields {
 public:
  Fields(const json& obj, std::string prefix, std::string source)
      : obj_(obj), prefix_(std::move(prefix)), source_(std::move(source)) {}

  [[nodiscard]] bool has(const char* key) const { return obj_.contains(key) && !obj_.at(key).is_null(); }
  [[nodiscard]] const json& at(const char* key) const { return obj_.at(key); }
  [[nodiscard]] std::string name(const char* key) const { return prefix_ + key; }

  [[noreturn]] void fail(const char* key, const std::string& problem, const std::string& hint) const {
    throw ConfigError(SourceLocation{source_, 0, 0, {}}, name(key), problem, hint);
  }

  [[nodiscard]] std::int64_t integer(const char* key, std::int64_t min = 1) const {
    if (!has(key)) fail(key, "missing required field", "a config.json of this architecture has it; is the file complete?");
    const json& v = obj_.at(key);
    if (!v.is_number_integer()) fail(key, fmt::format("expected an integer, got {}", v.dump()), "");
    // Past 2^63 - 1 nlohmann holds it unsigned, and get<int64_t> would wrap it negative.
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(key, fmt::format("{} is too large", v.dump()), "");
    }
    const auto n = v.get<std::int64_t>();
    if (n < min) fail(key, fmt::format("must be at least {}, got {}", min, n), "");
    return n;
  }
  [[nodiscard]] std::optional<std::int64_t> optional_integer(const char* key, std::int64_t min = 0) const {
    if (!has(key)) return std::nullopt;
    return integer(key, min);
  }
  [[nodiscard]] std::optional<bool> optional_boolean(const char* key) const {
    if (!has(key)) return std::nullopt;
    const json& v = obj_.at(key);
    if (!v.is_boolean()) fail(key, fmt::format("expected true or false, got {}", v.dump()), "");
    return v.get<bool>();
  }

 private:
  const json& obj_;
  std::string prefix_;
  std::string source_;
};

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

std::pair<int, int> line_column(const std::string& text, std::size_t byte) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// Where the text quoted in an exception message ('...') first occurs in `text`; the file
// alone when the message quotes nothing or the text is not found.
SourceLocation locate_quoted(const std::string& text, const std::string& message, const std::string& source) {
  const auto open = message.find('\'');
  const auto close = message.rfind('\'');
  if (open == std::string::npos || close <= open + 1) return SourceLocation{source, 0, 0, {}};
  const auto at = text.find(message.substr(open + 1, close - open - 1));
  if (at == std::string::npos) return SourceLocation{source, 0, 0, {}};
  const auto [line, column] = line_column(text, at);
  return SourceLocation{source, line, column, {}};
}

std::string supported_list() {
  std::string out;
  for (const auto& f : kFamilies) {
    if (!out.empty()) out += ", ";
    out += f.architecture;
  }
  return out;
}

const Family& find_family(const json& root, const std::string& source) {
  const SourceLocation where{source, 0, 0, {}};
  std::string arch;
  if (root.contains("architectures") && !root.at("architectures").is_null()) {
    const json& a = root.at("architectures");
    if (!a.is_array() || a.empty() || !a.at(0).is_string()) {
      throw ConfigError(where, "architectures", fmt::format("expected a list of class names, got {}", a.dump()),
                        fmt::format("supported: {}", supported_list()));
    }
    arch = a.at(0).get<std::string>();
    for (const auto& f : kFamilies) {
      if (arch == f.architecture) return f;
    }
    throw ConfigError(where, "architectures", fmt::format("unsupported architecture '{}'", arch),
                      fmt::format("supported: {}", supported_list()));
  }
  if (root.contains("model_type") && root.at("model_type").is_string()) {
    const auto mt = root.at("model_type").get<std::string>();
    for (const auto& f : kFamilies) {
      if (mt == f.hf_model_type) return f;
    }
    throw ConfigError(where, "architectures",
                      fmt::format("no \"architectures\" field, and model_type '{}' is not a supported family", mt),
                      fmt::format("supported: {}", supported_list()));
  }
  throw ConfigError(where, "architectures", "missing: neither \"architectures\" nor \"model_type\" is given",
                    fmt::format("is this a Hugging Face config.json? supported: {}", supported_list()));
}

// Sliding-window attention onto model_param.attention.sliding_window / global_every: a
// window in every layer (Mistral, Phi-3), alternating with global layers (Gemma 2: every
// 2nd layer global), one global layer in k (Gemma 3's sliding_window_pattern), or the
// explicit per-layer `layer_types` when they repeat with a period. A pattern no period
// describes is modelled with the nearest one, and a warning says so.
void map_attention_window(const Fields& c, std::string_view hf_model_type, std::vector<std::string>& attention,
                          std::vector<std::string>& warnings, std::vector<std::string>& notes) {
  std::optional<std::int64_t> window;
  if (c.has("sliding_window") && c.at("sliding_window").is_number_integer()) window = c.at("sliding_window").get<std::int64_t>();
  const bool enabled = c.optional_boolean("use_sliding_window").value_or(true);
  if (window && !enabled) {
    notes.push_back(fmt::format("{} = {} is disabled (use_sliding_window: false): full attention", c.name("sliding_window"),
                                *window));
    return;
  }
  std::vector<bool> global;  // per layer, from layer_types
  if (c.has("layer_types") && c.at("layer_types").is_array()) {
    for (const auto& t : c.at("layer_types")) global.push_back(t.is_string() && t.get<std::string>() == "full_attention");
  }
  if (!window) {
    if (!global.empty() && std::find(global.begin(), global.end(), false) != global.end()) {
      warnings.push_back(fmt::format("{} lists windowed layers but no sliding_window is given: modelled as full attention",
                                     c.name("layer_types")));
    }
    return;
  }
  attention.push_back(fmt::format("sliding_window: {}  # config.json {}", *window, c.name("sliding_window")));
  int every = 0;  // 0: every layer windowed
  if (!global.empty()) {
    const auto n = static_cast<int>(global.size());
    const auto globals = static_cast<int>(std::count(global.begin(), global.end(), true));
    if (globals > 0) {
      every = std::max(1, static_cast<int>(std::lround(static_cast<double>(n) / globals)));
      bool exact = true;
      for (int i = 0; i < n; ++i) exact = exact && global[static_cast<std::size_t>(i)] == ((i + 1) % every == 0);
      if (!exact) {
        warnings.push_back(fmt::format("{}: {} of {} layers are global in a pattern no period describes; modelled as "
                                       "one global layer in {}",
                                       c.name("layer_types"), globals, n, every));
      }
    }
  } else if (auto pattern = c.optional_integer("sliding_window_pattern", 1)) {
    every = static_cast<int>(*pattern);  // Gemma 3: one global layer in `pattern`
  } else if (hf_model_type == "gemma2") {
    every = 2;  // Gemma 2 alternates local and global layers
  }
  if (every > 0) attention.push_back(fmt::format("global_every: {}  # every {}th layer attends globally", every, every));
}

}  // namespace

std::vector<std::string> supported_hf_architectures() {
  std::vector<std::string> out;
  for (const auto& f : kFamilies) out.emplace_back(f.architecture);
  return out;
}

HfImportResult import_hf_config(const std::string& json_text, const std::string& source_name,
                                const HfImportOptions& options) {
  const SourceLocation where{source_name, 0, 0, {}};
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_column(json_text, e.byte > 0 ? e.byte - 1 : 0);
    throw ConfigError(SourceLocation{source_name, line, column, {}}, "",
                      fmt::format("invalid JSON: {}", one_line(e.what())),
                      "a Hugging Face config.json is one JSON object; check commas, quotes and brackets");
  } catch (const json::out_of_range& e) {
    // A number past the doubles ("1e999"): nlohmann throws out_of_range (406) with no byte
    // offset, only the number's text between quotes, which is how it is found again.
    throw ConfigError(locate_quoted(json_text, e.what(), source_name), "",
                      fmt::format("invalid JSON: {}", one_line(e.what())),
                      "numbers in a config.json must fit in a double (at most about 1.8e308)");
  }
  if (!root.is_object()) {
    throw ConfigError(where, "", "expected a JSON object at the top level", "pass the model's config.json");
  }
  const Family& family = find_family(root, source_name);

  // Multimodal wrappers keep the decoder's facts under "text_config".
  const bool nested = root.contains("text_config") && root.at("text_config").is_object();
  const Fields c(nested ? root.at("text_config") : root, nested ? "text_config." : "", source_name);

  HfImportResult result;
  result.architecture = family.architecture;
  std::vector<std::string> notes;
  if (*family.note) notes.emplace_back(family.note);

  const std::int64_t hidden = c.integer("hidden_size");
  const std::int64_t layers = c.integer("num_hidden_layers");
  const std::int64_t heads = c.integer("num_attention_heads");
  const std::int64_t vocab = c.integer("vocab_size");
  // Mixtral and gpt-oss name the expert width intermediate_size; there is no dense MLP.
  const std::int64_t intermediate = c.integer("intermediate_size");

  // ---- run settings (rapidllm's choices, not the config's) ----
  const bool inference = options.run_type == RunType::inference;
  std::int64_t seq_len = 0;
  if (options.seq_len) {
    if (*options.seq_len < 1) throw ConfigError(where, "--seq-len", "must be at least 1", "");
    seq_len = *options.seq_len;
    if (auto max_pos = c.optional_integer("max_position_embeddings", 1); max_pos && seq_len > *max_pos) {
      result.warnings.push_back(fmt::format("seq_len = {} exceeds the model's {} = {}", seq_len,
                                            c.name("max_position_embeddings"), *max_pos));
    }
  } else {
    if (!c.has("max_position_embeddings")) {
      c.fail("max_position_embeddings", "missing, and no --seq-len was given", "pass --seq-len N");
    }
    seq_len = std::min<std::int64_t>(c.integer("max_position_embeddings"), 8192);
  }
  const std::int64_t batch = options.global_batch_size.value_or(inference ? 1 : 128);
  if (batch < 1) throw ConfigError(where, "--global-batch-size", "must be at least 1", "");
  std::int64_t decode_len = 0;
  if (inference) {
    decode_len = options.decode_len.value_or(1024);
    if (decode_len < 1 || decode_len >= seq_len) {
      throw ConfigError(where, "--decode-len",
                        fmt::format("decode_len ({}) must be at least 1 and smaller than seq_len ({}), which includes it",
                                    decode_len, seq_len),
                        "seq_len = prompt length + decode_len; pass --seq-len and --decode-len");
    }
  } else if (options.decode_len) {
    throw ConfigError(where, "--decode-len", "decode_len applies to inference only", "add --run-type inference");
  }

  // ---- attention ----
  std::vector<std::string> attention;
  if (family.mla) {
    attention.push_back("attention_type: mla");
    attention.push_back(fmt::format("num_heads: {}", heads));
    attention.push_back(fmt::format("kv_lora_rank: {}", c.integer("kv_lora_rank")));
    // DeepSeek-V2-Lite has q_lora_rank: null (queries are not compressed): 0 in the schema.
    attention.push_back(fmt::format("q_lora_rank: {}", c.optional_integer("q_lora_rank").value_or(0)));
    attention.push_back(fmt::format("qk_nope_head_dim: {}", c.integer("qk_nope_head_dim")));
    attention.push_back(fmt::format("qk_rope_head_dim: {}", c.integer("qk_rope_head_dim")));
    attention.push_back(fmt::format("v_head_dim: {}", c.integer("v_head_dim")));
  } else {
    const std::int64_t kv = c.optional_integer("num_key_value_heads", 1).value_or(heads);
    if (kv > heads || heads % kv != 0) {
      c.fail("num_key_value_heads", fmt::format("{} does not divide num_attention_heads ({})", kv, heads),
             "query heads are shared evenly among KV heads");
    }
    if (kv == heads) {
      attention.push_back("attention_type: mha");
      attention.push_back(fmt::format("num_heads: {}", heads));
    } else {
      attention.push_back(kv == 1 ? "attention_type: gqa  # multi-query attention (mqa): gqa with one KV head"
                                  : "attention_type: gqa");
      attention.push_back(fmt::format("num_heads: {}", heads));
      attention.push_back(fmt::format("kv_heads: {}", kv));
    }
    if (auto hd = c.optional_integer("head_dim", 1); hd && (hidden % heads != 0 || *hd != hidden / heads)) {
      attention.push_back(fmt::format("head_dim: {}  # config.json head_dim; hidden_size / num_attention_heads = {}",
                                      *hd, hidden % heads == 0 ? fmt::format("{}", hidden / heads)
                                                               : fmt::format("{:.2f}", static_cast<double>(hidden) /
                                                                                           static_cast<double>(heads))));
    }
  }
  map_attention_window(c, family.hf_model_type, attention, result.warnings, notes);
  attention.push_back(fmt::format("use_flashattention: {}  # rapidllm's choice, not part of config.json",
                                  options.use_flashattention ? "true" : "false"));

  // ---- mixture of experts ----
  std::vector<std::string> moe;
  const std::int64_t dense_intermediate = intermediate;
  switch (family.moe) {
    case MoeFields::none:
      break;
    case MoeFields::mixtral: {
      const std::int64_t experts = c.integer("num_local_experts");
      moe.push_back(fmt::format("num_experts: {}  # num_local_experts", experts));
      moe.push_back(fmt::format("top_k: {}  # num_experts_per_tok", c.integer("num_experts_per_tok")));
      moe.push_back(fmt::format("moe_intermediate_size: {}  # intermediate_size (every MLP is an expert MLP)",
                                intermediate));
      moe.push_back("n_shared_experts: 0");
      moe.push_back("moe_layer_freq: 1");
      moe.push_back("first_k_dense_replace: 0");
      break;
    }
    case MoeFields::qwen3_moe: {
      moe.push_back(fmt::format("num_experts: {}", c.integer("num_experts")));
      moe.push_back(fmt::format("top_k: {}  # num_experts_per_tok", c.integer("num_experts_per_tok")));
      moe.push_back(fmt::format("moe_intermediate_size: {}", c.integer("moe_intermediate_size")));
      moe.push_back("n_shared_experts: 0");
      moe.push_back(fmt::format("moe_layer_freq: {}  # decoder_sparse_step",
                                c.optional_integer("decoder_sparse_step", 1).value_or(1)));
      moe.push_back("first_k_dense_replace: 0");
      if (c.has("mlp_only_layers") && c.at("mlp_only_layers").is_array() && !c.at("mlp_only_layers").empty()) {
        result.warnings.push_back(fmt::format("{} = {}: the schema cannot list individual dense layers; they are "
                                              "modelled as MoE layers",
                                              c.name("mlp_only_layers"), c.at("mlp_only_layers").dump()));
      }
      break;
    }
    case MoeFields::deepseek: {
      moe.push_back(fmt::format("num_experts: {}  # n_routed_experts", c.integer("n_routed_experts")));
      moe.push_back(fmt::format("top_k: {}  # num_experts_per_tok", c.integer("num_experts_per_tok")));
      moe.push_back(fmt::format("moe_intermediate_size: {}", c.integer("moe_intermediate_size")));
      moe.push_back(fmt::format("n_shared_experts: {}", c.optional_integer("n_shared_experts").value_or(0)));
      moe.push_back(fmt::format("moe_layer_freq: {}", c.optional_integer("moe_layer_freq").value_or(1)));
      moe.push_back(fmt::format("first_k_dense_replace: {}", c.optional_integer("first_k_dense_replace").value_or(0)));
      break;
    }
  }
  if (auto mtp = c.optional_integer("num_nextn_predict_layers"); mtp && *mtp > 0) {
    result.warnings.push_back(fmt::format("{} = {}: the multi-token-prediction module(s) are not modelled (the "
                                          "schema has no key for them)",
                                          c.name("num_nextn_predict_layers"), *mtp));
  }

  bool tied = family.tie_default;
  if (auto t = c.optional_boolean("tie_word_embeddings")) {
    tied = *t;
  } else if (auto top = Fields(root, "", source_name).optional_boolean("tie_word_embeddings")) {
    tied = *top;
  } else {
    notes.push_back(fmt::format("tie_word_embeddings is absent: {}'s default ({}) is used", family.architecture,
                                tied ? "true" : "false"));
  }

  // ---- the file ----
  std::string y;
  y += fmt::format("# Imported by `rapidllm import-hf` from {} (architecture {}, rapidllm model_type {}).\n",
                   one_line(source_name), family.architecture, family.model_type);
  y += "# Architecture facts come from config.json; run_type, global_batch_size, seq_len, decode_len and\n";
  y += "# use_flashattention are rapidllm's choices (import-hf options).\n";
  for (const auto& w : result.warnings) y += fmt::format("# WARNING: {}\n", one_line(w));
  for (const auto& n : notes) y += fmt::format("# note: {}\n", one_line(n));
  y += "model_param:\n";
  y += "  mode: LLM\n";
  y += fmt::format("  run_type: {}\n", inference ? "inference" : "training");
  y += fmt::format("  model_type: {}\n", family.model_type);
  y += fmt::format("  tied_embeddings: {}\n", tied ? "true" : "false");
  y += fmt::format("  global_batch_size: {}\n", batch);
  y += fmt::format("  seq_len: {}\n", seq_len);
  if (inference) y += fmt::format("  decode_len: {}\n", decode_len);
  y += fmt::format("  hidden_dim: {}\n", hidden);
  y += fmt::format("  intermediate_size: {}\n", dense_intermediate);
  y += fmt::format("  vocab_size: {}\n", vocab);
  y += fmt::format("  num_layers: {}\n", layers);
  y += "  attention:\n";
  for (const auto& a : attention) y += fmt::format("    {}\n", a);
  if (!moe.empty()) {
    y += "  moe:\n";
    for (const auto& m : moe) y += fmt::format("    {}\n", m);
  }
  // Read back exactly as `predict --model` will read the file.
  const config::Document doc =
      config::Document::parse(y, one_line(source_name) + " (imported model YAML)", ConfigFile::model);
  config::check_schema(doc);
  result.model = std::get<LlmModelSpec>(config::read_model(doc).workload);
  result.yaml = std::move(y);
  return result;
}

HfImportResult import_hf_config_file(const std::string& path, const HfImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ConfigError(SourceLocation{path, 0, 0, {}}, "", "cannot read the config.json", "check the path");
  }
  std::stringstream text;
  text << in.rdbuf();
  return import_hf_config(text.str(), path, options);
}

std::string hf_config_to_model_yaml(const std::string& json_text, const std::string& source_name,
                                    const HfImportOptions& options, std::vector<std::string>* warnings) {
  HfImportResult r = import_hf_config(json_text, source_name, options);
  if (warnings) *warnings = r.warnings;
  return std::move(r.yaml);
}

}  // namespace rapidllm
