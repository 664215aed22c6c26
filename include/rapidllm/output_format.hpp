// The formats every report is rendered in (--format table|json|csv).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rapidllm {

enum class OutputFormat { table, json, csv };

// "table" | "json" | "csv"; nullopt for anything else.
[[nodiscard]] std::optional<OutputFormat> parse_output_format(std::string_view name);

// The format an output file's name asks for when no --format is given: .json -> json,
// .csv -> csv (any case), anything else (.txt, .md, no extension) -> table.
[[nodiscard]] OutputFormat output_format_for(const std::string& path);

}  // namespace rapidllm
