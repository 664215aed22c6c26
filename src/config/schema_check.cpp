#include "config/schema_check.hpp"

#include <set>

#include <fmt/format.h>

#include "config/settings_registry.hpp"
#include "config/suggest.hpp"

namespace rapidllm::config {

namespace {

class SchemaWalker {
 public:
  explicit SchemaWalker(const Document& doc) : doc_(doc) {}

  void walk_map(const YAML::Node& node, const std::string& path, const std::string& pattern) {
    if (node.IsNull()) return;  // "collective_override:" with nothing after it
    if (!node.IsMap()) {
      fail(node, path, "expected a mapping of keys",
           fmt::format("valid keys here: {}", fmt::join(child_names(pattern), ", ")));
    }
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.Scalar();
      const std::string child_path = path.empty() ? key : path + "." + key;
      if (!seen.insert(key).second) {
        fail(it->first, child_path, "key appears twice in the same mapping", "keep only one of them");
      }
      auto child = child_pattern(pattern, key);
      if (!child || looks_like_typo(*child, key, pattern)) unknown_key(it->first, child_path, key, pattern);
      if (pattern.empty()) check_file_kind(it->first, key, *child);
      visit(it->second, child_path, *child);
    }
  }

 private:
  void visit(const YAML::Node& node, const std::string& path, const std::string& pattern) {
    if (find_setting(pattern) != nullptr) return;  // a leaf: the typed readers check the value
    if (is_section(pattern + "[]")) {
      if (node.IsNull()) return;
      if (!node.IsSequence()) fail(node, path, "expected a list", "write each item as '- ...' under this key");
      for (std::size_t i = 0; i < node.size(); ++i) {
        walk_map(node[i], fmt::format("{}[{}]", path, i), pattern + "[]");
      }
      return;
    }
    walk_map(node, path, pattern);
  }

  void check_file_kind(const YAML::Node& key_node, const std::string& key, const std::string& pattern) {
    const auto& settings = all_settings();
    for (const auto& s : settings) {
      if (s.path.substr(0, pattern.size()) == pattern && s.file != doc_.kind) {
        fail(key_node, key,
             fmt::format("'{}' belongs in a {} file, not a {} file", key, file_kind_name(s.file), file_kind_name(doc_.kind)),
             fmt::format("pass this file with --{}", file_kind_name(s.file)));
      }
    }
  }

  // A key that only matches a wildcard ("tech_param.<memory>") but is one edit away from a
  // fixed sibling ("cor" vs "core") is far more likely a typo than a new memory level.
  static bool looks_like_typo(const std::string& child, const std::string& key, const std::string& pattern) {
    if (child.back() != '>') return false;
    return closest_match(key, fixed_names(pattern)).has_value();
  }

  static std::vector<std::string_view> fixed_names(const std::string& pattern) {
    std::vector<std::string_view> out;
    for (auto n : child_names(pattern)) {
      if (n.front() != '<') out.push_back(n);
    }
    return out;
  }

  [[noreturn]] void unknown_key(const YAML::Node& key_node, const std::string& path, const std::string& key,
                                const std::string& pattern) {
    fail(key_node, path, "unknown key", suggestion_hint(key, fixed_names(pattern)));
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, const std::string& problem,
                         const std::string& hint) {
    throw ConfigError(doc_.locate(path, node.Mark()), path, problem, hint);
  }

  const Document& doc_;
};

}  // namespace

void check_schema(const Document& doc) { SchemaWalker(doc).walk_map(doc.root, "", ""); }

}  // namespace rapidllm::config
