// The memory-bound ops around a layer's GEMMs whose cost depends on how the stack runs them
// (SoftwareSpec::elementwise_kernels): a norm, a SiLU-gated activation and the rotary
// embedding, either as one fused kernel each (Transformer Engine, torch.compile, Triton) or
// as the PyTorch eager op sequence of the reference implementations (Meta's Llama, Hugging
// Face's, torchtitan's), one kernel per op with fp32 intermediates. The byte counts are
// derived in elementwise_ops.cpp op by op; docs/software-stacks.md sums them up.
#pragma once

#include <string_view>

#include "model/layer_ops.hpp"
#include "model/llm_dims.hpp"

namespace rapidllm::model {

// A norm over `elements` activations (tokens x width). LayerNorm is one ATen kernel each
// way even in eager PyTorch (F.layer_norm): only RMSNorm differs.
[[nodiscard]] Op norm_op(std::string_view name, NormKind norm, double elements, const LocalShape& s);
// silu(gate) x up over `elements` = tokens x ffn (the gate and up halves each that wide).
[[nodiscard]] Op swiglu_op(std::string_view name, OpClass cls, double elements, const LocalShape& s);
// Rotary embedding of `tensors` tensors (queries and keys) holding `elements` in all.
[[nodiscard]] Op rotary_op(std::string_view name, double elements, int tensors, const LocalShape& s);

}  // namespace rapidllm::model
