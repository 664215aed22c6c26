#include "rapidllm/error.hpp"

#include <fmt/format.h>

namespace rapidllm {

std::string SourceLocation::describe() const {
  if (!override.empty()) return fmt::format("command-line override '--set {}'", override);
  if (file.empty()) return "<input>";
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

namespace {
std::string compose(const SourceLocation& where, const std::string& key_path,
                    const std::string& problem, const std::string& hint) {
  std::string text = fmt::format("{}: {}{}{}", where.describe(), key_path,
                                 key_path.empty() ? "" : ": ", problem);
  if (!hint.empty()) text += fmt::format("\n  hint: {}", hint);
  return text;
}
}  // namespace

ConfigError::ConfigError(SourceLocation where, std::string key_path, std::string problem,
                         std::string hint)
    : Error(compose(where, key_path, problem, hint)),
      where_(std::move(where)),
      key_path_(std::move(key_path)),
      problem_(std::move(problem)),
      hint_(std::move(hint)) {}

}  // namespace rapidllm
