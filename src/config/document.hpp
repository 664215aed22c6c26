// A parsed YAML config file that remembers where every value came from: its position in
// the file, or the --set override that replaced it.
#pragma once

#include <map>
#include <string>

#include <yaml-cpp/yaml.h>

#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::config {

struct Document {
  ConfigFile kind = ConfigFile::hardware;
  std::string file;
  YAML::Node root;
  // Concrete key paths ("network.dimensions[0].topology.bandwidth") set by overrides,
  // mapped to the override text, so errors point at the command line instead of the file.
  std::map<std::string, std::string> overridden;

  // Reads and parses the file; a missing file or invalid YAML is a ConfigError.
  [[nodiscard]] static Document load(const std::string& path, ConfigFile kind);
  // Parses YAML text held in memory; `name` stands for the file in errors.
  [[nodiscard]] static Document parse(const std::string& text, const std::string& name, ConfigFile kind);

  // Where the value at `path` (node `node`, or the enclosing `anchor` when the key is
  // missing) came from.
  [[nodiscard]] SourceLocation locate(const std::string& path, const YAML::Mark& mark) const;
};

[[nodiscard]] std::string_view file_kind_name(ConfigFile kind);

}  // namespace rapidllm::config
