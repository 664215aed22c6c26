#include "model/op_recompute.hpp"

namespace rapidllm::model {

std::vector<double> op_recompute_shares(const std::vector<Op>& ops) {
  std::vector<double> shares;
  shares.reserve(ops.size());
  int matmuls = 0;  // the layer's matmuls so far, in call order
  for (const Op& op : ops) {
    if (op.kind == OpKind::attention) {
      shares.push_back(0.0);  // saved
      continue;
    }
    if (op.kind != OpKind::gemm) {
      shares.push_back(1.0);
      continue;
    }
    // The parts share M and K: their FLOPs go as their widths.
    double total = 0.0;
    double recomputed = 0.0;
    const bool fused = op.matmul_columns[0] > 0;
    const std::size_t parts = fused ? op.matmul_columns.size() : 1;
    for (std::size_t i = 0; i < parts; ++i) {
      const double width = static_cast<double>(fused ? op.matmul_columns[i] : op.gemm.n);
      if (width <= 0.0) continue;
      ++matmuls;
      total += width;
      if (matmuls % 2 == 0) recomputed += width;  // every second matmul is not saved
    }
    shares.push_back(total > 0.0 ? recomputed / total : 0.0);
  }
  return shares;
}

}  // namespace rapidllm::model
