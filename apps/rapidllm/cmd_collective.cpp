// rapidllm collective --hardware HW.yaml --op all_reduce --bytes 1GiB --ranks 8 [--dim ID] [--backend analytical|flow|ns3]
#include <memory>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "progress_bar.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/network_backend.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/suggest.hpp"
#include "rapidllm/units.hpp"

namespace rapidllm::cli {

namespace {
// --dim names one of the hardware's network dimensions: a usage error otherwise (exit 2).
void require_dimension(const HardwareSpec& hw, const std::string& id) {
  if (const auto unknown = unknown_dimension(hw, id)) {
    throw CLI::ValidationError("--dim", unknown->problem + "; " + unknown->hint);
  }
}

struct CollectiveOptions {
  std::string hardware;
  std::string op;
  std::string bytes;
  int ranks = 0;
  std::string dimension;
  std::string backend = "analytical";
  std::vector<std::string> sets;
  std::string max_events;
  OutputOptions output;
};
}  // namespace

void add_collective_command(CLI::App& app) {
  auto o = std::make_shared<CollectiveOptions>();
  CLI::App* cmd = app.add_subcommand("collective", "predict one collective (nccl-tests size, algbw, busbw)");
  cmd->add_option("--hardware", o->hardware, "hardware YAML (RAPID-LLM schema)")->required();
  cmd->add_option("--op", o->op, "collective")
      ->required()
      ->check(CLI::IsMember(enum_names(CollectiveOp::all_reduce, CollectiveOp::send_recv)));
  cmd->add_option("--bytes", o->bytes, "nccl-tests size (per-rank buffer), e.g. 1GiB, 64MiB, 1e9")->required();
  cmd->add_option("--ranks", o->ranks, "participating GPUs")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--dim", o->dimension, "network dimension id (default: span dimensions innermost first)");
  cmd->add_option("--backend", o->backend,
                  "network model: analytical (alpha-beta), flow (congestion-aware flow simulation), ns3 (packet-level)")
      ->check(CLI::IsMember(enum_names(NetworkBackend::analytical, NetworkBackend::ns3)))
      ->capture_default_str();
  add_set_option(*cmd, o->sets);
  add_max_events_option(*cmd, o->max_events);
  add_output_options(*cmd, o->output);
  cmd->callback([o] {
    auto bytes = parse_size_bytes(o->bytes);
    if (!bytes) {
      throw CLI::ValidationError("--bytes", fmt::format("'{}' is not a size; write e.g. 1GiB, 64MiB or 1e9", o->bytes));
    }
    // nccl-tests sizes: whole bytes, and at most an exbibyte (a collective's time stays finite).
    if (*bytes != std::floor(*bytes) || *bytes > 0x1p60) {
      throw CLI::ValidationError("--bytes", fmt::format("'{}' is not a whole number of bytes up to 1 EiB", o->bytes));
    }
    apply_max_events(o->max_events, o->sets);
    const HardwareSpec hw = load_hardware(o->hardware, o->sets);
    if (!o->dimension.empty()) require_dimension(hw, o->dimension);
    // The IsMember checks above admit only names these parse.
    const CollectiveRequest request{
        .op = *parse_collective_op(o->op),
        .bytes = *bytes,
        .ranks = o->ranks,
        .dimension = o->dimension.empty() ? std::nullopt : std::optional<std::string>(o->dimension),
        .backend = *parse_network_backend(o->backend)};
    const CollectiveEstimate estimate = run_collective(hw, request, progress_bar("", kProgressDelayS));
    write_output(render_collective(estimate, request, hw, format_of(o->output), o->sets), o->output.path);
  });
}

}  // namespace rapidllm::cli
