// Converting a Hugging Face `config.json` (architecture facts only) into a rapidllm model
// YAML in RAPID-LLM's model_param schema. Facts the schema cannot express (sliding-window
// layers, multi-token-prediction modules, ...) are never dropped silently: they are written
// as comments in the YAML and returned as warnings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rapidllm/model_spec.hpp"

namespace rapidllm {

struct HfImportOptions {
  RunType run_type = RunType::training;
  // Sequences per global batch; default 128 for training, 1 for inference.
  std::optional<std::int64_t> global_batch_size;
  // Tokens per sequence (inference: prompt + decode_len); default
  // min(max_position_embeddings, 8192).
  std::optional<std::int64_t> seq_len;
  // Tokens generated per sequence (inference only); default 1024.
  std::optional<std::int64_t> decode_len;
  bool use_flashattention = true;
};

struct HfImportResult {
  std::string yaml;                   // the model file, starting with a comment naming the source
  std::string architecture;           // e.g. "LlamaForCausalLM"
  std::vector<std::string> warnings;  // facts the model cannot honour (also in the YAML's comments)
  LlmModelSpec model;                 // `yaml` as load_model reads it (parameter_counts(model) sizes it)
};

// The architectures import_hf_config accepts (HF class names).
[[nodiscard]] std::vector<std::string> supported_hf_architectures();

// Converts the text of a config.json. `source_name` names it in the YAML's first comment and
// in errors. Throws ConfigError for malformed JSON (with line:column), a missing or invalid
// required field (naming it), an unsupported architecture (naming `architectures` and
// listing the supported ones) or inconsistent options. The YAML is loaded before it is
// returned: an import never yields a file that load_model refuses.
[[nodiscard]] HfImportResult import_hf_config(const std::string& json_text, const std::string& source_name,
                                              const HfImportOptions& options = {});

// Reads the file, then import_hf_config. ConfigError when it cannot be read.
[[nodiscard]] HfImportResult import_hf_config_file(const std::string& path, const HfImportOptions& options = {});

// The YAML alone; the warnings go to `warnings` when given.
[[nodiscard]] std::string hf_config_to_model_yaml(const std::string& json_text, const std::string& source_name,
                                                  const HfImportOptions& options = {},
                                                  std::vector<std::string>* warnings = nullptr);

}  // namespace rapidllm
