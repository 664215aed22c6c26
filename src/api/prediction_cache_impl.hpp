// What a PredictionCache holds: exec/'s kernel-cost cache, kept out of the public header.
#pragma once

#include "exec/cost_cache.hpp"
#include "rapidllm/predict.hpp"

namespace rapidllm {

struct PredictionCache::Impl {
  exec::CostCache costs;
};

}  // namespace rapidllm
