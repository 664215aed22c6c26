// rapidllm collective --hardware HW.yaml --op all_reduce --bytes 1GiB --ranks 8 [--dim ID] [--backend analytical|flow|ns3]
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "gemm_runner.hpp"
#include "io/collective_report.hpp"
#include "io/spec_json.hpp"
#include "network/backend.hpp"
#include "network/rank_layout.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/units.hpp"

namespace rapidllm::cli {

namespace {
struct CollectiveOptions {
  std::string hardware;
  std::string op;
  std::string bytes;
  int ranks = 0;
  std::string dimension;
  std::string backend = "analytical";
  std::vector<std::string> sets;
  OutputOptions output;
};

CollectiveOp op_from(const std::string& name) {
  if (name == "all_reduce") return CollectiveOp::all_reduce;
  if (name == "all_gather") return CollectiveOp::all_gather;
  if (name == "reduce_scatter") return CollectiveOp::reduce_scatter;
  if (name == "broadcast") return CollectiveOp::broadcast;
  if (name == "send_recv") return CollectiveOp::send_recv;
  return CollectiveOp::all_to_all;
}
}  // namespace

void add_collective_command(CLI::App& app) {
  auto o = std::make_shared<CollectiveOptions>();
  CLI::App* cmd = app.add_subcommand("collective", "predict one collective (nccl-tests size, algbw, busbw)");
  cmd->add_option("--hardware", o->hardware, "hardware YAML (RAPID-LLM schema)")->required();
  cmd->add_option("--op", o->op, "collective")
      ->required()
      ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv"}));
  cmd->add_option("--bytes", o->bytes, "nccl-tests size (per-rank buffer), e.g. 1GiB, 64MiB, 1e9")->required();
  cmd->add_option("--ranks", o->ranks, "participating GPUs")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--dim", o->dimension, "network dimension id (default: span dimensions innermost first)");
  cmd->add_option("--backend", o->backend,
                  "network model: analytical (alpha-beta), flow (congestion-aware flow simulation), ns3 (packet-level)")
      ->check(CLI::IsMember({"analytical", "flow", "ns3"}))
      ->capture_default_str();
  add_set_option(*cmd, o->sets);
  add_output_options(*cmd, o->output);
  cmd->callback([o] {
    auto bytes = parse_size_bytes(o->bytes);
    if (!bytes) {
      throw CLI::ValidationError("--bytes", fmt::format("'{}' is not a size; write e.g. 1GiB, 64MiB or 1e9", o->bytes));
    }
    HardwareSpec hw = load_hardware(o->hardware, o->sets);
    std::optional<std::string> dim = o->dimension.empty() ? std::nullopt : std::optional<std::string>(o->dimension);
    auto spans = network::lay_out_ranks(hw.network, o->ranks, dim);
    const auto backend = network::parse_backend(o->backend);
    CollectiveEstimate e = network::run_collective(backend.value_or(network::NetworkBackend::analytical), op_from(o->op),
                                                   *bytes, spans, hw.network, hw.execution);
    nlohmann::json resolved = {{"hardware", io::hardware_json(hw)}, {"op", o->op}, {"bytes", *bytes},
                               {"ranks", o->ranks}, {"dim", o->dimension}, {"backend", o->backend}};
    io::ReportHeader header{io::config_hash(resolved), hw.source, ""};
    std::string text;
    switch (format_of(o->output)) {
      case io::Format::json: text = json_text(io::collective_report_json(e, o->backend, header)); break;
      case io::Format::csv: text = io::collective_report_csv(e, o->backend); break;
      case io::Format::table: text = io::collective_report_table(e, o->backend, header); break;
    }
    io::write_output(text, o->output.path);
  });
}

}  // namespace rapidllm::cli
