#include "parallel/gemm_sharding.hpp"

#include <fmt/format.h>

#include "model/tp_share.hpp"
#include "parallel/tensor_parallel.hpp"
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

// C[M x N] = A[M x K] * B[K x N]; dA = dC * B^T (M x K, reduction over N);
// dB = A^T * dC (K x N, reduction over M). The result is replicated on every rank
// (gather_output) unless SP leaves it sharded along M.
std::vector<ShardedGemm> shard_gemm(const GemmModelSpec& g, int tp, bool tp_sp, double element_bytes) {
  if (tp < 1) throw InfeasibleError(fmt::format("tp must be >= 1 (got {})", tp));
  const bool sharded = tp > 1;
  const bool sp = sharded && tp_sp;
  const double c_bytes = static_cast<double>(g.m) * static_cast<double>(g.n) * element_bytes;
  const double a_bytes = static_cast<double>(g.m) * static_cast<double>(g.k) * element_bytes;
  if (sp) (void)model::tp_split(g.m, tp, "M (the sequence dimension sharded by tp_sp)");

  ShardedGemm fwd{GemmPass::forward, "forward C=A*B", {}, {}};
  ShardedGemm dgrad{GemmPass::backward_data, "backward dA=dC*B^T", {}, {}};
  ShardedGemm wgrad{GemmPass::backward_weight, "backward dB=A^T*dC", {}, {}};
  std::int64_t k = g.k;
  std::int64_t n = g.n;
  model::TpRole role = model::TpRole::none;
  if (sharded && g.shard_axis == ShardAxis::row) {
    k = model::tp_split(g.k, tp, "K (split by gemm_shard_axis: row)");  // each rank holds a partial C
    role = model::TpRole::row;
  } else if (sharded) {
    n = model::tp_split(g.n, tp, "N (split by gemm_shard_axis: column)");  // each rank owns N/tp columns of C
    role = model::TpRole::column;
  }
  fwd.local_shape = {g.m, n, k, 1};
  dgrad.local_shape = {g.m, k, n, 1};
  wgrad.local_shape = {k, n, g.m, 1};
  for (const auto& c : linear_collectives(role, sp, true, a_bytes, c_bytes)) {
    auto& pass = c.pass == model::Pass::forward ? fwd : dgrad;
    pass.collectives.push_back({c.op, c.bytes, std::string(c.tensor), c.before});
  }

  std::vector<ShardedGemm> out{fwd};
  if (g.backward) {
    out.push_back(dgrad);
    out.push_back(wgrad);
  }
  return out;
}

}  // namespace rapidllm::parallel
