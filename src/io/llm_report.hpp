// Reports of LLM predictions: the CLI contract (README.md) fields, the breakdown, table and JSON
// (the CSV: io/prediction_csv.hpp).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "io/report_header.hpp"
#include "rapidllm/llm_prediction.hpp"

namespace rapidllm::io {

[[nodiscard]] nlohmann::json training_report_json(const TrainingPrediction& p, const ReportHeader& header);
[[nodiscard]] std::string training_report_table(const TrainingPrediction& p, const ReportHeader& header);

[[nodiscard]] nlohmann::json inference_report_json(const InferencePrediction& p, const ReportHeader& header);
[[nodiscard]] std::string inference_report_table(const InferencePrediction& p, const ReportHeader& header);

}  // namespace rapidllm::io
