#include "rapidllm/validation.hpp"

#include <vector>

#include "api/json_text.hpp"
#include "io/validation_report.hpp"
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
