// Structural check of a whole document against the settings registry: every key must be
// declared for this kind of file, sections must be mappings (or lists where declared),
// and no key may appear twice. Values are checked later by the typed readers.
#pragma once

#include "config/document.hpp"

namespace rapidllm::config {

void check_schema(const Document& doc);

}  // namespace rapidllm::config
