// How the benchmark behind a collectives.csv row timed its collective, and what that timing
// adds to the collective the network model predicts.
#pragma once

#include <optional>
#include <string_view>

namespace rapidllm::validate {

enum class CollectiveHarness {
  // nccl-tests: the timed iterations are launched back to back and timed together, so the
  // host's calls run ahead of the kernels and the time per iteration is the collective's.
  nccl_tests,
  // A PyTorch loop that times one torch.distributed call at a time (ml-engineering's
  // all_reduce_bench.py: barrier, CUDA event, all_reduce, event, synchronize): the GPU is
  // idle inside the timed window while the host goes through c10d to the kernel's launch.
  torch_distributed,
};

// The harness a row's `tool` column names; nullopt for a tool neither of these is.
[[nodiscard]] std::optional<CollectiveHarness> harness_of(std::string_view tool);

// The host time one timed torch.distributed call holds in the window before its collective
// runs, measured on our H200 (scripts/device/measure_torch_collective.py,
// validation/kernels/measured/h200/torch_collective_call.csv): the timed all-reduce of a
// single rank, which moves nothing, less the two events with nothing between them; medians,
// 128 KiB to 256 MiB, 43.9 - 11.4 us. PyTorch 2.11, NCCL 2.28, the machine's Xeon host.
inline constexpr double kTorchDistributedCallS = 32.5e-6;

// What the harness adds to the collective's own time.
[[nodiscard]] double harness_overhead_s(CollectiveHarness harness);

}  // namespace rapidllm::validate
