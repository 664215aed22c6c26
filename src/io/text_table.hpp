// Plain-text tables with aligned columns for terminal output, and CSV rows.
#pragma once

#include <string>
#include <vector>

namespace rapidllm::io {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  [[nodiscard]] std::string render() const;  // columns padded; numbers right-aligned
  [[nodiscard]] std::string csv() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Human-readable quantities for tables (JSON and CSV keep raw SI numbers).
[[nodiscard]] std::string human_seconds(double s);
[[nodiscard]] std::string human_bytes(double bytes);
[[nodiscard]] std::string human_rate(double per_s, const std::string& unit);  // "812.3 TFLOP/s"
[[nodiscard]] std::string csv_number(double v);  // round-trippable

}  // namespace rapidllm::io
