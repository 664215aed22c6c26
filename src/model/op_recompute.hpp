// torchtitan's selective op activation checkpointing ("op" mode, torchtitan's
// parallelize_llama.py / activation_checkpoint.py): inside each checkpointed layer it saves
// the outputs of matmuls and attention, except every second matmul counted in forward call
// order; backward replays the layer's forward and recomputes what was not saved: those
// matmuls and every other op (norms, activations, rotary embedding, residual adds).
#pragma once

#include <vector>

#include "model/layer_ops.hpp"

namespace rapidllm::model {

// For each op of a layer's forward, the share of its forward time backward recomputes: a
// GEMM's even-numbered matmuls (its parts, Op::matmul_columns, counted over the layer in
// order) by FLOPs, nothing of attention, all of every memory-bound op.
[[nodiscard]] std::vector<double> op_recompute_shares(const std::vector<Op>& ops);

}  // namespace rapidllm::model
