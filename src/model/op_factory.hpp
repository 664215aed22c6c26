// Small constructors of the ops layer_ops and moe_ops list.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/layer_ops.hpp"

namespace rapidllm::model {

inline Op gemm_op(std::string_view name, OpClass cls, TpRole role, std::int64_t m, std::int64_t n, std::int64_t k,
                  std::int64_t batch = 1) {
  Op op;
  op.name = name;
  op.cls = cls;
  op.kind = OpKind::gemm;
  op.tp_role = role;
  op.gemm = GemmShape{m, n, k, batch};
  return op;
}

// A memory-bound kernel: `reads_writes` elements forward; backward moves `bwd` elements
// (its gradient inputs, saved tensors and gradient outputs).
inline Op memory_op(std::string_view name, OpClass cls, double reads_writes, double bwd, double element_bytes) {
  Op op;
  op.name = name;
  op.cls = cls;
  op.kind = OpKind::memory;
  op.forward_bytes = reads_writes * element_bytes;
  op.backward_bytes = bwd * element_bytes;
  return op;
}

// The FP8 casts around a linear layer with input T x K and output T x N (Transformer
// Engine): forward quantizes the input (read 2 B, write 1 B per element) unless the
// preceding norm already wrote FP8 (TE's fused LayerNormLinear); backward cast-transposes
// the output gradient (read 2 B, write 1 B twice) and transposes the saved FP8 input
// (read and write 1 B).
inline Op fp8_casts(std::string_view name, double tokens, std::int64_t k, std::int64_t n, bool input_from_norm) {
  Op op;
  op.name = name;
  op.cls = OpClass::elementwise;
  op.kind = OpKind::memory;
  op.forward_bytes = input_from_norm ? 0.0 : 3.0 * tokens * static_cast<double>(k);
  op.backward_bytes = 4.0 * tokens * static_cast<double>(n) + 2.0 * tokens * static_cast<double>(k);
  return op;
}

}  // namespace rapidllm::model
