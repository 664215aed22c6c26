// import-hf: each shipped config.json (tests/data/hf/) converts to a model YAML that
// rapidllm's own loader accepts, with the dimensions of the JSON and the parameter count of
// the model card.
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/llm_dims.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/hf_import.hpp"

namespace rapidllm {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string hf_path(const std::string& name) {
  return std::string(RAPIDLLM_SOURCE_DIR) + "/tests/data/hf/" + name + "/config.json";
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes the YAML where load_model can read it; one file per test and name.
std::string write_temp(const std::string& name, const std::string& yaml) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string stem = std::string("rapidllm_hf_") + info->test_suite_name() + "_" + info->name() + "_" + name;
  for (char& ch : stem) {
    if (ch == '/' || ch == '.') ch = '_';
  }
  const fs::path p = fs::temp_directory_path() / (stem + ".yaml");
  std::ofstream(p) << yaml;
  return p.string();
}

struct Converted {
  HfImportResult import;
  LlmModelSpec spec;
};

Converted convert_and_load(const std::string& name, const HfImportOptions& options = {}) {
  Converted c;
  c.import = import_hf_config_file(hf_path(name), options);
  const std::string path = write_temp(name, c.import.yaml);
  c.spec = std::get<LlmModelSpec>(load_model(path).workload);
  fs::remove(path);
  return c;
}

struct DenseCase {
  std::string name;
  std::string model_type;   // rapidllm's
  double card_parameters;   // the model card's count
  std::optional<double> exact;  // rapidllm's count, derived by hand where it must differ from the card
};

void PrintTo(const DenseCase& c, std::ostream* os) { *os << c.name; }

class DenseImport : public ::testing::TestWithParam<DenseCase> {};

TEST_P(DenseImport, ConvertsLoadsAndMatchesTheJsonAndTheModelCard) {
  const DenseCase& tc = GetParam();
  const auto j = nlohmann::json::parse(read(hf_path(tc.name)));
  const Converted c = convert_and_load(tc.name);
  const LlmModelSpec& s = c.spec;

  EXPECT_THAT(c.import.yaml, ::testing::StartsWith("# Imported by `rapidllm import-hf` from "));
  EXPECT_THAT(c.import.yaml.substr(0, c.import.yaml.find('\n')), HasSubstr(j["architectures"][0].get<std::string>()));
  EXPECT_EQ(s.model_type, tc.model_type);
  // The import's own read-back is what load_model reads from the file.
  EXPECT_EQ(c.import.model.model_type, s.model_type);
  EXPECT_EQ(c.import.model.hidden_dim, s.hidden_dim);
  EXPECT_EQ(c.import.model.intermediate_size, s.intermediate_size);
  EXPECT_EQ(c.import.model.num_layers, s.num_layers);
  EXPECT_EQ(c.import.model.attention.kv_heads, s.attention.kv_heads);
  EXPECT_EQ(c.import.model.tied_embeddings, s.tied_embeddings);
  EXPECT_EQ(s.run_type, RunType::training);
  EXPECT_EQ(s.hidden_dim, j["hidden_size"].get<std::int64_t>());
  EXPECT_EQ(s.intermediate_size, j["intermediate_size"].get<std::int64_t>());
  EXPECT_EQ(s.num_layers, j["num_hidden_layers"].get<int>());
  EXPECT_EQ(s.vocab_size, j["vocab_size"].get<std::int64_t>());
  EXPECT_EQ(s.attention.num_heads, j["num_attention_heads"].get<int>());
  const int kv = j.contains("num_key_value_heads") ? j["num_key_value_heads"].get<int>() : s.attention.num_heads;
  EXPECT_EQ(s.attention.kv_heads, kv);
  EXPECT_EQ(s.attention.type, kv == s.attention.num_heads ? AttentionType::mha : AttentionType::gqa);
  EXPECT_TRUE(s.attention.use_flash_attention);
  EXPECT_EQ(s.moe.num_experts, 1);
  EXPECT_EQ(s.seq_len, std::min<std::int64_t>(j["max_position_embeddings"].get<std::int64_t>(), 8192));
  // tie_word_embeddings, or the family's default (Gemma ties) when the file leaves it out.
  EXPECT_EQ(s.tied_embeddings, j.value("tie_word_embeddings", tc.model_type == "llama" && tc.name.rfind("Gemma", 0) == 0));

  const model::LlmDims d = model::llm_dims(s, tc.name);
  const std::int64_t head_dim = j.contains("head_dim") ? j["head_dim"].get<std::int64_t>() : s.hidden_dim / s.attention.num_heads;
  EXPECT_EQ(d.head_dim, head_dim);
  const double params = model::parameter_count(d);
  EXPECT_NEAR(params, tc.card_parameters, 0.015 * tc.card_parameters);
  if (tc.exact) {
    EXPECT_DOUBLE_EQ(params, *tc.exact);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Hf, DenseImport,
    ::testing::Values(
        // 32 x (4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096) + 2 x 32000 x 4096 + 4096.
        DenseCase{"Llama-2-7B", "llama", 6.74e9, 6738415616.0},
        DenseCase{"Llama-3.1-8B", "llama", 8.03e9, 8030261248.0},
        DenseCase{"Llama-3.1-70B", "llama", 70.6e9, 70553706496.0},
        DenseCase{"Mistral-7B-v0.1", "llama", 7.24e9, 7241732096.0},
        // The card's 7.61e9 includes q/k/v biases, which rapidllm does not count:
        // 28 x (3584 x (3584 + 2 x 512) + 3584^2 + 3 x 3584 x 18944 + 2 x 3584) + 2 x 152064 x 3584 + 3584.
        DenseCase{"Qwen2.5-7B", "qwen2", 7.6e9, 7615487488.0},
        // head_dim 128 (= 4096 / 32); q/k norms (2 x 128 per layer) not counted.
        DenseCase{"Qwen3-8B", "llama", 8.19e9, 8190726144.0},
        // head_dim 256, not 3584 / 16 = 224: q 16 x 256, k/v 8 x 256. Tied embeddings.
        // 42 x (3584 x (4096 + 2 x 2048) + 4096 x 3584 + 3 x 3584 x 14336 + 2 x 3584) + 256000 x 3584 + 3584
        // = 9,241,404,928; the checkpoint's 9,241,705,984 adds Gemma 2's two extra norms per layer
        // (2 x 3584 x 42 = 301,056), which the schema does not describe.
        DenseCase{"Gemma-2-9B", "llama", 9.24e9, 9241404928.0},
        // Matches the published 3,821,079,552 exactly.
        DenseCase{"Phi-3-mini", "phi3", 3.82e9, 3821079552.0},
        // GELU MLP, LayerNorm (weights + biases), linear biases left out:
        // 44 x (4 x 6144^2 + 2 x 6144 x 24576 + 4 x 6144) + 2 x 50432 x 6144 + 2 x 6144 = 20,552,134,656;
        // the checkpoint's 20,554,567,680 adds the linear biases, 44 x (4 x 6144 + 24576 + 6144) = 2,433,024.
        DenseCase{"GPT-NeoX-20B", "gpt", 20.55e9, 20552134656.0}),
    [](const ::testing::TestParamInfo<DenseCase>& param_info) {
      std::string n = param_info.param.name;
      for (char& ch : n) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return n;
    });

// Windows map onto model_param.attention.sliding_window / global_every: every layer
// (Mistral, Phi-3), alternating with global layers (Gemma 2), disabled (Qwen2.5), none (Llama).
TEST(HfImport, SlidingWindowsMapOntoTheWindowKeys) {
  const Converted mistral = convert_and_load("Mistral-7B-v0.1");
  EXPECT_TRUE(mistral.import.warnings.empty());
  EXPECT_EQ(mistral.spec.attention.sliding_window, 4096);
  EXPECT_EQ(mistral.spec.attention.global_every, 0);
  const Converted gemma = convert_and_load("Gemma-2-9B");
  EXPECT_EQ(gemma.spec.attention.sliding_window, 4096);
  EXPECT_EQ(gemma.spec.attention.global_every, 2);
  EXPECT_EQ(convert_and_load("Phi-3-mini").spec.attention.sliding_window, 2047);
  const Converted qwen = convert_and_load("Qwen2.5-7B");  // use_sliding_window: false
  EXPECT_EQ(qwen.spec.attention.sliding_window, 0);
  EXPECT_THAT(qwen.import.yaml, HasSubstr("is disabled (use_sliding_window: false)"));
  EXPECT_EQ(convert_and_load("Llama-3.1-8B").spec.attention.sliding_window, 0);
}

TEST(HfImport, MixtralMapsItsExpertsOntoTheMoeKeys) {
  const Converted c = convert_and_load("Mixtral-8x7B");
  EXPECT_EQ(c.spec.model_type, "llama");
  EXPECT_EQ(c.spec.moe.num_experts, 8);
  EXPECT_EQ(c.spec.moe.top_k, 2);
  EXPECT_EQ(c.spec.moe.moe_intermediate_size, 14336);
  EXPECT_EQ(c.spec.moe.n_shared_experts, 0);
  EXPECT_EQ(c.spec.moe.first_k_dense_replace, 0);
  EXPECT_EQ(c.spec.moe.moe_layer_freq, 1);
  EXPECT_EQ(c.spec.attention.kv_heads, 8);
  // The card's 46.7B total and 12.9B active parameters.
  const model::LlmDims d = model::llm_dims(c.spec, "Mixtral");
  EXPECT_NEAR(model::parameter_count(d), 46.7e9, 0.01 * 46.7e9);
  EXPECT_NEAR(model::active_parameter_count(d), 12.9e9, 0.01 * 12.9e9);
}

TEST(HfImport, Qwen3MoeMapsExpertsAndHeadDim) {
  const Converted c = convert_and_load("Qwen3-30B-A3B");
  EXPECT_EQ(c.spec.moe.num_experts, 128);
  EXPECT_EQ(c.spec.moe.top_k, 8);
  EXPECT_EQ(c.spec.moe.moe_intermediate_size, 768);
  EXPECT_EQ(c.spec.moe.moe_layer_freq, 1);
  EXPECT_EQ(c.spec.intermediate_size, 6144);
  EXPECT_EQ(c.spec.hidden_dim, 2048);
  EXPECT_EQ(c.spec.attention.head_dim, 128);  // not 2048 / 32 = 64
  EXPECT_EQ(c.spec.attention.kv_heads, 4);
  EXPECT_EQ(c.spec.num_layers, 48);
}

TEST(HfImport, DeepSeekV3MapsMlaAndMoeAsTheReferenceFileNamesThem) {
  const Converted c = convert_and_load("DeepSeek-V3");
  EXPECT_EQ(c.spec.model_type, "deepseek_v3");
  EXPECT_EQ(c.spec.attention.type, AttentionType::mla);
  EXPECT_EQ(c.spec.attention.num_heads, 128);
  EXPECT_EQ(c.spec.attention.kv_lora_rank, 512);
  EXPECT_EQ(c.spec.attention.q_lora_rank, 1536);
  EXPECT_EQ(c.spec.attention.qk_nope_head_dim, 128);
  EXPECT_EQ(c.spec.attention.qk_rope_head_dim, 64);
  EXPECT_EQ(c.spec.attention.v_head_dim, 128);
  EXPECT_EQ(c.spec.moe.num_experts, 256);
  EXPECT_EQ(c.spec.moe.top_k, 8);
  EXPECT_EQ(c.spec.moe.moe_intermediate_size, 2048);
  EXPECT_EQ(c.spec.moe.n_shared_experts, 1);
  EXPECT_EQ(c.spec.moe.first_k_dense_replace, 3);
  EXPECT_EQ(c.spec.moe.moe_layer_freq, 1);
  EXPECT_EQ(c.spec.intermediate_size, 18432);
  EXPECT_EQ(c.spec.num_layers, 61);
  EXPECT_EQ(c.spec.vocab_size, 129280);
  // The same values as RAPID-LLM's own DeepSeekV3.yaml.
  const LlmModelSpec ref = std::get<LlmModelSpec>(
      load_model(std::string(RAPIDLLM_SOURCE_DIR) + "/tests/data/rapid-llm-reference/model/DeepSeekV3.yaml").workload);
  EXPECT_EQ(c.spec.moe.num_experts, ref.moe.num_experts);
  EXPECT_EQ(c.spec.moe.first_k_dense_replace, ref.moe.first_k_dense_replace);
  EXPECT_EQ(c.spec.attention.kv_lora_rank, ref.attention.kv_lora_rank);
  // The multi-token-prediction module has no key: a warning, never silence.
  ASSERT_EQ(c.import.warnings.size(), 1u);
  EXPECT_THAT(c.import.warnings[0], HasSubstr("num_nextn_predict_layers = 1"));
}

TEST(HfImport, InferenceOptions) {
  HfImportOptions o;
  o.run_type = RunType::inference;
  o.seq_len = 4096;
  o.decode_len = 512;
  o.global_batch_size = 8;
  o.use_flashattention = false;
  const Converted c = convert_and_load("Llama-3.1-8B", o);
  EXPECT_EQ(c.spec.run_type, RunType::inference);
  EXPECT_EQ(c.spec.seq_len, 4096);
  EXPECT_EQ(c.spec.decode_len, 512);
  EXPECT_EQ(c.spec.global_batch_size, 8);
  EXPECT_FALSE(c.spec.attention.use_flash_attention);
  o.decode_len = 4096;
  try {
    (void)import_hf_config_file(hf_path("Llama-3.1-8B"), o);
    FAIL() << "decode_len >= seq_len accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "--decode-len");
  }
}

TEST(HfImport, MultiQueryNestedTextConfigAndDefaults) {
  // kv == 1 is multi-query attention: gqa with one KV head in RAPID-LLM's schema.
  // Gemma 3 multimodal configs keep the decoder under text_config; tie defaults to true.
  const std::string text = R"({"architectures": ["Gemma3ForConditionalGeneration"],
    "text_config": {"hidden_size": 2560, "intermediate_size": 10240, "num_hidden_layers": 34,
      "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256, "vocab_size": 262208,
      "max_position_embeddings": 131072, "sliding_window": 1024,
      "layer_types": ["sliding_attention", "sliding_attention", "full_attention"]}})";
  const HfImportResult r = import_hf_config(text, "gemma3.json");
  EXPECT_THAT(r.yaml, HasSubstr("attention_type: gqa  # multi-query attention"));
  EXPECT_THAT(r.yaml, HasSubstr("kv_heads: 1\n"));
  EXPECT_THAT(r.yaml, HasSubstr("head_dim: 256"));
  EXPECT_THAT(r.yaml, HasSubstr("tied_embeddings: true"));
  // Two windowed layers, then a global one: one global layer in 3.
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_THAT(r.yaml, HasSubstr("sliding_window: 1024"));
  EXPECT_THAT(r.yaml, HasSubstr("global_every: 3"));
  const std::string path = write_temp("gemma3", r.yaml);
  const auto spec = std::get<LlmModelSpec>(load_model(path).workload);
  fs::remove(path);
  EXPECT_EQ(spec.attention.kv_heads, 1);
  EXPECT_EQ(spec.attention.head_dim, 256);
  EXPECT_TRUE(spec.tied_embeddings);

  // A missing field inside text_config is named with its prefix.
  try {
    (void)import_hf_config(R"({"architectures": ["Gemma3ForConditionalGeneration"], "text_config": {}})", "g.json");
    FAIL() << "missing hidden_size accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "text_config.hidden_size");
  }
}

TEST(HfImport, UnknownArchitectureNamesTheFieldAndListsTheSupportedOnes) {
  try {
    (void)import_hf_config(R"({"architectures": ["BertForMaskedLM"], "hidden_size": 768})", "bert.json");
    FAIL() << "BERT accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "architectures");
    EXPECT_THAT(e.problem(), HasSubstr("BertForMaskedLM"));
    for (const auto& arch : supported_hf_architectures()) EXPECT_THAT(e.hint(), HasSubstr(arch));
  }
}

TEST(HfImport, MalformedJsonAndMissingFieldsAreConfigErrors) {
  try {
    (void)import_hf_config("{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"hidden_size\": 4096,,\n}", "bad.json");
    FAIL() << "malformed JSON accepted";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.problem(), HasSubstr("invalid JSON"));
    EXPECT_EQ(e.where().file, "bad.json");
    EXPECT_EQ(e.where().line, 3);
  }
  auto j = nlohmann::json::parse(read(hf_path("Llama-3.1-8B")));
  j.erase("num_hidden_layers");
  try {
    (void)import_hf_config(j.dump(), "no-layers.json");
    FAIL() << "missing num_hidden_layers accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "num_hidden_layers");
    EXPECT_THAT(e.problem(), HasSubstr("missing"));
  }
  j = nlohmann::json::parse(read(hf_path("Llama-3.1-8B")));
  j["num_key_value_heads"] = 5;
  try {
    (void)import_hf_config(j.dump(), "kv5.json");
    FAIL() << "32 heads over 5 KV heads accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "num_key_value_heads");
  }
}

TEST(HfImport, TheModelLoaderPointsAHfConfigAtImportHf) {
  const std::string path = hf_path("Llama-3.1-8B");
  try {
    (void)load_model(path);
    FAIL() << "config.json loaded as a model YAML";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.hint(), HasSubstr("this is a Hugging Face config.json; convert it first: rapidllm import-hf " + path +
                                    " -o model.yaml"));
  }
}

}  // namespace
}  // namespace rapidllm
