// The ground-truth files as comparison cases. Each row becomes a scenario built from a
// shipped device config and the row's own model and parallelism (never a per-row
// constant), is predicted through the public facade (predict.hpp), and is compared on the
// metric the row publishes; a row that cannot be modelled yet is kept as skipped with the
// reason, one that cannot run as failed. One PredictionCache serves every row.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidllm/predict.hpp"
#include "validate/validation_case.hpp"

namespace rapidllm::validate {

struct CaseInputs {
  std::string data_dir;    // the CSV files
  std::string config_dir;  // configs/ (hardware/*.yaml)
  std::vector<std::string> overrides;  // `--set key=value`, applied to every device config
  // Only sources whose short name contains this (empty: all): other rows are not predicted.
  std::string source;
  [[nodiscard]] bool wanted(std::string_view row_source) const {
    return source.empty() || row_source.find(source) != std::string_view::npos;
  }
};

[[nodiscard]] std::vector<CaseResult> training_cases(const CaseInputs& in, PredictionCache& cache);
[[nodiscard]] std::vector<CaseResult> inference_cases(const CaseInputs& in, PredictionCache& cache);
[[nodiscard]] std::vector<CaseResult> collective_cases(const CaseInputs& in);
[[nodiscard]] std::vector<CaseResult> memory_cases(const CaseInputs& in, PredictionCache& cache);
// nanotron_h100.csv (none when the data folder lacks it): nanotron_cases.cpp.
[[nodiscard]] std::vector<CaseResult> nanotron_cases(const CaseInputs& in, PredictionCache& cache);

// Every file's cases (only in.source's, when it names one).
[[nodiscard]] std::vector<CaseResult> all_cases(const CaseInputs& in);

// The scenario one training row is predicted on (rapidllm validate --explain), named after
// the row and its case description: a training.csv row ("T0026") or a nanotron_h100.csv
// run ("NT0181"). nullopt when the id is neither; Error naming the reason when the row
// cannot be modelled.
[[nodiscard]] std::optional<Scenario> training_row_scenario(const CaseInputs& in, const std::string& row_id);
[[nodiscard]] std::optional<Scenario> nanotron_row_scenario(const CaseInputs& in, const std::string& row_id);

}  // namespace rapidllm::validate
