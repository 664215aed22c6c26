#include "io/report_header.hpp"

#include <fmt/format.h>

#include "rapidllm/version.hpp"

namespace rapidllm::io {

nlohmann::json header_json(const ReportHeader& header) {
  nlohmann::json out = {{"schema_version", kSchemaVersion},
                        {"version", kVersion},
                        {"config_hash", header.config_hash},
                        {"hardware_file", header.hardware_file}};
  if (!header.model_file.empty()) out["model_file"] = header.model_file;
  return out;
}

std::string header_line(const ReportHeader& header) {
  return fmt::format("rapidllm {} (schema {}), config {}\n", kVersion, kSchemaVersion, header.config_hash);
}

}  // namespace rapidllm::io
