#include "io/validation_report.hpp"

#include <map>

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

// Verdict groups (e.g. out of memory or not): accuracy and the four counts, per group and
// over all groups of a metric; spearman of the other groups with 3 or more cases. Empty
// when there is neither.
std::string verdict_table(const std::vector<CaseResult>& cases) {
  TextTable v({"kind", "source", "metric", "n", "right", "OOM/OOM", "fits/fits", "false OOM", "missed OOM"});
  std::map<std::string, validate::Confusion> totals;
  TextTable r({"kind", "source", "metric", "n", "spearman"});
  bool any_verdict = false, any_rank = false;
  const auto add = [&v](const std::string& kind, const std::string& source, const std::string& metric,
                        const validate::Confusion& k) {
    const int n = k.true_positive + k.false_positive + k.false_negative + k.true_negative;
    v.add_row({kind, source, metric, std::to_string(n),
               fmt::format("{:.1f}%", n ? 100.0 * (k.true_positive + k.true_negative) / n : 0.0),
               std::to_string(k.true_positive), std::to_string(k.true_negative), std::to_string(k.false_positive),
               std::to_string(k.false_negative)});
  };
  for (const auto& x : validate::summarize(cases)) {
    if (x.spearman) {
      any_rank = true;
      r.add_row({x.kind, x.source, x.metric, std::to_string(x.compared), fmt::format("{:+.3f}", *x.spearman)});
    }
    if (!x.confusion) continue;
    any_verdict = true;
    add(x.kind, x.source, x.metric, *x.confusion);
    validate::Confusion& t = totals[x.kind + "\t" + x.metric];
    t.true_positive += x.confusion->true_positive;
    t.false_positive += x.confusion->false_positive;
    t.false_negative += x.confusion->false_negative;
    t.true_negative += x.confusion->true_negative;
  }
  for (const auto& [key, k] : totals) {
    const auto tab = key.find('\t');
    add(key.substr(0, tab), "(all)", key.substr(tab + 1), k);
  }
  std::string out;
  if (any_rank) out += "\nrank correlation of predicted and measured\n" + r.render();
  if (any_verdict) out += "\nverdicts\n" + v.render();
  return out;
}

}  // namespace

nlohmann::json validation_report_json(const std::vector<CaseResult>& cases) {
  nlohmann::json summary = nlohmann::json::array();
  for (const auto& s : validate::summarize(cases)) {
    summary.push_back({{"kind", s.kind}, {"source", s.source}, {"metric", s.metric}, {"compared", s.compared},
                       {"skipped", s.skipped}, {"failed", s.failed}, {"mean_abs_error_pct", s.mean_abs_error_pct},
                       {"median_abs_error_pct", s.median_abs_error_pct}, {"max_abs_error_pct", s.max_abs_error_pct},
                       {"bias_pct", s.bias_pct}});
    if (s.spearman) summary.back()["spearman"] = *s.spearman;
    if (s.confusion) {
      const validate::Confusion& k = *s.confusion;
      summary.back()["accuracy_pct"] = 100.0 - s.mean_abs_error_pct;
      summary.back()["confusion"] = {{"true_positive", k.true_positive}, {"false_positive", k.false_positive},
                                     {"false_negative", k.false_negative}, {"true_negative", k.true_negative}};
    }
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
  nlohmann::json out = header_json(ReportHeader{"", "", "", std::nullopt, std::nullopt});
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
  return out + s.render() + verdict_table(cases);
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
