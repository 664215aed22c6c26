// Reports of a GEMM prediction: JSON (the CLI contract (README.md): time_s, flops,
// achieved_flops_per_s, plus per-level traffic and the chosen tile), a table, and CSV.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/report_header.hpp"
#include "rapidllm/gemm_prediction.hpp"

namespace rapidllm::io {

[[nodiscard]] nlohmann::json gemm_report_json(const GemmPrediction& p, const ReportHeader& header);
[[nodiscard]] std::string gemm_report_table(const GemmPrediction& p, const ReportHeader& header);
// One row per pass (its local shape, tile and time) and a "total" row (the whole GEMM, its
// memory and energy), with gemm_csv_columns() whatever the passes (docs/output-schema.md).
[[nodiscard]] const std::vector<std::string>& gemm_csv_columns();
[[nodiscard]] std::string gemm_report_csv(const GemmPrediction& p, const ReportHeader& header);

}  // namespace rapidllm::io
