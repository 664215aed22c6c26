#include "parallel/batching.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/gemm.hpp"

namespace rapidllm::parallel {

Batching training_batching(const LlmModelSpec& model, const ParallelismSpec& par) {
  Batching b;
  b.flushes = model.gradient_accumulation_steps;
  // An MoE model's expert-parallel ranks are data-parallel for everything but the experts.
  const bool moe = model.moe.num_experts > 1;
  const long long replicas = 1LL * par.dp * (moe ? par.ep : 1);
  const long long per_flush_total = replicas * b.flushes;
  if (model.global_batch_size % per_flush_total != 0) {
    throw InfeasibleError(fmt::format("global_batch_size {} is not divisible by dp ({}){} x gradient_accumulation_steps ({})",
                                      model.global_batch_size, par.dp, moe ? fmt::format(" x ep ({})", par.ep) : "",
                                      b.flushes));
  }
  const long long per_flush = model.global_batch_size / per_flush_total;  // sequences per DP rank per flush
  // Micro-batch counts and sizes are ints, and a micro-batch's tokens a GEMM dimension.
  const long long mbs = par.micro_batch_size ? *par.micro_batch_size : (per_flush + par.mb - 1) / par.mb;
  const long long micro_batches = par.micro_batch_size ? per_flush / std::max(1, *par.micro_batch_size) : par.mb;
  if (micro_batches > std::numeric_limits<int>::max() || mbs > kMaxGemmDimension / std::max<long long>(1, model.seq_len)) {
    throw InfeasibleError(fmt::format(
        "{} micro-batch(es) of {} sequences x {} tokens per data-parallel rank: more than the model's 2^31 - 1 "
        "micro-batches or tokens per micro-batch; raise dp or parallelism.mb, or lower global_batch_size",
        micro_batches, mbs, model.seq_len));
  }
  if (par.micro_batch_size) {
    if (per_flush % *par.micro_batch_size != 0) {
      throw InfeasibleError(fmt::format("{} sequences per data-parallel rank and flush are not divisible by "
                                        "micro_batch_size {}",
                                        per_flush, *par.micro_batch_size));
    }
    b.micro_batch_size = *par.micro_batch_size;
    b.micro_batches = static_cast<int>(per_flush / *par.micro_batch_size);
  } else {
    b.micro_batches = par.mb;
    b.micro_batch_size = static_cast<int>((per_flush + par.mb - 1) / par.mb);
    b.padded_sequences = static_cast<int>(1LL * par.mb * b.micro_batch_size - per_flush);
  }
  return b;
}

}  // namespace rapidllm::parallel
