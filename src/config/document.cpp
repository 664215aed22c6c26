#include "config/document.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rapidllm::config {

std::string_view file_kind_name(ConfigFile kind) {
  return kind == ConfigFile::hardware ? "hardware" : "model";
}

namespace {

// JSON is YAML too, so a Hugging Face config.json would otherwise load and fail with a
// confusing "unknown key" error: say what it is and how to convert it.
void reject_hf_config(const std::string& text, const SourceLocation& where) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.contains("model_param")) return;
  if (!j.contains("architectures") && !j.contains("model_type")) return;
  throw ConfigError(where, "", "expected a rapidllm model YAML (model_param: ...), got a JSON file with \"architectures\" or \"model_type\"",
                    fmt::format("this is a Hugging Face config.json; convert it first: rapidllm import-hf {} -o model.yaml",
                                where.file));
}

}  // namespace

Document Document::load(const std::string& path, ConfigFile kind) {
  const SourceLocation where{path, 0, 0, {}};
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::is_regular_file(status)) {
    // A folder, a device or a FIFO would read as nothing (or block): say which it is.
    const char* what = !std::filesystem::exists(status)           ? "no such file"
                       : std::filesystem::is_directory(status)     ? "this is a folder, not a file"
                                                                   : "this is not a regular file (a device, FIFO or socket)";
    throw ConfigError(where, "", fmt::format("cannot read the {} config: {}", file_kind_name(kind), what),
                      fmt::format("give --{} the path of a YAML file", file_kind_name(kind)));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(where, "", "cannot open the file for reading", "check its permissions");
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, kind);
}

Document Document::parse(const std::string& text, const std::string& name, ConfigFile kind) {
  Document doc;
  doc.kind = kind;
  doc.file = name;
  SourceLocation where{name, 0, 0, {}};
  if (kind == ConfigFile::model) reject_hf_config(text, where);
  try {
    doc.root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    where.line = e.mark.line + 1;
    where.column = e.mark.column + 1;
    throw ConfigError(where, "", fmt::format("invalid YAML: {}", e.msg),
                      "fix the syntax (indentation, ':' after keys, matching brackets)");
  }
  if (!doc.root.IsMap()) {
    throw ConfigError(where, "", "expected a YAML mapping of sections at the top level",
                      kind == ConfigFile::hardware
                          ? "a hardware file starts with sections like 'tech_param:' and 'memory_hierarchy:'"
                          : "a model file starts with 'model_param:'");
  }
  return doc;
}

SourceLocation Document::locate(const std::string& path, const YAML::Mark& mark) const {
  // The longest overridden prefix of the path wins: the override replaced that subtree.
  for (auto it = overridden.rbegin(); it != overridden.rend(); ++it) {
    const std::string& p = it->first;
    if (path == p || (path.size() > p.size() && path.compare(0, p.size(), p) == 0 &&
                      (path[p.size()] == '.' || path[p.size()] == '['))) {
      return SourceLocation{{}, 0, 0, it->second};
    }
  }
  SourceLocation where{file, 0, 0, {}};
  if (!mark.is_null()) {
    where.line = mark.line + 1;
    where.column = mark.column + 1;
  }
  return where;
}

}  // namespace rapidllm::config
