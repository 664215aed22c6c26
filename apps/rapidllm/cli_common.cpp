#include "cli_common.hpp"

#include <variant>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "rapidllm/error.hpp"

namespace rapidllm::cli {

void add_output_options(CLI::App& command, OutputOptions& options) {
  command.add_option("--format", options.format, "output format (default: from -o's extension, .json or .csv, else table)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  // Checked while parsing, before any work: an unwritable -o is a usage error (exit 2), not
  // a failure after a long run.
  command
      .add_option("-o,--output", options.path,
                   "write the result to FILE instead of stdout; FILE.json or FILE.csv pick the format unless --format is given")
      ->check([](const std::string& path) -> std::string {
        if (path.empty()) return "an empty path; leave -o out to print to stdout";
        try {
          check_output(path);
        } catch (const ConfigError& e) {
          return e.problem() + "\n  hint: " + e.hint();  // CLI11 names the option itself
        }
        return "";
      });
}

void add_set_option(CLI::App& command, std::vector<std::string>& sets) {
  command.add_option("--set", sets, "override a config key: a.b.c=value (repeatable)")->allow_extra_args(false);
}

void add_max_events_option(CLI::App& command, std::string& max_events) {
  command.add_option("--max-events", max_events,
                     "most work one flow or ns-3 simulation may take, estimated before it starts (default 3e7 events, "
                     "about 5-10 s of flow simulation on one core; a bigger one is refused with the estimate, exit 2); "
                     "same as --set execution_backend.astra.max_events=N")
      ->type_name("N");
}

void apply_max_events(const std::string& max_events, std::vector<std::string>& sets) {
  if (!max_events.empty()) sets.push_back("execution_backend.astra.max_events=" + max_events);
}

OutputFormat format_of(const OutputOptions& options) {
  if (!options.format.empty()) return *parse_output_format(options.format);  // IsMember admits only these
  return options.path.empty() || options.path == "-" ? OutputFormat::table : output_format_for(options.path);
}

void write_prediction(const Scenario& scenario, const OutputOptions& output, const StepExports& exports,
                      bool fail_if_oom) {
  PredictOptions options;
  options.exports = exports;
  const Result result = predict(scenario, options);
  if (!result.ok()) throw InfeasibleError(result.message);
  write_output(render_prediction(result, scenario, format_of(output)), output.path);
  const MemoryBreakdown* memory = std::visit(
      [](const auto& p) -> const MemoryBreakdown* {
        if constexpr (requires { p.memory.fits(); }) return &p.memory;
        return nullptr;
      },
      result.prediction);
  if (memory == nullptr || memory->fits()) return;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const std::string verdict =
      fmt::format("does not fit in memory: {:.4g} GiB per GPU on pipeline stage {} needs more than the {:.4g} GiB the "
                  "device has",
                  memory->total_bytes / kGiB, memory->stage, memory->capacity_bytes / kGiB);
  if (fail_if_oom) throw InfeasibleError(verdict + " (--fail-if-oom)");
  spdlog::warn("{}; the prediction assumes it would (--fail-if-oom makes this exit 1)", verdict);
}

}  // namespace rapidllm::cli
