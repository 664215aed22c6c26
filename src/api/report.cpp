// The report.hpp functions that io/ implements as they are.
#include "io/output.hpp"
#include "io/settings_report.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm {

std::string render_settings(const std::vector<SettingInfo>& settings, OutputFormat format) {
  return io::settings_report(settings, format);
}

void write_output(const std::string& text, const std::string& path) { io::write_output(text, path); }

}  // namespace rapidllm
