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

namespace {
// 1-based ranks, ties sharing their average rank.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&v](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double average = (static_cast<double>(i + j) / 2.0) + 1.0;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = average;
    i = j + 1;
  }
  return r;
}
}  // namespace

std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 3) return std::nullopt;
  const std::vector<double> ra = ranks(a);
  const std::vector<double> rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double mean = (n + 1.0) / 2.0;
  double cov = 0.0, va = 0.0, vb = 0.0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (va <= 0.0 || vb <= 0.0) return std::nullopt;
  return cov / std::sqrt(va * vb);
}

std::vector<SourceSummary> summarize(const std::vector<CaseResult>& cases) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const CaseResult*>> groups;
  for (const auto& c : cases) groups[{c.kind, c.source, c.metric}].push_back(&c);
  std::vector<SourceSummary> out;
  for (const auto& [key, members] : groups) {
    SourceSummary s;
    std::tie(s.kind, s.source, s.metric) = key;
    std::vector<double> abs_errors, predicted, measured;
    double signed_sum = 0.0;
    bool verdicts = false;
    Confusion confusion;
    for (const CaseResult* c : members) {
      if (c->status == CaseStatus::skipped) ++s.skipped;
      if (c->status == CaseStatus::failed) ++s.failed;
      if (c->status != CaseStatus::compared) continue;
      ++s.compared;
      predicted.push_back(c->predicted);
      measured.push_back(c->measured);
      if (c->verdict) {
        verdicts = true;
        const bool p = c->predicted > 0.5, m = c->measured > 0.5;
        ++(p ? (m ? confusion.true_positive : confusion.false_positive)
             : (m ? confusion.false_negative : confusion.true_negative));
      }
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
    if (verdicts) {
      s.confusion = confusion;
    } else {
      s.spearman = spearman(predicted, measured);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace rapidllm::validate
