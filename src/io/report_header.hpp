// What every report starts with: tool version, report schema version, and the hash of the
// resolved configuration (reproducible outputs).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/csv_row.hpp"

namespace rapidllm::io {

struct ReportHeader {
  std::string config_hash;
  std::string hardware_file;
  std::string model_file;  // empty when there is none (collective, gemm)
  // The command-line overrides ("key=value", as given) of a run that takes them; JSON
  // echoes them as "overrides": {key: value} (an empty object when none was given), so a
  // result says how it departs from its files. Absent: the run takes none (validate).
  std::optional<std::vector<std::string>> overrides;
  // The software-stack profile an LLM step ran under (software_stack.hpp), as applied:
  // reports say which share of the kernels' rate they assumed. Absent for kernels alone.
  struct Stack {
    std::string framework;
    double compute_efficiency = 1.0;
    std::string attention_kernel;
    double kernel_launch_overhead_s = 0.0;
    double pipeline_transfer_stall_s = 0.0;
    double dp_bucket_params = 0.0;
    double decode_kv_passes = 1.0;
    double pipelined_tp_wait_s = 0.0;
    double pipelined_tp_wait_per_rank_s = 0.0;
    bool zero_gather_overlap = true;
    std::string cross_entropy;
    double micro_batch_overhead_s = 0.0;
    double expert_call_overhead_s = 0.0;
  };
  std::optional<Stack> software_stack;
};

[[nodiscard]] nlohmann::json header_json(const ReportHeader& header);
// The columns a CSV report of a configured run starts with, and filling them.
inline constexpr std::array<std::string_view, 4> kHeaderColumns{"schema_version", "version", "config_hash",
                                                                "hardware_file"};
void add_header_cells(CsvRow& row, const ReportHeader& header);
// "# rapidllm 0.1.0 · schema 1 · config 3f2a... " for table output.
[[nodiscard]] std::string header_line(const ReportHeader& header);

}  // namespace rapidllm::io
