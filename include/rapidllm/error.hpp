// Error hierarchy shared by every module. Configuration mistakes carry where they
// happened (file:line or the --set override), the key path, and a hint to fix them.
#pragma once

#include <stdexcept>
#include <string>

namespace rapidllm {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a configuration value came from: a YAML file position or a command-line override.
struct SourceLocation {
  std::string file;      // path of the YAML file, or empty for an override
  int line = 0;          // 1-based; 0 when unknown (e.g. a key that is missing)
  int column = 0;        // 1-based; 0 when unknown
  std::string override;  // the "--set a.b=v" text when the value came from the command line

  [[nodiscard]] std::string describe() const;

  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

class ConfigError : public Error {
 public:
  ConfigError(SourceLocation where, std::string key_path, std::string problem, std::string hint);

  [[nodiscard]] const SourceLocation& where() const { return where_; }
  [[nodiscard]] const std::string& key_path() const { return key_path_; }
  [[nodiscard]] const std::string& problem() const { return problem_; }
  [[nodiscard]] const std::string& hint() const { return hint_; }

 private:
  SourceLocation where_;
  std::string key_path_;
  std::string problem_;
  std::string hint_;
};

// A well-formed scenario that cannot run (e.g. more ranks than the network holds).
class InfeasibleError : public Error {
 public:
  using Error::Error;
};

}  // namespace rapidllm
