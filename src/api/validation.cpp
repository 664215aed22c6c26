#include "rapidllm/validation.hpp"

#include <vector>

#include <fmt/format.h>

#include "api/json_text.hpp"
#include "io/validation_report.hpp"
#include "rapidllm/error.hpp"
#include "validate/cases.hpp"

namespace rapidllm {

namespace detail {
struct ValidationCases {
  std::vector<validate::CaseResult> cases;
};
}  // namespace detail

ValidationRun run_validation(const std::string& data_dir, const std::string& configs_dir,
                             const std::string& source_filter, const std::vector<std::string>& overrides) {
  const validate::CaseInputs in{data_dir, configs_dir, overrides, source_filter};
  return ValidationRun(std::make_shared<const detail::ValidationCases>(detail::ValidationCases{validate::all_cases(in)}));
}

Scenario validation_row_scenario(const std::string& data_dir, const std::string& configs_dir,
                                 const std::string& row_id, const std::vector<std::string>& overrides) {
  const validate::CaseInputs in{data_dir, configs_dir, overrides, ""};
  if (auto s = validate::training_row_scenario(in, row_id)) return std::move(*s);
  if (auto s = validate::nanotron_row_scenario(in, row_id)) return std::move(*s);
  throw ConfigError(SourceLocation{data_dir + "/training.csv", 0, 0, ""}, "--explain",
                    fmt::format("no training row '{}' here or in nanotron_h100.csv (inference, collective and memory "
                                "rows are compared without a training step to explain)",
                                row_id),
                    "give the id of a training.csv row (T...) or a nanotron_h100.csv run (NT...), as "
                    "`rapidllm validate --cases` lists them");
}

std::string render_validation(const ValidationRun& run, OutputFormat format, bool list_cases) {
  const auto& cases = run.cases_->cases;
  switch (format) {
    case OutputFormat::json: return detail::json_text(io::validation_report_json(cases));
    case OutputFormat::csv: return io::validation_report_csv(cases);
    case OutputFormat::table: break;
  }
  return io::validation_report_table(cases, list_cases);
}

}  // namespace rapidllm
