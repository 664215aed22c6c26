// Reports of a GEMM prediction: JSON (the CLI contract (README.md): time_s, flops,
// achieved_flops_per_s, plus per-level traffic and the chosen tile), a table, and CSV.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "io/report_header.hpp"
#include "rapidllm/gemm_prediction.hpp"

namespace rapidllm::io {

[[nodiscard]] nlohmann::json gemm_report_json(const GemmPrediction& p, const ReportHeader& header);
[[nodiscard]] std::string gemm_report_table(const GemmPrediction& p, const ReportHeader& header);
[[nodiscard]] std::string gemm_report_csv(const GemmPrediction& p);

}  // namespace rapidllm::io
