#include "validate/nanotron_stack.hpp"

#include <algorithm>
#include <string_view>

#include "memory/memory_categories.hpp"

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

NanotronMemory nanotron_memory(const MemoryBreakdown& b, int dp, int zero_stage, double token_hidden,
                               const NanotronStack& stack) {
  const double weights = category(b, memory::kWeights);
  // The bf16 gradient of every parameter (the weights' bytes): DDP's buckets under dp > 1,
  // autograd's .grad tensors otherwise (the accumulator adds them into its fp32 buffer but
  // does not free them; the rows' dp = 1 peaks need them too).
  const double ddp_gradients = weights;
  const double nccl = category(b, memory::kCommunicationBuffers);
  NanotronMemory m;
  m.forward_backward_allocated = b.total_bytes - nccl + ddp_gradients;
  m.transient = category(b, memory::kActivations) + category(b, memory::kTemporaries);
  // Activations and the loss's logits are gone by the step; all_gather_coalesced's flat
  // buffer of every updated bf16 parameter is its transient under ZeRO-1.
  const double gather = dp > 1 && zero_stage >= 1 ? weights : 0.0;
  const double token_buffer = b.stage == 0 ? token_hidden * stack.first_stage_token_bytes : 0.0;
  m.optimizer_step_allocated = weights + ddp_gradients + category(b, memory::kGradients) +
                               category(b, memory::kOptimizerStates) + gather + token_buffer;
  // The caching allocator keeps its high-water mark (forward and backward set it unless the
  // step needs more), split into blocks that fit the requests only in part.
  const double long_lived = m.forward_backward_allocated - m.transient;
  m.reserved = std::max(long_lived * (1.0 + stack.static_overhead) + m.transient * (1.0 + stack.transient_overhead),
                        m.optimizer_step_allocated * (1.0 + stack.static_overhead));
  m.device_bytes = m.reserved + nccl + stack.context_bytes;
  return m;
}

}  // namespace rapidllm::validate
