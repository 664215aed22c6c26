#include "io/csv_row.hpp"

#include <algorithm>
#include <stdexcept>

#include "io/text_table.hpp"

namespace rapidllm::io {

void CsvRow::text(std::string_view column, std::string value) {
  // A linear search: reports have a few hundred columns and one to a few rows.
  const auto it = std::find(columns_->begin(), columns_->end(), column);
  if (it == columns_->end()) throw std::logic_error("this CSV report has no column " + std::string(column));
  cells_[static_cast<std::size_t>(it - columns_->begin())] = std::move(value);
}

void CsvRow::number(std::string_view column, double v) { text(column, csv_number(v)); }

void CsvRow::integer(std::string_view column, std::int64_t v) { text(column, std::to_string(v)); }

void CsvRow::flag(std::string_view column, bool v) { text(column, v ? "true" : "false"); }

void CsvRow::json(std::string_view column, const nlohmann::json& v) {
  if (v.is_null()) return;
  text(column, v.is_string() ? v.get<std::string>() : v.dump());
}

std::string csv_text(const std::vector<std::string>& columns, const std::vector<CsvRow>& rows) {
  TextTable t(columns);
  for (const CsvRow& r : rows) t.add_row(r.cells());
  return t.csv();
}

}  // namespace rapidllm::io
