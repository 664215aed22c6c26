// A CSV file as rows of named fields (RFC 4180: quoted fields may hold commas, quotes
// and newlines).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rapidllm::validate {

class CsvRow {
 public:
  explicit CsvRow(std::map<std::string, std::string> fields) : fields_(std::move(fields)) {}
  // The field's text ("" when the column is missing or the cell empty).
  [[nodiscard]] const std::string& text(const std::string& column) const;
  // The field as a number when it is exactly one ("n/a", "8 (likely)" and "" are not).
  [[nodiscard]] std::optional<double> number(const std::string& column) const;

 private:
  std::map<std::string, std::string> fields_;
};

// Throws Error naming the file when it cannot be read or a row is malformed.
[[nodiscard]] std::vector<CsvRow> read_csv(const std::string& path);

}  // namespace rapidllm::validate
