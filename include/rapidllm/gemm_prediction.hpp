// Result of a (possibly tensor-parallel) GEMM prediction: per pass (forward, the two
// backward GEMMs), the local tile-model estimate and the collectives the sharding implies.
#pragma once

#include <string>
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/gemm.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm {

struct GemmCollectiveResult {
  std::string tensor;  // which tensor moves ("C", "dA", ...)
  bool before_gemm = false;
  CollectiveEstimate estimate;
  double exposed_time_s = 0.0;  // after overlap with the pass's compute
};

struct GemmPassResult {
  std::string name;
  GemmEstimate compute;  // one rank's local GEMM
  std::vector<GemmCollectiveResult> collectives;
  double communication_time_s = 0.0;
  double exposed_communication_time_s = 0.0;
  double time_s = 0.0;  // compute + exposed communication
};

struct GemmDynamicEnergy {
  double compute_j = 0.0;
  std::vector<std::pair<std::string, double>> memory_j;  // per memory level
  double network_j = 0.0;
  double total_j = 0.0;
};

struct GemmPrediction {
  GemmModelSpec spec;
  DType dtype = DType::bf16;
  int tp = 1;
  bool tp_sp = false;
  std::string network_dimension;  // the dimension carrying TP ("" when tp = 1)
  std::vector<GemmPassResult> passes;
  double time_s = 0.0;
  double compute_time_s = 0.0;
  double exposed_communication_time_s = 0.0;
  double flops = 0.0;                        // useful FLOPs of all passes, all ranks
  double achieved_flops_per_s = 0.0;         // flops / time_s (all ranks together)
  double peak_flops_per_s_per_gpu = 0.0;     // dense tensor-core peak of dtype
  double peak_memory_bytes = 0.0;            // operands + result of the largest pass, per GPU
  bool fits_in_memory = true;
  GemmDynamicEnergy energy;                  // all ranks
};

}  // namespace rapidllm
