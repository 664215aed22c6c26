// The one declared list of configuration settings. It drives schema checking (unknown
// keys, "did you mean"), typed parsing and validation, defaults, `rapidllm config list`
// and, later, the Python keyword arguments.
#pragma once

#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "rapidllm/config.hpp"

namespace rapidllm::config {

enum class ValueKind {
  integer,
  real,
  boolean,
  string,
  choice,          // one of `choices`
  choice_list,     // a YAML list of `choices`
  size,            // bytes: "80 GB", "80 GiB", 1e9
  bandwidth,       // bytes/s: "1986 GB" (RAPID-LLM), "450 GB/s", "400 Gb/s"
  bandwidth_list,  // a bandwidth or a list of them (one per switching level)
  duration,        // seconds: 9e-6, "9 us"
  frequency,       // hertz: 1.41e9, "1.41 GHz"
  precision,       // bytes per element or a dtype string (fp8/fp16/bf16/fp32)
  dimension_size,  // "auto", an integer, or a list of integers (2-D shapes)
  link_list,       // [[src, dst, weight], ...]
};

struct Setting {
  std::string_view path;
  ConfigFile file;
  ValueKind kind;
  std::string_view unit;
  // YAML text of the default; nullopt when the key is required.
  std::optional<std::string_view> default_value;
  std::string_view doc;
  std::vector<std::string_view> choices = {};
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool nullable = false;  // `null` is accepted and means "use the default / derive it"
  std::vector<std::string_view> specials = {};  // extra literal values (e.g. "as_tensor_format")
  // Names or describes something for people and reports (an id, a label); no prediction reads
  // it. Every other setting changes some prediction, or warns when the model cannot honour it
  // (tests/unit/api/settings_effect_test.cpp walks the registry to hold this).
  bool metadata = false;
};

[[nodiscard]] inline Setting as_metadata(Setting s) {
  s.metadata = true;
  return s;
}

[[nodiscard]] const std::vector<Setting>& all_settings();

// Exact pattern lookup ("network.dimensions[].topology.type"); nullptr if not declared.
[[nodiscard]] const Setting* find_setting(std::string_view pattern);

// True when some declared setting lies below `pattern` (it is a mapping or list of them).
[[nodiscard]] bool is_section(std::string_view pattern);

// Child names declared under a section pattern ("tech_param" -> core, <memory>),
// for "did you mean" and "valid keys here" hints.
[[nodiscard]] std::vector<std::string_view> child_names(std::string_view section);

// The pattern of `key` under `section`: the exact child if declared, else the section's
// wildcard child ("<memory>") if it has one, else nullopt (unknown key).
[[nodiscard]] std::optional<std::string> child_pattern(std::string_view section, std::string_view key);

[[nodiscard]] std::string_view kind_name(ValueKind kind);

}  // namespace rapidllm::config
