#include "config/settings_registry.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "config/settings_tables.hpp"

namespace rapidllm::config {

namespace {
bool starts_with_section(std::string_view path, std::string_view section) {
  return path.size() > section.size() && path.substr(0, section.size()) == section &&
         (path[section.size()] == '.' || path[section.size()] == '[');
}
}  // namespace

const std::vector<Setting>& all_settings() {
  static const std::vector<Setting> settings = [] {
    auto all = hardware_settings();
    auto model = model_settings();
    all.insert(all.end(), model.begin(), model.end());
    return all;
  }();
  return settings;
}

const Setting* find_setting(std::string_view pattern) {
  for (const auto& s : all_settings()) {
    if (s.path == pattern) return &s;
  }
  return nullptr;
}

bool is_section(std::string_view pattern) {
  return std::any_of(all_settings().begin(), all_settings().end(),
                     [&](const Setting& s) { return starts_with_section(s.path, pattern); });
}

namespace {

// Section pattern -> its child names, in declaration order, built once: the schema check
// asks for the children of every key it walks, and a scan of all settings per key made
// loading a file quadratic in its size.
const std::map<std::string_view, std::vector<std::string_view>, std::less<>>& children_index() {
  static const auto index = [] {
    std::map<std::string_view, std::vector<std::string_view>, std::less<>> out;
    auto add = [&](std::string_view section, std::string_view rest) {
      auto name = rest.substr(0, rest.find_first_of(".["));
      auto& names = out[section];
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    };
    for (const auto& s : all_settings()) {
      add("", s.path);
      for (std::size_t dot = s.path.find('.'); dot != std::string_view::npos; dot = s.path.find('.', dot + 1)) {
        add(s.path.substr(0, dot), s.path.substr(dot + 1));
      }
    }
    return out;
  }();
  return index;
}

}  // namespace

std::vector<std::string_view> child_names(std::string_view section) {
  const auto& index = children_index();
  auto it = index.find(section);
  return it == index.end() ? std::vector<std::string_view>{} : it->second;
}

std::optional<std::string> child_pattern(std::string_view section, std::string_view key) {
  std::string prefix = section.empty() ? std::string() : std::string(section) + ".";
  std::optional<std::string> wildcard;
  for (auto name : child_names(section)) {
    if (name == key) return prefix + std::string(key);
    if (name.size() > 2 && name.front() == '<' && name.back() == '>') wildcard = prefix + std::string(name);
  }
  return wildcard;
}

std::string_view kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::integer: return "integer";
    case ValueKind::real: return "number";
    case ValueKind::boolean: return "boolean";
    case ValueKind::string: return "string";
    case ValueKind::choice: return "choice";
    case ValueKind::choice_list: return "list of choices";
    case ValueKind::size: return "size";
    case ValueKind::bandwidth: return "bandwidth";
    case ValueKind::bandwidth_list: return "bandwidth or list";
    case ValueKind::duration: return "duration";
    case ValueKind::frequency: return "frequency";
    case ValueKind::precision: return "precision";
    case ValueKind::dimension_size: return "auto | N | [X, Y]";
    case ValueKind::link_list: return "list of [src, dst, weight]";
  }
  return "?";
}

}  // namespace rapidllm::config

