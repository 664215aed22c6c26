#include "model/tp_share.hpp"

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::model {

std::int64_t tp_split(std::int64_t extent, int tp, std::string_view what) {
  if (tp < 1) throw InfeasibleError(fmt::format("tp must be >= 1 (got {})", tp));
  if (extent % tp != 0) throw InfeasibleError(fmt::format("{} = {} is not divisible by tp = {}", what, extent, tp));
  return extent / tp;
}

TpShare tp_share(const LlmDims& d, int tp) {
  TpShare s;
  s.heads = tp_split(d.heads, tp, "num_heads");
  if (d.kv_heads % tp != 0 && tp % d.kv_heads != 0) {
    throw InfeasibleError(fmt::format("kv_heads = {} and tp = {}: one must divide the other", d.kv_heads, tp));
  }
  s.kv_heads = local_kv_heads(d.kv_heads, tp);
  // A model whose every MLP is a mixture of experts never runs the dense width.
  s.ffn = d.has_dense_layers() ? tp_split(d.ffn, tp, "intermediate_size") : d.ffn / tp;
  s.vocab = d.vocab / tp;
  return s;
}

}  // namespace rapidllm::model
