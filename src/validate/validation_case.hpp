// One ground-truth comparison and the per-source summary of many.
#pragma once

#include <optional>
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
  // A yes/no verdict (oom_verdict: 1 = out of memory, 0 = fits) rather than a quantity:
  // its error is 0 when right, +100 % for a false alarm and -100 % for a miss, so a group's
  // mean |error| is the share of wrong verdicts and its bias false alarms minus misses.
  bool verdict = false;

  // Signed relative error of the prediction, in percent (a verdict's: see above).
  [[nodiscard]] double error_pct() const {
    return verdict ? 100.0 * (predicted - measured) : 100.0 * (predicted - measured) / measured;
  }
};

// Counts of a verdict group's cases (1 = the positive verdict, out of memory).
struct Confusion {
  int true_positive = 0;   // predicted and measured 1
  int false_positive = 0;  // predicted 1, measured 0
  int false_negative = 0;  // predicted 0, measured 1
  int true_negative = 0;
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
  // Spearman rank correlation of predicted and measured over the compared cases: does the
  // model order the cases as the measurements do? Absent below 3 cases and for verdicts.
  std::optional<double> spearman;
  std::optional<Confusion> confusion;  // verdict groups only
};

// Spearman's rank correlation (average ranks for ties) of two equally long series;
// nullopt when shorter than 3 or when either is constant.
[[nodiscard]] std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b);

// Per (source, metric): statistics over the compared cases.
[[nodiscard]] std::vector<SourceSummary> summarize(const std::vector<CaseResult>& cases);

// A short, stable name for a `source` column ("NVIDIA/dgxc-benchmarking ..." -> "dgxc").
[[nodiscard]] std::string source_name(const std::string& source);

}  // namespace rapidllm::validate
