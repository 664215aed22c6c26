// Pieces every subcommand shares: output options and writing the result.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "io/output.hpp"

namespace rapidllm::cli {

struct OutputOptions {
  std::string format = "table";
  std::string path;  // -o FILE; empty = stdout
};

void add_output_options(CLI::App& command, OutputOptions& options);
void add_set_option(CLI::App& command, std::vector<std::string>& sets);

[[nodiscard]] io::Format format_of(const OutputOptions& options);
// JSON with a trailing newline, as every JSON report is printed.
[[nodiscard]] std::string json_text(const nlohmann::json& j);

// Subcommand registration; each lives in its own cmd_*.cpp.
void add_predict_command(CLI::App& app);
void add_gemm_command(CLI::App& app);
void add_collective_command(CLI::App& app);
void add_config_command(CLI::App& app);
void add_validate_command(CLI::App& app);

}  // namespace rapidllm::cli
