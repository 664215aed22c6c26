// What every report starts with: tool version, report schema version, and the hash of the
// resolved configuration (reproducible outputs).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rapidllm::io {

struct ReportHeader {
  std::string config_hash;
  std::string hardware_file;
  std::string model_file;  // empty when there is none (collective, gemm)
};

[[nodiscard]] nlohmann::json header_json(const ReportHeader& header);
// "# rapidllm 0.1.0 · schema 1 · config 3f2a... " for table output.
[[nodiscard]] std::string header_line(const ReportHeader& header);

}  // namespace rapidllm::io
