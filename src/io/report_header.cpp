#include "io/report_header.hpp"

#include <fmt/format.h>

#include "rapidllm/software_stack.hpp"
#include "rapidllm/version.hpp"

namespace rapidllm::io {

nlohmann::json header_json(const ReportHeader& header) {
  nlohmann::json out = {{"schema_version", kSchemaVersion},
                        {"version", kVersion},
                        {"config_hash", header.config_hash},
                        {"hardware_file", header.hardware_file}};
  if (!header.model_file.empty()) out["model_file"] = header.model_file;
  if (header.overrides) {
    // The value exactly as typed (the loader parsed it); a key given twice keeps the last
    // value, the one the loader applied last.
    nlohmann::json overrides = nlohmann::json::object();
    for (const std::string& o : *header.overrides) {
      const auto eq = o.find('=');
      overrides[o.substr(0, eq)] = eq == std::string::npos ? "" : o.substr(eq + 1);
    }
    out["overrides"] = std::move(overrides);
  }
  if (const auto& s = header.software_stack) {
    out["software_stack"] = {{"framework", s->framework},
                             {"compute_efficiency", s->compute_efficiency},
                             {"attention_kernel", s->attention_kernel},
                             {"kernel_launch_overhead_s", s->kernel_launch_overhead_s},
                             {"pipeline_transfer_stall_s", s->pipeline_transfer_stall_s},
                             {"dp_bucket_params", s->dp_bucket_params},
                             {"decode_kv_passes", s->decode_kv_passes},
                             {"pipelined_tp_wait_s", s->pipelined_tp_wait_s},
                             {"pipelined_tp_wait_per_rank_s", s->pipelined_tp_wait_per_rank_s},
                             {"zero_gather_overlap", s->zero_gather_overlap},
                             {"cross_entropy", s->cross_entropy},
                             {"micro_batch_overhead_s", s->micro_batch_overhead_s},
                             {"expert_call_overhead_s", s->expert_call_overhead_s}};
  }
  return out;
}

void add_header_cells(CsvRow& row, const ReportHeader& header) {
  row.integer("schema_version", kSchemaVersion);
  row.text("version", kVersion);
  row.text("config_hash", header.config_hash);
  row.text("hardware_file", header.hardware_file);
}

std::string header_line(const ReportHeader& header) {
  std::string out = fmt::format("rapidllm {} (schema {}), config {}\n", kVersion, kSchemaVersion, header.config_hash);
  if (const auto& s = header.software_stack) {
    out += fmt::format("software stack {}: {:.3g} of the kernels' rate, {} attention, {:.3g} us launch gap",
                       s->framework, s->compute_efficiency, s->attention_kernel, s->kernel_launch_overhead_s * 1e6);
    if (s->dp_bucket_params >= kOneGradientBuffer) out += ", gradients reduced in one buffer after backward";
    if (s->pipeline_transfer_stall_s > 0.0) {
      out += fmt::format(", {:.3g} ms host stall per pipeline transfer", s->pipeline_transfer_stall_s * 1e3);
    }
    if (s->decode_kv_passes > 1.0) {
      out += fmt::format(", decode reads each KV head's cache {:.3g} times", s->decode_kv_passes);
    }
    if (s->pipelined_tp_wait_s > 0.0 || s->pipelined_tp_wait_per_rank_s > 0.0) {
      out += fmt::format(", {:.3g} ms + {:.3g} ms per TP rank held on each TP collective while the pipeline spans nodes",
                         s->pipelined_tp_wait_s * 1e3, s->pipelined_tp_wait_per_rank_s * 1e3);
    }
    if (!s->zero_gather_overlap) out += ", ZeRO's parameter all-gather before the next step";
    if (s->cross_entropy == "eager") out += ", eager cross-entropy on an fp32 upcast";
    if (s->cross_entropy == "megatron") out += ", Megatron's compiled cross-entropy on an fp32 copy";
    if (s->cross_entropy == "megatron-unfused") out += ", Megatron's unfused cross-entropy on an fp32 copy";
    if (s->micro_batch_overhead_s > 0.0) {
      out += fmt::format(", {:.3g} ms host time per micro-batch", s->micro_batch_overhead_s * 1e3);
    }
    if (s->expert_call_overhead_s > 0.0) {
      out += fmt::format(", {:.3g} us host time per expert call", s->expert_call_overhead_s * 1e6);
    }
    out += "\n";
  }
  return out;
}

}  // namespace rapidllm::io
