#include "io/collective_report.hpp"

#include <fmt/format.h>

#include "io/csv_row.hpp"
#include "io/text_table.hpp"

namespace rapidllm::io {

nlohmann::json collective_phase_json(const CollectivePhase& p) {
  return {{"dimension", p.dimension_id}, {"op", to_string(p.op)},          {"algorithm", to_string(p.algorithm)},
          {"protocol", to_string(p.protocol)}, {"ranks", p.ranks}, {"bytes", p.bytes}, {"time_s", p.time_s}};
}

nlohmann::json collective_report_json(const CollectiveEstimate& e, const std::string& backend,
                                      const ReportHeader& header) {
  nlohmann::json out = header_json(header);
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& p : e.phases) phases.push_back(collective_phase_json(p));
  out.update({{"run_type", "collective"},
              {"backend", backend},
              {"op", to_string(e.op)},
              {"bytes", e.bytes},
              {"ranks", e.ranks},
              {"num_gpus", e.ranks},
              {"time_s", e.time_s},
              {"algbw_bytes_per_s", e.algbw_bytes_per_s},
              {"busbw_bytes_per_s", e.busbw_bytes_per_s},
              {"phases", phases}});
  return out;
}

std::string collective_report_table(const CollectiveEstimate& e, const std::string& backend,
                                    const ReportHeader& header) {
  std::string out = header_line(header);
  out += fmt::format("{} of {} on {} ranks ({} backend)\n\n", to_string(e.op), human_bytes(e.bytes), e.ranks, backend);
  TextTable t({"phase", "dimension", "op", "algorithm", "protocol", "ranks", "bytes", "time"});
  int i = 0;
  for (const auto& p : e.phases) {
    t.add_row({std::to_string(++i), p.dimension_id, std::string(to_string(p.op)), std::string(to_string(p.algorithm)),
               std::string(to_string(p.protocol)), std::to_string(p.ranks), human_bytes(p.bytes), human_seconds(p.time_s)});
  }
  out += t.render();
  out += fmt::format("\ntime   {}\nalgbw  {}\nbusbw  {}\n", human_seconds(e.time_s), human_rate(e.algbw_bytes_per_s, "B"),
                     human_rate(e.busbw_bytes_per_s, "B"));
  return out;
}

const std::vector<std::string>& collective_csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c(kHeaderColumns.begin(), kHeaderColumns.end());
    for (const char* name : {"run_type", "backend", "op", "dimension", "bytes", "ranks", "num_gpus", "phases",
                             "time_s", "algbw_bytes_per_s", "busbw_bytes_per_s"}) {
      c.emplace_back(name);
    }
    return c;
  }();
  return columns;
}

std::string collective_report_csv(const CollectiveEstimate& e, const std::string& backend, const std::string& dimension,
                                  const ReportHeader& header) {
  CsvRow row(collective_csv_columns());
  add_header_cells(row, header);
  row.text("run_type", "collective");
  row.text("backend", backend);
  row.text("op", std::string(to_string(e.op)));
  row.text("dimension", dimension);
  row.number("bytes", e.bytes);
  row.integer("ranks", e.ranks);
  row.integer("num_gpus", e.ranks);
  row.integer("phases", static_cast<std::int64_t>(e.phases.size()));
  row.number("time_s", e.time_s);
  row.number("algbw_bytes_per_s", e.algbw_bytes_per_s);
  row.number("busbw_bytes_per_s", e.busbw_bytes_per_s);
  return csv_text(collective_csv_columns(), {row});
}

}  // namespace rapidllm::io
