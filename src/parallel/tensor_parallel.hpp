// The collectives tensor parallelism adds around one linear layer Y[M x N] = X[M x K] W[K x N]
// (Megatron-LM's ColumnParallelLinear / RowParallelLinear), the one rule behind the
// distributed GEMM mode and every transformer layer:
//   column (W split along N):  forward: with SP all-gather the sequence-sharded X before the
//                              GEMM; else nothing, or all-gather Y when the result must be
//                              whole on every rank (gather_output). backward: all-reduce the
//                              partial dX (reduce-scatter it with SP).
//   row (W split along K):     forward: all-reduce the partial Y (reduce-scatter it with
//                              SP). backward: with SP all-gather the sequence-sharded dY
//                              before the GEMMs; else nothing.
// Sizes are nccl-tests sizes of the whole (unsharded) tensors.
#pragma once

#include <array>
#include <string_view>

#include "model/layer_ops.hpp"
#include "model/op_graph.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::parallel {

struct TpCollective {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;
  model::Pass pass = model::Pass::forward;
  bool before = false;           // the GEMMs of its pass wait for it (an input gather)
  std::string_view tensor;       // "A" (X), "C" (Y), "dA", "dC"
};

struct TpCollectives {
  std::array<TpCollective, 2> items{};
  int count = 0;
  [[nodiscard]] const TpCollective* begin() const { return items.data(); }
  [[nodiscard]] const TpCollective* end() const { return items.data() + count; }
};

// x_bytes, y_bytes: the whole X and Y. A role of none adds nothing.
[[nodiscard]] TpCollectives linear_collectives(model::TpRole role, bool sequence_parallel, bool gather_output,
                                               double x_bytes, double y_bytes);

}  // namespace rapidllm::parallel
