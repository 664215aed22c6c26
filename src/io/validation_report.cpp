#include "io/validation_report.hpp"

#include <fmt/format.h>

#include "io/report_header.hpp"
#include "io/text_table.hpp"

namespace rapidllm::io {

namespace {

using validate::CaseResult;
using validate::CaseStatus;

std::string status_name(CaseStatus s) {
  return s == CaseStatus::compared ? "compared" : s == CaseStatus::skipped ? "skipped" : "failed";
}

}  // namespace

nlohmann::json validation_report_json(const std::vector<CaseResult>& cases) {
  nlohmann::json summary = nlohmann::json::array();
  for (const auto& s : validate::summarize(cases)) {
    summary.push_back({{"kind", s.kind}, {"source", s.source}, {"metric", s.metric}, {"compared", s.compared},
                       {"skipped", s.skipped}, {"failed", s.failed}, {"mean_abs_error_pct", s.mean_abs_error_pct},
                       {"median_abs_error_pct", s.median_abs_error_pct}, {"max_abs_error_pct", s.max_abs_error_pct},
                       {"bias_pct", s.bias_pct}});
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json row = {{"row_id", c.row_id}, {"source", c.source},   {"kind", c.kind},
                          {"metric", c.metric}, {"status", status_name(c.status)}, {"description", c.description},
                          {"measured", c.measured}};
    if (c.status == CaseStatus::compared) {
      row["predicted"] = c.predicted;
      row["error_pct"] = c.error_pct();
    } else {
      row["reason"] = c.reason;
    }
    rows.push_back(row);
  }
  nlohmann::json out = header_json(ReportHeader{"", "", "", std::nullopt});
  out.erase("config_hash");
  out.erase("hardware_file");
  out["run_type"] = "validate";
  out["summary"] = summary;
  out["cases"] = rows;
  return out;
}

std::string validation_report_table(const std::vector<CaseResult>& cases, bool with_cases) {
  std::string out;
  if (with_cases) {
    TextTable t({"row", "source", "metric", "case", "measured", "predicted", "error"});
    for (const auto& c : cases) {
      if (c.status != CaseStatus::compared) continue;
      t.add_row({c.row_id, c.source, c.metric, c.description, fmt::format("{:.4g}", c.measured),
                 fmt::format("{:.4g}", c.predicted), fmt::format("{:+.1f}%", c.error_pct())});
    }
    out += t.render() + "\n";
  }
  TextTable s({"kind", "source", "metric", "n", "skipped", "failed", "mean |err|", "median", "max", "bias"});
  for (const auto& x : validate::summarize(cases)) {
    const bool any = x.compared > 0;
    s.add_row({x.kind, x.source, x.metric, std::to_string(x.compared), std::to_string(x.skipped),
               std::to_string(x.failed), any ? fmt::format("{:.1f}%", x.mean_abs_error_pct) : "-",
               any ? fmt::format("{:.1f}%", x.median_abs_error_pct) : "-",
               any ? fmt::format("{:.1f}%", x.max_abs_error_pct) : "-", any ? fmt::format("{:+.1f}%", x.bias_pct) : "-"});
  }
  return out + s.render();
}

const std::vector<std::string>& validation_csv_columns() {
  static const std::vector<std::string> columns{"row_id", "source",    "kind",      "metric", "status",
                                                "measured", "predicted", "error_pct", "reason"};
  return columns;
}

std::string validation_report_csv(const std::vector<CaseResult>& cases) {
  TextTable t(validation_csv_columns());
  for (const auto& c : cases) {
    const bool ok = c.status == CaseStatus::compared;
    t.add_row({c.row_id, c.source, c.kind, c.metric, status_name(c.status), csv_number(c.measured),
               ok ? csv_number(c.predicted) : "", ok ? csv_number(c.error_pct()) : "", c.reason});
  }
  return t.csv();
}

}  // namespace rapidllm::io
