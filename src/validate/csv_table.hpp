// A CSV file as rows of named fields (RFC 4180: quoted fields may hold commas, quotes
// and newlines).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
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

// The rows' free text (framework, notes, precision) is matched whatever its case: the
// text in lower case, and whether it contains `needle` (written in lower case).
[[nodiscard]] std::string lowercase(std::string_view text);
[[nodiscard]] bool has_text(std::string_view text, std::string_view needle);

// Throws Error naming the file when it cannot be read or a row is malformed.
[[nodiscard]] std::vector<CsvRow> read_csv(const std::string& path);

}  // namespace rapidllm::validate
