#include "validate/nanotron_stack.hpp"

#include <algorithm>
#include <string_view>

namespace rapidllm::validate {

namespace {
double category(const MemoryBreakdown& m, std::string_view name) {
  for (const auto& [n, bytes] : m.bytes) {
    if (n == name) return bytes;
  }
  return 0.0;
}
}  // namespace

const NanotronStack& nanotron_stack() {
  static const NanotronStack stack{};
  return stack;
}

void apply_nanotron_precision(SoftwareSpec& sw) {
  PrecisionSpec& p = sw.precision;
  p.tensor_format = Precision{2.0, DType::bf16};
  p.matmul = p.tensor_format;
  p.parameters = p.tensor_format;
  p.gradients = Precision{4.0, DType::fp32};          // FP32GradientAccumulator's buffer
  p.grad_microbatch = p.tensor_format;                // autograd's bf16 gradients, added into it
  p.grad_communication = Precision{4.0, DType::fp32}; // the fp32 buffer is what is reduced
  p.optimizer_states = Precision{4.0, DType::fp32};
  p.master_parameters_bytes = 4.0;
  sw.const_mem_offset_bytes = 0.0;
}

NanotronMemory nanotron_memory(const MemoryBreakdown& b, int dp, int zero_stage, const NanotronStack& stack) {
  const double weights = category(b, "weights");
  // DDP's buckets: a bf16 gradient per parameter (the weights' bytes), only under DDP.
  const double ddp_gradients = dp > 1 ? weights : 0.0;
  const double nccl = category(b, "communication_buffers");
  NanotronMemory m;
  m.forward_backward_allocated = b.total_bytes - nccl + ddp_gradients;
  // Activations and the loss's logits are gone by the step; all_gather_coalesced's flat
  // buffer of every updated bf16 parameter is its transient under ZeRO-1.
  const double gather = dp > 1 && zero_stage >= 1 ? weights : 0.0;
  m.optimizer_step_allocated =
      weights + ddp_gradients + category(b, "gradients") + category(b, "optimizer_states") + gather;
  // The caching allocator keeps what forward and backward reserved; the step reuses it
  // unless it needs more.
  m.reserved = std::max(m.forward_backward_allocated * (1.0 + stack.allocator_overhead), m.optimizer_step_allocated);
  m.device_bytes = m.reserved + nccl + stack.context_bytes;
  return m;
}

}  // namespace rapidllm::validate
