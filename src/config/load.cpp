// Public entry points of the config module.
#include <fmt/format.h>

#include "config/document.hpp"
#include "config/hardware_loader.hpp"
#include "config/model_loader.hpp"
#include "config/overrides.hpp"
#include "config/schema_check.hpp"
#include "config/settings_registry.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/software_stack.hpp"

namespace rapidllm {

namespace {

config::Document prepare(config::Document doc, const std::vector<std::string>& overrides) {
  const ConfigFile kind = doc.kind;
  config::check_schema(doc);  // before overrides, so file errors point at file lines
  for (const auto& o : overrides) {
    if (config::override_target(o) == kind) config::apply_override(doc, o);
  }
  return doc;
}

void reject_foreign_overrides(const std::vector<std::string>& overrides, ConfigFile kind) {
  for (const auto& o : overrides) {
    if (config::override_target(o) != kind) {
      throw ConfigError(SourceLocation{{}, 0, 0, o}, o.substr(0, o.find('=')),
                        fmt::format("this key belongs in a {} file, and only a {} file was given",
                                    config::file_kind_name(config::override_target(o)), config::file_kind_name(kind)),
                        "");
    }
  }
}

}  // namespace

HardwareSpec load_hardware(const std::string& path, const std::vector<std::string>& overrides) {
  reject_foreign_overrides(overrides, ConfigFile::hardware);
  return config::read_hardware(prepare(config::Document::load(path, ConfigFile::hardware), overrides));
}

ModelSpec load_model(const std::string& path, const std::vector<std::string>& overrides) {
  reject_foreign_overrides(overrides, ConfigFile::model);
  return config::read_model(prepare(config::Document::load(path, ConfigFile::model), overrides));
}

HardwareSpec load_hardware_text(const std::string& text, const std::string& name,
                                const std::vector<std::string>& overrides) {
  reject_foreign_overrides(overrides, ConfigFile::hardware);
  return config::read_hardware(prepare(config::Document::parse(text, name, ConfigFile::hardware), overrides));
}

ModelSpec load_model_text(const std::string& text, const std::string& name, const std::vector<std::string>& overrides) {
  reject_foreign_overrides(overrides, ConfigFile::model);
  return config::read_model(prepare(config::Document::parse(text, name, ConfigFile::model), overrides));
}

LoadedInputs load_inputs(const std::string& hardware_path, const std::string& model_path,
                         const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) (void)config::override_target(o);  // report a bad --set first
  LoadedInputs out;
  out.hardware = config::read_hardware(prepare(config::Document::load(hardware_path, ConfigFile::hardware), overrides));
  out.model = config::read_model(prepare(config::Document::load(model_path, ConfigFile::model), overrides));
  if (const auto* llm = std::get_if<LlmModelSpec>(&out.model.workload)) {
    apply_software_stack(out.hardware.sw, llm->run_type);
  }
  return out;
}

std::vector<SettingInfo> list_settings() {
  std::vector<SettingInfo> out;
  for (const auto& s : config::all_settings()) {
    SettingInfo info;
    info.path = std::string(s.path);
    info.file = s.file;
    info.type = std::string(config::kind_name(s.kind));
    if (!s.choices.empty()) info.type += fmt::format(" ({})", fmt::join(s.choices, "|"));
    info.unit = std::string(s.unit);
    info.required = !s.default_value.has_value();
    info.default_value = s.default_value ? std::string(*s.default_value) : "";
    info.doc = std::string(s.doc);
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace rapidllm
