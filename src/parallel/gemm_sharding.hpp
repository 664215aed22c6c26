// Tensor-parallel sharding of one GEMM (RAPID-LLM's distributed GEMM mode): the local GEMM
// each rank runs and the collectives the chosen shard axis implies, for forward and
// backward. The result is replicated on every rank, like a single-GPU GEMM, unless
// sequence parallelism leaves it sharded along M (Megatron SP convention).
#pragma once

#include <string>
#include <vector>

#include "rapidllm/gemm.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::parallel {

enum class GemmPass { forward, backward_data, backward_weight };

struct ShardedCollective {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;  // nccl-tests size: the full (unsharded) tensor for all-reduce; the
                       // gathered output for all-gather; the input of reduce-scatter
  std::string tensor;  // which tensor moves ("C", "dA", ...), for reports
  bool before_gemm = false;  // true when the GEMM waits for it (input all-gather)
};

struct ShardedGemm {
  GemmPass pass = GemmPass::forward;
  std::string name;      // "forward C=A*B", "backward dA=dC*B^T", ...
  GemmShape local_shape; // what one rank computes
  std::vector<ShardedCollective> collectives;
};

// tp ranks share the GEMM; tp_sp selects sequence-parallel collectives. Throws
// InfeasibleError when the sharded dimension is not divisible by tp.
[[nodiscard]] std::vector<ShardedGemm> shard_gemm(const GemmModelSpec& gemm, int tp, bool tp_sp,
                                                  double element_bytes);

[[nodiscard]] std::string_view to_string(GemmPass pass);

}  // namespace rapidllm::parallel
