// What both LLM predictors share: the validated scenario (architecture, degrees, rank
// placement), the op coster, and communication timing over the placed groups.
#pragma once

#include <string>

#include "compute/op_coster.hpp"
#include "exec/cost_cache.hpp"
#include "model/llm_dims.hpp"
#include "parallel/placement.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::exec {

class LlmContext {
 public:
  // Validates that the degrees divide the model (InfeasibleError otherwise).
  LlmContext(const HardwareSpec& hardware, const LlmModelSpec& model, const std::string& model_source,
             CostCache& costs);

  [[nodiscard]] const HardwareSpec& hardware() const { return hw_; }
  [[nodiscard]] const LlmModelSpec& spec() const { return spec_; }
  [[nodiscard]] const model::LlmDims& dims() const { return dims_; }
  [[nodiscard]] const parallel::Degrees& degrees() const { return degrees_; }
  [[nodiscard]] bool sequence_parallel() const { return sequence_parallel_; }
  [[nodiscard]] DType dtype() const { return dtype_; }
  [[nodiscard]] DType matmul_dtype() const { return hw_.sw.precision.matmul.dtype; }
  [[nodiscard]] double element_bytes() const { return hw_.sw.precision.tensor_format.bytes; }
  [[nodiscard]] compute::OpCoster& coster() { return coster_; }

  // One collective of `bytes` (nccl-tests size) over the groups of `p`; 0 for degree 1.
  [[nodiscard]] double collective_s(CollectiveOp op, double bytes, Parallelism p) const;
  // Network energy of that collective, summed over the group (each rank sends its share).
  [[nodiscard]] double collective_energy_j(CollectiveOp op, double bytes, Parallelism p) const;
  // A layer's TP exchanges in one direction: two all-reduces of the activations, or with
  // sequence parallelism an all-gather before and a reduce-scatter after each block.
  [[nodiscard]] double layer_tp_exchange_s(double activation_bytes) const;
  [[nodiscard]] double layer_tp_exchange_j(double activation_bytes) const;  // whole TP group
  // One message of `bytes` between neighbouring ranks of `p` (pipeline stages).
  [[nodiscard]] double send_recv_s(double bytes, Parallelism p) const;
  [[nodiscard]] double send_recv_energy_j(double bytes, Parallelism p) const;
  // Compute-communication overlap: `fraction` of the shorter of the two is hidden.
  [[nodiscard]] static double exposed(double comm_s, double compute_s, double fraction);

 private:
  const HardwareSpec& hw_;
  const LlmModelSpec& spec_;
  model::LlmDims dims_;
  parallel::Degrees degrees_;
  bool sequence_parallel_ = false;
  DType dtype_ = DType::bf16;
  parallel::Placement placement_;
  compute::OpCoster& coster_;
};

// The layers on each pipeline rank: L layers in pp x vpp chunks as even as possible,
// the first chunks taking the remainder; rank i holds chunks i, i+pp, ...
[[nodiscard]] std::vector<int> layers_per_stage(int layers, int pp, int vpp);

}  // namespace rapidllm::exec
