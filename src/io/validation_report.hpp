// `rapidllm validate` output: the per-source summary and every case.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "validate/validation_case.hpp"

namespace rapidllm::io {

[[nodiscard]] nlohmann::json validation_report_json(const std::vector<validate::CaseResult>& cases);
[[nodiscard]] std::string validation_report_table(const std::vector<validate::CaseResult>& cases, bool with_cases);
// One row per compared case, with validation_csv_columns() (docs/output-schema.md).
[[nodiscard]] const std::vector<std::string>& validation_csv_columns();
[[nodiscard]] std::string validation_report_csv(const std::vector<validate::CaseResult>& cases);

}  // namespace rapidllm::io
