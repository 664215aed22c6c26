// What a published "micro-batch" means when a framework splits it over the pipeline.
#pragma once

#include <optional>
#include <string>

#include <fmt/format.h>

namespace rapidllm::validate {

// torchtitan's tables give each data-parallel rank's batch ("local batch size"); with
// pipeline parallelism its late-2024 releases split it into as many micro-batches as there
// are pipeline ranks unless told otherwise (experimental.pipeline_parallel_microbatches,
// default: the pp degree; torchtitan 9dec370, parallelisms/pipeline_llama.py). A local batch
// of 32 at pp 8 runs 8 micro-batches of 4. nullopt (and a reason) when pp does not divide it,
// which torchtitan rejects.
// Its looped schedules (interleaved 1F1B) put two stages on each pipeline rank when no split
// points are given (generate_split_points, same release).
inline constexpr int kTorchtitanStagesPerRank = 2;

[[nodiscard]] inline std::optional<int> torchtitan_micro_batch(int local_batch, int pp, std::string& reason) {
  if (pp <= 1) return local_batch;
  if (local_batch % pp != 0) {
    reason = fmt::format("torchtitan splits the local batch of {} into pp = {} micro-batches, which does not divide it",
                         local_batch, pp);
    return std::nullopt;
  }
  return local_batch / pp;
}

}  // namespace rapidllm::validate
