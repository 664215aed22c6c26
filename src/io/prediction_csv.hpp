// The CSV of an LLM prediction (training or inference): one header line and one row, with
// the same fixed columns for every plan, model and run kind (docs/output-schema.md), so
// rows of different runs line up. A column that does not apply to the run kind (MFU of an
// inference, TTFT of a training step) is empty; every breakdown category has its column,
// zero when the run spent no time on it.
#pragma once

#include <string>
#include <vector>

#include "io/report_header.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/llm_prediction.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::io {

// The prediction CSV's columns, in order.
[[nodiscard]] const std::vector<std::string>& prediction_csv_columns();

// What the row needs besides the prediction: the report header and the resolved inputs.
struct PredictionCsvContext {
  const ReportHeader& header;
  const HardwareSpec& hardware;
  const LlmModelSpec& model;
};

// Header line and row.
[[nodiscard]] std::string training_csv(const TrainingPrediction& p, const PredictionCsvContext& context);
[[nodiscard]] std::string inference_csv(const InferencePrediction& p, const PredictionCsvContext& context);

}  // namespace rapidllm::io
