// Loading configs: RAPID-LLM-schema hardware and model YAML (plus rapidllm's extensions)
// into typed specs, with command-line overrides. Every problem is a ConfigError that
// names the file:line (or the override), the key path, and how to fix it.
#pragma once

#include <string>
#include <vector>

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm {

enum class ConfigFile { hardware, model };

struct LoadedInputs {
  HardwareSpec hardware;
  ModelSpec model;
};

// Loads one file of each kind and applies `overrides` ("a.b.c=value", YAML key paths of
// the file that holds the key; list items as "dimensions[0]"), each routed to the file
// whose schema owns its first key.
[[nodiscard]] LoadedInputs load_inputs(const std::string& hardware_path, const std::string& model_path,
                                       const std::vector<std::string>& overrides = {});

[[nodiscard]] HardwareSpec load_hardware(const std::string& path,
                                         const std::vector<std::string>& overrides = {});
[[nodiscard]] ModelSpec load_model(const std::string& path,
                                   const std::vector<std::string>& overrides = {});

// The same from YAML text held in memory (a fuzzer, an embedding program); `name` stands
// for the file in errors. The file-path loaders read the file and call these.
[[nodiscard]] HardwareSpec load_hardware_text(const std::string& text, const std::string& name,
                                              const std::vector<std::string>& overrides = {});
[[nodiscard]] ModelSpec load_model_text(const std::string& text, const std::string& name,
                                        const std::vector<std::string>& overrides = {});

// One declared setting, as `rapidllm config list` prints it.
struct SettingInfo {
  std::string path;  // YAML key path; "[]" marks list items, "<name>" a key of your choosing
  ConfigFile file;
  std::string type;
  std::string unit;
  std::string default_value;  // empty when the key is required
  bool required = false;
  std::string doc;
};

[[nodiscard]] std::vector<SettingInfo> list_settings();

}  // namespace rapidllm
