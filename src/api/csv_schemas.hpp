// The column lists of the CSV reports rendered in api/ (serve, sweep): each renderer writes
// its header from its list, and csv_columns() (report.hpp) hands the same lists out.
#pragma once

#include <string>
#include <vector>

namespace rapidllm::detail {

[[nodiscard]] const std::vector<std::string>& serve_requests_csv_columns();
[[nodiscard]] const std::vector<std::string>& serve_layouts_csv_columns();
[[nodiscard]] const std::vector<std::string>& serve_steady_state_csv_columns();
// After the index and the varied keys.
[[nodiscard]] const std::vector<std::string>& sweep_csv_columns();

}  // namespace rapidllm::detail
