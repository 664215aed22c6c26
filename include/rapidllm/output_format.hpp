// The formats every report is rendered in (--format table|json|csv).
#pragma once

#include <optional>
#include <string_view>

namespace rapidllm {

enum class OutputFormat { table, json, csv };

// "table" | "json" | "csv"; nullopt for anything else.
[[nodiscard]] std::optional<OutputFormat> parse_output_format(std::string_view name);

}  // namespace rapidllm
