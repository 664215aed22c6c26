// What a report says of the software-stack profile an LLM step ran under.
#pragma once

#include <string>

#include "io/report_header.hpp"
#include "rapidllm/software_stack.hpp"

namespace rapidllm::detail {

// The profile as applied for run_type (an inference workload re-resolves "auto").
inline io::ReportHeader::Stack stack_echo(const SoftwareSpec& spec, RunType run_type) {
  const SoftwareSpec sw = effective_software(spec, run_type);
  return {sw.stack.empty() ? std::string("(none)") : sw.stack, sw.compute_efficiency,
          std::string(to_string(sw.attention_kernel)), sw.kernel_launch_overhead_s, sw.pipeline_transfer_stall_s,
          sw.dp_bucket_params, sw.decode_kv_passes, sw.pipelined_tp_wait_s, sw.pipelined_tp_wait_per_rank_s,
          sw.zero_gather_overlap, std::string(to_string(sw.cross_entropy)), sw.micro_batch_overhead_s,
          sw.expert_call_overhead_s};
}

}  // namespace rapidllm::detail
