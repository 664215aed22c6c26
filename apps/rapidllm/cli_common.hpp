// Pieces every subcommand shares: output options and writing the result.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "rapidllm/report.hpp"

namespace rapidllm::cli {

struct OutputOptions {
  std::string format;  // --format; empty = from -o's extension (output_format_for), else table
  std::string path;    // -o FILE; empty = stdout
};

void add_output_options(CLI::App& command, OutputOptions& options);
void add_set_option(CLI::App& command, std::vector<std::string>& sets);
// --max-events N: the work limit of flow and ns-3 simulations, passed on as the override
// execution_backend.astra.max_events=N (so it is checked like the config key). Call after
// parsing, before loading the hardware.
void add_max_events_option(CLI::App& command, std::string& max_events);
void apply_max_events(const std::string& max_events, std::vector<std::string>& sets);

// --format when given, else what -o's extension asks for (.json, .csv; table otherwise).
[[nodiscard]] OutputFormat format_of(const OutputOptions& options);

// The names of first..last, in the enum's order, for an option's IsMember check: the
// command line accepts exactly what the parse_* functions do.
template <class Enum>
[[nodiscard]] std::vector<std::string> enum_names(Enum first, Enum last) {
  std::vector<std::string> names;
  for (int i = static_cast<int>(first); i <= static_cast<int>(last); ++i) {
    names.emplace_back(to_string(static_cast<Enum>(i)));
  }
  return names;
}

// Predicts the scenario and writes its report; an infeasible one throws InfeasibleError
// with the reason (main: exit 1). One that does not fit in memory is written, then warned
// about on stderr, or (fail_if_oom) an InfeasibleError too.
void write_prediction(const Scenario& scenario, const OutputOptions& output, const StepExports& exports = {},
                      bool fail_if_oom = false);

// Subcommand registration; each lives in its own cmd_*.cpp.
void add_predict_command(CLI::App& app);
void add_gemm_command(CLI::App& app);
void add_collective_command(CLI::App& app);
void add_config_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_import_hf_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_serve_command(CLI::App& app);

}  // namespace rapidllm::cli
