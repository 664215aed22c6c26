// One ground-truth comparison and the per-source summary of many.
#pragma once

#include <string>
#include <vector>

namespace rapidllm::validate {

enum class CaseStatus { compared, skipped, failed };

struct CaseResult {
  std::string row_id;
  std::string source;   // short source name (see source_name())
  std::string kind;     // training, training_moe (mixture-of-experts rows), inference, collective, memory
  std::string metric;   // what is compared, with its unit: step_time_s, tpot_s, busbw_bytes_per_s, ...
  std::string description;  // model and configuration in a few words
  CaseStatus status = CaseStatus::skipped;
  std::string reason;   // why skipped or failed
  double measured = 0.0;
  double predicted = 0.0;

  // Signed relative error of the prediction, in percent.
  [[nodiscard]] double error_pct() const { return 100.0 * (predicted - measured) / measured; }
};

struct SourceSummary {
  std::string source;
  std::string kind;
  std::string metric;
  int compared = 0;
  int skipped = 0;
  int failed = 0;
  double mean_abs_error_pct = 0.0;
  double median_abs_error_pct = 0.0;
  double max_abs_error_pct = 0.0;
  double bias_pct = 0.0;  // mean signed error
};

// Per (source, metric): statistics over the compared cases.
[[nodiscard]] std::vector<SourceSummary> summarize(const std::vector<CaseResult>& cases);

// A short, stable name for a `source` column ("NVIDIA/dgxc-benchmarking ..." -> "dgxc").
[[nodiscard]] std::string source_name(const std::string& source);

}  // namespace rapidllm::validate
