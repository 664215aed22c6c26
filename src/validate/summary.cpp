#include <algorithm>
#include <cmath>
#include <map>

#include "validate/validation_case.hpp"

namespace rapidllm::validate {

std::string source_name(const std::string& s) {
  static const std::pair<const char*, const char*> names[] = {
      {"dgxc-benchmarking recipe", "dgxc"},
      {"dgxc-benchmarking nccl", "dgxc-nccl"},
      {"Megatron-Bridge", "megatron-bridge"},
      {"performance_long_sequence", "nemo-long-sequence"},
      {"NeMo docs/source/performance/performance_summary", "nemo"},
      {"Megatron-LM GitHub README \"Performance", "megatron-core"},
      {"Megatron-LM GitHub README (2020", "megatron-2020"},
      {"llm-foundry", "llm-foundry"},
      {"torchtitan", "torchtitan"},
      {"TensorRT-LLM", "trtllm"},
      {"lmdeploy", "lmdeploy-a100"},
      {"NeMo Framework docs \"Llama 2", "nemo-llama2-latency"},
      {"NIM", "nim-a100"},
      {"Koyeb", "koyeb-a100"},
      {"Korthikanti", "korthikanti"},
      {"Reducing Activation Recomputation", "korthikanti"},
  };
  for (const auto& [needle, name] : names) {
    if (s.find(needle) != std::string::npos) return name;
  }
  const auto cut = s.find_first_of(" ,(");
  return s.substr(0, cut == std::string::npos ? std::min<std::size_t>(s.size(), 24) : std::min<std::size_t>(cut, 24));
}

std::vector<SourceSummary> summarize(const std::vector<CaseResult>& cases) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const CaseResult*>> groups;
  for (const auto& c : cases) groups[{c.kind, c.source, c.metric}].push_back(&c);
  std::vector<SourceSummary> out;
  for (const auto& [key, members] : groups) {
    SourceSummary s;
    std::tie(s.kind, s.source, s.metric) = key;
    std::vector<double> abs_errors;
    double signed_sum = 0.0;
    for (const CaseResult* c : members) {
      if (c->status == CaseStatus::skipped) ++s.skipped;
      if (c->status == CaseStatus::failed) ++s.failed;
      if (c->status != CaseStatus::compared) continue;
      ++s.compared;
      abs_errors.push_back(std::fabs(c->error_pct()));
      signed_sum += c->error_pct();
    }
    if (!abs_errors.empty()) {
      std::sort(abs_errors.begin(), abs_errors.end());
      double sum = 0.0;
      for (double e : abs_errors) sum += e;
      const std::size_t n = abs_errors.size();
      s.mean_abs_error_pct = sum / static_cast<double>(n);
      s.median_abs_error_pct = n % 2 ? abs_errors[n / 2] : (abs_errors[n / 2 - 1] + abs_errors[n / 2]) / 2.0;
      s.max_abs_error_pct = abs_errors.back();
      s.bias_pct = signed_sum / static_cast<double>(n);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace rapidllm::validate
