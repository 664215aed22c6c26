#include "validate/row_stack.hpp"

#include <algorithm>
#include <regex>
#include <string>

#include "validate/csv_table.hpp"

namespace rapidllm::validate {

namespace {

// The latest release year the text names (four digits standing alone, 2015-2035: the years
// of GPU LLM training, so that "2048 GPUs" or "1920 GPUs" is no year); 0 if none.
int latest_year(const std::string& s) {
  static const std::regex number(R"((^|[^0-9])([0-9]{4})(?![0-9]))");
  int latest = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), number); it != std::sregex_iterator(); ++it) {
    const int n = std::stoi((*it)[2].str());
    if (n >= 2015 && n <= 2035) latest = std::max(latest, n);
  }
  return latest;
}

// Megatron-LM before Megatron-Core (v1 to v3, 2019-2022): unfused attention, gradients
// reduced after backward. Megatron-Core, NeMo and Megatron-Bridge are its successors.
bool legacy_megatron_lm(const std::string& s) {
  if (!has_text(s, "megatron-lm") || has_text(s, "core") || has_text(s, "nemo") || has_text(s, "bridge")) return false;
  if (has_text(s, "megatron-lm v")) return true;
  const int year = latest_year(s);
  return year != 0 && year <= 2022;
}

// TensorRT-LLM 0.5 or 0.6 (its first public releases, October-December 2023), or a 2023 run
// that names no version: the generation kernel before the engine's GQA decode optimisations.
bool early_tensorrt_llm(const std::string& s) {
  static const std::regex version(R"((^|[^0-9.])v?0\.([0-9]+))");
  std::smatch m;
  if (std::regex_search(s, m, version)) return std::stoi(m[2].str()) <= 6;
  return latest_year(s) == 2023;
}

}  // namespace

std::string_view row_stack_name(std::string_view column) {
  const std::string s = lowercase(column);
  // Most specific first: "NeMo inference (TensorRT-LLM backend)" is TensorRT-LLM, the 2020
  // Megatron-LM tables are not Megatron-Core, Megatron-DeepSpeed is DeepSpeed's engine.
  if (has_text(s, "tensorrt-llm") || has_text(s, "nvidia nim")) return early_tensorrt_llm(s) ? "tensorrt-llm-0.5" : "tensorrt-llm";
  if (has_text(s, "lmdeploy")) return "lmdeploy";
  if (has_text(s, "deepspeed") && has_text(s, "megatron")) return "megatron-deepspeed";
  if (legacy_megatron_lm(s)) return "megatron-lm-2020";
  if (has_text(s, "nemo 24") || has_text(s, "megatron-core r0.")) return "nemo-24";
  if (has_text(s, "composer") || has_text(s, "llm-foundry")) return "composer-fsdp";
  if (has_text(s, "torchtitan")) return "torchtitan";
  if (has_text(s, "maxtext")) return "maxtext";
  if (has_text(s, "paxml")) return "paxml";
  if (has_text(s, "nanotron pre-pp-fix")) return "nanotron-pre-pp-fix";
  if (has_text(s, "nanotron")) return "nanotron";
  if (has_text(s, "nemo") || has_text(s, "megatron")) return "megatron-core";
  return "auto";
}

bool predates_flash_attention(std::string_view column) {
  const std::string s = lowercase(column);
  const int year = latest_year(s);
  return legacy_megatron_lm(s) || (year != 0 && year <= 2022);
}

bool predates_megatron_micro_batches(std::string_view column) {
  const std::string s = lowercase(column);
  const int year = latest_year(s);
  return legacy_megatron_lm(s) && year != 0 && year <= 2020;
}

bool runs_unfused_megatron_cross_entropy(std::string_view column) {
  const std::string s = lowercase(column);
  if (row_stack_name(column) != "nemo-24") return false;
  if (!has_text(s, "nemo")) return true;
  // NeMo's releases are year.month: 24.07 is the first on Megatron-Core r0.8.
  static const std::regex release(R"(nemo ([0-9]{2})\.([0-9]{2}))");
  std::smatch m;
  return std::regex_search(s, m, release) && std::stoi(m[1].str()) * 100 + std::stoi(m[2].str()) < 2407;
}

int zero_stage_of(std::string_view column) {
  const std::string s = lowercase(column);
  if (has_text(s, "distributed optimizer")) return 1;
  if (has_text(s, "shard_grad_op")) return 2;
  if (has_text(s, "fsdp")) return 3;
  static const std::regex zero(R"(zero[- ]?(stage[- ]?)?([0-3]))");
  std::smatch m;
  return std::regex_search(s, m, zero) ? std::stoi(m[2].str()) : 0;
}

}  // namespace rapidllm::validate
