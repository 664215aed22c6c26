// Per-GPU memory of a prediction, by category (bytes), for the stage that peaks.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rapidllm {

struct MemoryBreakdown {
  int stage = 0;                   // pipeline stage these bytes belong to
  // category -> bytes; the names are string literals (no allocation per prediction)
  std::vector<std::pair<std::string_view, double>> bytes;
  double total_bytes = 0.0;
  double capacity_bytes = 0.0;     // the device's DRAM
  [[nodiscard]] bool fits() const { return total_bytes <= capacity_bytes; }
};

}  // namespace rapidllm
