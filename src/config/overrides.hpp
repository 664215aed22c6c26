// Command-line overrides "a.b.c=value": parsed, checked against the registry (with "did
// you mean"), routed to the file whose schema owns the key, and applied to its YAML tree.
#pragma once

#include <string>
#include <vector>

#include "config/document.hpp"

namespace rapidllm::config {

// The file an override belongs to, from its first key. Throws ConfigError if unknown.
[[nodiscard]] ConfigFile override_target(const std::string& override_text);

// Applies one override to `doc` (which must be the target file) and records its origin.
void apply_override(Document& doc, const std::string& override_text);

}  // namespace rapidllm::config
