// Per-GPU memory of a prediction, by category (bytes), for the stage that peaks.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace rapidllm {

struct MemoryBreakdown {
  int stage = 0;                   // pipeline stage these bytes belong to
  std::vector<std::pair<std::string, double>> bytes;  // category -> bytes
  double total_bytes = 0.0;
  double capacity_bytes = 0.0;     // the device's DRAM
  [[nodiscard]] bool fits() const { return total_bytes <= capacity_bytes; }
};

}  // namespace rapidllm
