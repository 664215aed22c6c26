// csv_columns() (report.hpp): every CSV report's columns, from the lists its renderer writes.
#include "api/csv_schemas.hpp"
#include "io/collective_report.hpp"
#include "io/gemm_report.hpp"
#include "io/prediction_csv.hpp"
#include "io/validation_report.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm {

std::string_view to_string(CsvReport report) {
  switch (report) {
    case CsvReport::prediction: return "prediction";
    case CsvReport::gemm: return "gemm";
    case CsvReport::collective: return "collective";
    case CsvReport::validation: return "validation";
    case CsvReport::serve_requests: return "serve_requests";
    case CsvReport::serve_layouts: return "serve_layouts";
    case CsvReport::serve_steady_state: return "serve_steady_state";
    case CsvReport::sweep: return "sweep";
  }
  return "?";
}

std::vector<std::string> csv_columns(CsvReport report) {
  switch (report) {
    case CsvReport::prediction: return io::prediction_csv_columns();
    case CsvReport::gemm: return io::gemm_csv_columns();
    case CsvReport::collective: return io::collective_csv_columns();
    case CsvReport::validation: return io::validation_csv_columns();
    case CsvReport::serve_requests: return detail::serve_requests_csv_columns();
    case CsvReport::serve_layouts: return detail::serve_layouts_csv_columns();
    case CsvReport::serve_steady_state: return detail::serve_steady_state_csv_columns();
    case CsvReport::sweep: {
      std::vector<std::string> out{"index"};
      for (const auto& c : detail::sweep_csv_columns()) out.push_back(c);
      return out;
    }
  }
  return {};
}

}  // namespace rapidllm
