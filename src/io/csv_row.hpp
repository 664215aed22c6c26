// One row of a CSV report with a fixed list of columns, filled by column name: what a
// renderer does not set stays empty (a quantity the run kind does not have), and setting a
// name the list lacks is a programmer error (std::logic_error), so the columns a report
// writes are always exactly those its schema documents.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rapidllm::io {

class CsvRow {
 public:
  explicit CsvRow(const std::vector<std::string>& columns) : columns_(&columns), cells_(columns.size()) {}

  void text(std::string_view column, std::string value);
  void number(std::string_view column, double v);  // shortest text that reads back the same
  void integer(std::string_view column, std::int64_t v);
  void flag(std::string_view column, bool v);  // true | false
  void json(std::string_view column, const nlohmann::json& v);  // a string raw; null leaves it empty

  [[nodiscard]] const std::vector<std::string>& cells() const { return cells_; }

 private:
  const std::vector<std::string>* columns_;
  std::vector<std::string> cells_;
};

// The header line and the rows, quoted where a cell holds a comma, quote or newline.
[[nodiscard]] std::string csv_text(const std::vector<std::string>& columns, const std::vector<CsvRow>& rows);

}  // namespace rapidllm::io
