// rapidllm gemm --hardware HW.yaml -m M -n N -k K [--dtype bf16] [--tp 8] [--shard-axis row] [--backward]
#include <memory>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/scenario.hpp"

namespace rapidllm::cli {

namespace {
struct GemmOptions {
  std::string hardware;
  std::int64_t m = 0, n = 0, k = 0;
  std::string dtype;
  int tp = 0;  // 0 = as the hardware file says
  std::string shard_axis = "row";
  bool backward = false;
  std::vector<std::string> sets;
  OutputOptions output;
};
}  // namespace

void add_gemm_command(CLI::App& app) {
  auto o = std::make_shared<GemmOptions>();
  CLI::App* cmd = app.add_subcommand("gemm", "predict one GEMM C[MxN] = A[MxK] * B[KxN], optionally tensor-parallel");
  cmd->add_option("--hardware", o->hardware, "hardware YAML (RAPID-LLM schema)")->required();
  // Each dimension below 2^31, as in model files: the tile model's products of tile counts
  // stay inside int64.
  const CLI::Range dimension(std::int64_t{1}, std::int64_t{2147483647});
  cmd->add_option("-m,--m", o->m, "rows of A and C (1 to 2^31 - 1)")->required()->check(dimension);
  cmd->add_option("-n,--n", o->n, "columns of B and C (1 to 2^31 - 1)")->required()->check(dimension);
  cmd->add_option("-k,--k", o->k, "reduction dimension (1 to 2^31 - 1)")->required()->check(dimension);
  cmd->add_option("--dtype", o->dtype, "fp8, fp16, bf16 or fp32 (default: sw_param.precision.tensor_format)")
      ->check(CLI::IsMember({"fp8", "fp16", "bf16", "fp32"}));
  cmd->add_option("--tp", o->tp, "tensor-parallel ranks (default: parallelism.tp of the hardware file)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--shard-axis", o->shard_axis, "row (split K) or column (split N)")
      ->check(CLI::IsMember({"row", "column"}))
      ->capture_default_str();
  cmd->add_flag("--backward", o->backward, "also time the two backward GEMMs");
  add_set_option(*cmd, o->sets);
  add_output_options(*cmd, o->output);
  cmd->callback([o] {
    std::vector<std::string> sets = o->sets;
    if (o->tp > 0) sets.push_back(fmt::format("parallelism.tp={}", o->tp));
    const GemmModelSpec gemm{o->m, o->k, o->n, o->backward, o->shard_axis == "row" ? ShardAxis::row : ShardAxis::column};
    const Scenario scenario{load_hardware(o->hardware, sets), ModelSpec{"command line", gemm}, "",
                            o->dtype.empty() ? std::nullopt : parse_dtype(o->dtype), sets};
    write_prediction(scenario, o->output);
  });
}

}  // namespace rapidllm::cli
