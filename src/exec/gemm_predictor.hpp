// Distributed GEMM prediction: shard over TP (parallel/), time each local GEMM with the
// tile model (compute/) and each implied collective with the analytical network model
// (network/), and combine them with the configured compute/communication overlap.
#pragma once

#include "rapidllm/gemm_prediction.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::exec {

// Throws InfeasibleError when the sharding or the network cannot run it.
[[nodiscard]] GemmPrediction predict_gemm(const HardwareSpec& hardware, const GemmModelSpec& gemm, DType dtype);

}  // namespace rapidllm::exec
