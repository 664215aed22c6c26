#include "api/step_exports.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "io/chakra_export.hpp"
#include "io/perfetto_trace.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::detail {

namespace {

ConfigError option_error(std::string option, std::string problem, std::string hint) {
  return ConfigError(SourceLocation{"command line", 0, 0, {}}, std::move(option), std::move(problem), std::move(hint));
}

}  // namespace

void check_exports(const StepExports& e, const HardwareSpec& hw) {
  if (e.trace_file.empty() && e.chakra_dir.empty()) {
    if (!e.trace_ranks.empty()) {
      throw option_error("--trace-ranks", "limits the ranks of a trace, but no --trace file is asked for",
                         "add --trace FILE.json");
    }
    return;
  }
  const bool simulated = hw.execution.mode == ExecutionMode::full_astrasim_hierarchical ||
                         hw.execution.mode == ExecutionMode::full_astrasim_flattened;
  if (!e.trace_file.empty() && !simulated) {
    throw option_error("--trace",
                       fmt::format("execution mode '{}' composes the step with formulas: there is no timeline to trace",
                                   to_string(hw.execution.mode)),
                       "simulate the step: --set execution_backend.model=astra --set "
                       "execution_backend.astra.mode=full_astrasim_hierarchical (or full_astrasim_flattened)");
  }
}

void write_exports(const StepExports& e, const exec::Timeline& timeline, const exec::StepGraph& graph) {
  std::vector<int> ranks;
  if (!e.trace_ranks.empty()) ranks = io::parse_rank_list(e.trace_ranks, graph.num_ranks);
  if (!e.trace_file.empty()) {
    const std::filesystem::path target(e.trace_file);
    std::filesystem::path tmp = target;
    tmp += ".tmp";
    try {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw Error(fmt::format("cannot write the trace to '{}': the file cannot be created", e.trace_file));
      io::write_perfetto_trace(timeline, out, ranks);
      out.close();
      if (!out) throw Error(fmt::format("cannot write the trace to '{}': writing failed", e.trace_file));
      std::filesystem::rename(tmp, target);
    } catch (...) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw;
    }
  }
  if (!e.chakra_dir.empty()) io::write_chakra_traces(graph, e.chakra_dir, "rapidllm", ranks);
}

}  // namespace rapidllm::detail
