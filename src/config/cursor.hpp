// Typed, validated access to one key of a Document. Every reader checks the value against
// the key's declared Setting (kind, range, choices), applies the declared default when the
// key is absent, and throws a ConfigError naming the file:line and key path otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/document.hpp"
#include "config/settings_registry.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::config {

class Cursor {
 public:
  // The whole document.
  explicit Cursor(const Document& doc);

  [[nodiscard]] Cursor child(std::string_view key) const;
  [[nodiscard]] Cursor element(std::size_t index) const;

  [[nodiscard]] bool present() const;  // defined and not null
  [[nodiscard]] std::size_t list_size() const;  // 0 when absent; error when not a list
  [[nodiscard]] std::vector<std::string> keys() const;  // 0 when absent; error when not a mapping
  [[nodiscard]] const std::string& path() const { return path_; }

  // Leaf readers. `integer` and `real` check the declared range.
  [[nodiscard]] std::int64_t integer() const;
  [[nodiscard]] int small_integer() const;
  [[nodiscard]] std::optional<std::int64_t> optional_integer() const;  // nullable, no default
  [[nodiscard]] double real() const;
  [[nodiscard]] std::optional<double> optional_real() const;  // no default: absent = nullopt
  [[nodiscard]] bool boolean() const;
  [[nodiscard]] std::string string() const;
  [[nodiscard]] std::string choice() const;
  [[nodiscard]] std::vector<std::string> choice_list() const;
  [[nodiscard]] double size_bytes() const;
  // A bandwidth; nullopt when the value is one of the setting's "disabled" specials.
  [[nodiscard]] std::optional<double> bandwidth() const;
  [[nodiscard]] std::vector<double> bandwidth_list() const;
  [[nodiscard]] double duration_s() const;
  [[nodiscard]] double frequency_hz() const;
  // `as_gradients`: what the special "as_gradients" stands for, where the setting has it.
  [[nodiscard]] Precision precision(const Precision& as_tensor_format, const Precision* as_gradients = nullptr) const;
  [[nodiscard]] std::vector<int> dimension_size() const;  // empty = auto
  [[nodiscard]] std::vector<FaultyLink> links() const;

  // A ConfigError at this key (its value, or where it should be when missing).
  [[noreturn]] void fail(const std::string& problem, const std::string& hint) const;
  // A warning at this key, worded as fail() words an error: for a value that is accepted
  // but that the model cannot honour in this context.
  void warn(const std::string& problem, const std::string& hint) const;
  // Where this key's value came from (file:line, or the --set text).
  [[nodiscard]] SourceLocation where() const;

 private:
  Cursor(const Document* doc, YAML::Node node, std::string path, std::string pattern, YAML::Mark anchor);

  [[nodiscard]] const Setting& setting() const;
  // The value node, the parsed default when absent, or a "missing key" error.
  [[nodiscard]] YAML::Node value() const;
  [[nodiscard]] std::string scalar(const YAML::Node& node, std::string_view expected) const;
  [[nodiscard]] double checked_number(double v, const std::string& text, bool integral) const;
  [[nodiscard]] bool is_special(const std::string& text) const;

  const Document* doc_;
  YAML::Node node_;     // may be undefined (key absent)
  std::string path_;    // concrete: network.dimensions[0].topology.type
  std::string pattern_; // registry:  network.dimensions[].topology.type
  YAML::Mark anchor_;   // a null value's key, else the nearest enclosing node ("missing key" errors)
};

}  // namespace rapidllm::config
