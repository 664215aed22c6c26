#include "cli_common.hpp"

#include <nlohmann/json.hpp>

namespace rapidllm::cli {

void add_output_options(CLI::App& command, OutputOptions& options) {
  command.add_option("--format", options.format, "output format")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  command.add_option("-o,--output", options.path, "write the result to FILE instead of stdout");
}

void add_set_option(CLI::App& command, std::vector<std::string>& sets) {
  command.add_option("--set", sets, "override a config key: a.b.c=value (repeatable)")->allow_extra_args(false);
}

io::Format format_of(const OutputOptions& options) { return *io::parse_format(options.format); }

std::string json_text(const nlohmann::json& j) { return j.dump(2) + "\n"; }

}  // namespace rapidllm::cli
