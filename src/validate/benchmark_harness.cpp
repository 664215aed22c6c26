#include "validate/benchmark_harness.hpp"

#include "validate/csv_table.hpp"

namespace rapidllm::validate {

std::optional<CollectiveHarness> harness_of(std::string_view tool) {
  const std::string s = lowercase(tool);
  if (has_text(s, "nccl-tests")) return CollectiveHarness::nccl_tests;
  if (has_text(s, "torch.distributed") || has_text(s, "all_reduce_bench.py")) return CollectiveHarness::torch_distributed;
  return std::nullopt;
}

double harness_overhead_s(CollectiveHarness harness) {
  return harness == CollectiveHarness::torch_distributed ? kTorchDistributedCallS : 0.0;
}

}  // namespace rapidllm::validate
