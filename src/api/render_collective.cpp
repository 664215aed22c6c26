#include <string>

#include <nlohmann/json.hpp>

#include "api/json_text.hpp"
#include "io/collective_report.hpp"
#include "io/spec_json.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm {

std::string render_collective(const CollectiveEstimate& estimate, const CollectiveRequest& request,
                              const HardwareSpec& hardware, OutputFormat format,
                              const std::vector<std::string>& overrides) {
  const std::string backend(to_string(request.backend));
  // The request as the command line states it ("dim" empty when the ranks span dimensions).
  const nlohmann::json resolved = {{"hardware", io::hardware_json(hardware)}, {"op", to_string(request.op)},
                                   {"bytes", request.bytes},                  {"ranks", request.ranks},
                                   {"dim", request.dimension.value_or("")},    {"backend", backend}};
  const io::ReportHeader header{io::config_hash(resolved), hardware.source, "", overrides, std::nullopt};
  switch (format) {
    case OutputFormat::json: return detail::json_text(io::collective_report_json(estimate, backend, header));
    case OutputFormat::csv:
      return io::collective_report_csv(estimate, backend, request.dimension.value_or(""), header);
    case OutputFormat::table: break;
  }
  return io::collective_report_table(estimate, backend, header);
}

}  // namespace rapidllm
