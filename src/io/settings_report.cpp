#include "io/settings_report.hpp"

#include <nlohmann/json.hpp>

#include "io/text_table.hpp"

namespace rapidllm::io {

std::string settings_report(const std::vector<SettingInfo>& settings, OutputFormat format) {
  auto file_name = [](ConfigFile f) { return f == ConfigFile::hardware ? "hardware" : "model"; };
  if (format == OutputFormat::json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : settings) {
      out.push_back({{"path", s.path}, {"file", file_name(s.file)}, {"type", s.type}, {"unit", s.unit},
                     {"required", s.required}, {"default", s.required ? nlohmann::json() : nlohmann::json(s.default_value)},
                     {"doc", s.doc}});
    }
    return out.dump(2) + "\n";
  }
  TextTable t({"key", "file", "type", "unit", "default", "description"});
  for (const auto& s : settings) {
    t.add_row({s.path, file_name(s.file), s.type, s.unit, s.required ? "(required)" : s.default_value, s.doc});
  }
  return format == OutputFormat::csv ? t.csv() : t.render();
}

}  // namespace rapidllm::io
