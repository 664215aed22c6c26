#include "parallel/gemm_sharding.hpp"

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::parallel {

std::string_view to_string(GemmPass pass) {
  switch (pass) {
    case GemmPass::forward: return "forward";
    case GemmPass::backward_data: return "backward_data";
    case GemmPass::backward_weight: return "backward_weight";
  }
  return "?";
}

namespace {

std::int64_t split(std::int64_t extent, int tp, const char* what) {
  if (extent % tp != 0) {
    throw InfeasibleError(fmt::format("{} = {} is not divisible by tp = {}; choose a tp that divides it", what,
                                      extent, tp));
  }
  return extent / tp;
}

}  // namespace

// C[M x N] = A[M x K] * B[K x N]; dA = dC * B^T (M x K, reduction over N);
// dB = A^T * dC (K x N, reduction over M).
std::vector<ShardedGemm> shard_gemm(const GemmModelSpec& g, int tp, bool tp_sp, double element_bytes) {
  if (tp < 1) throw InfeasibleError(fmt::format("tp must be >= 1 (got {})", tp));
  const bool sharded = tp > 1;
  const bool sp = sharded && tp_sp;
  const double c_bytes = static_cast<double>(g.m) * static_cast<double>(g.n) * element_bytes;
  const double a_bytes = static_cast<double>(g.m) * static_cast<double>(g.k) * element_bytes;
  if (sp) split(g.m, tp, "M (the sequence dimension sharded by tp_sp)");

  ShardedGemm fwd{GemmPass::forward, "forward C=A*B", {}, {}};
  ShardedGemm dgrad{GemmPass::backward_data, "backward dA=dC*B^T", {}, {}};
  ShardedGemm wgrad{GemmPass::backward_weight, "backward dB=A^T*dC", {}, {}};

  if (!sharded) {
    fwd.local_shape = {g.m, g.n, g.k, 1};
    dgrad.local_shape = {g.m, g.k, g.n, 1};
    wgrad.local_shape = {g.k, g.n, g.m, 1};
  } else if (g.shard_axis == ShardAxis::row) {
    // B split along K (its rows), A along its columns: each rank holds a partial C.
    const std::int64_t k_local = split(g.k, tp, "K (split by gemm_shard_axis: row)");
    fwd.local_shape = {g.m, g.n, k_local, 1};
    fwd.collectives.push_back({sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce, c_bytes, "C", false});
    dgrad.local_shape = {g.m, k_local, g.n, 1};
    wgrad.local_shape = {k_local, g.n, g.m, 1};
    // With SP the incoming dC is sharded along M like C was; both backward GEMMs need it whole.
    if (sp) dgrad.collectives.push_back({CollectiveOp::all_gather, c_bytes, "dC", true});
  } else {
    // B split along N (its columns): each rank owns N/tp columns of C.
    const std::int64_t n_local = split(g.n, tp, "N (split by gemm_shard_axis: column)");
    fwd.local_shape = {g.m, n_local, g.k, 1};
    if (sp) {
      fwd.collectives.push_back({CollectiveOp::all_gather, a_bytes, "A", true});  // A arrives sharded along M
    } else {
      fwd.collectives.push_back({CollectiveOp::all_gather, c_bytes, "C", false});  // replicate the output
    }
    dgrad.local_shape = {g.m, g.k, n_local, 1};
    dgrad.collectives.push_back({sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce, a_bytes, "dA", false});
    wgrad.local_shape = {g.k, n_local, g.m, 1};
  }

  std::vector<ShardedGemm> out{fwd};
  if (g.backward) {
    out.push_back(dgrad);
    out.push_back(wgrad);
  }
  return out;
}

}  // namespace rapidllm::parallel
