// The op graphs of one rank for one micro-batch: a transformer layer, the embedding and the
// LM head, with the collectives their parallelism adds (tensor_parallel.hpp's rule for every
// TP-split op, ring-attention gathers for CP, prefetched parameter gathers for ZeRO-3), and
// the step-level communication of a training step (pipeline sends, data-parallel
// gradient synchronisation, tied-embedding sync).
#pragma once

#include "model/llm_dims.hpp"
#include "model/op_graph.hpp"

namespace rapidllm::parallel {

struct PartSettings {
  bool training = true;             // forward and backward, else forward only
  double tp_overlap = 0.0;          // share of a layer's TP collectives hidden under its compute
  double cp_overlap = 0.0;          // share of the CP gathers hidden under attention
  double ep_overlap = 0.0;          // share of the MoE all-to-alls hidden under the layer's compute
  int cp = 1;
  model::Recompute recompute = model::Recompute::none;  // what a layer's backward re-runs
  // ZeRO-3: one layer's parameters gathered in forward and backward, its gradients
  // reduce-scattered, per rank (0 = not sharded).
  double zero3_parameter_bytes = 0.0;
  double zero3_gradient_bytes = 0.0;

  friend bool operator==(const PartSettings&, const PartSettings&) = default;
};

// Each builds into `out` (emptied first, its storage reused).
// `moe`: the layer's MLP is the mixture of experts (expert_parallel.hpp adds its collectives).
void layer_graph(const model::LlmDims& d, const model::LocalShape& s, const PartSettings& p, model::OpGraph& out,
                 bool moe = false);
void embedding_graph(const model::LlmDims& d, const model::LocalShape& s, const PartSettings& p, model::OpGraph& out);
// Training: the head over every token with the loss. Inference: the last position of
// each sequence, its vocabulary-parallel logits gathered.
void head_graph(const model::LlmDims& d, const model::LocalShape& s, const PartSettings& p, model::OpGraph& out);

// The communication of a training step outside the per-micro-batch graphs.
struct StepComms {
  model::CommOp boundary;        // activations (or their gradients) to the next pipeline stage
  model::CommOp gradient_sync;   // data-parallel: all-reduce (ZeRO-0) or reduce-scatter
  model::CommOp parameter_gather;  // ZeRO >= 1: updated parameters all-gathered (bytes 0 = none)
  model::CommOp embedding_sync;  // tied embeddings on the first and last stage (bytes 0 = none)
  // Expert parallelism: the dense gradients (everything but the routed experts) are
  // reduced over dp x ep hierarchically, reduce-scattered over ep before the DP collective
  // and gathered back after it (ZeRO-0: gradients; ZeRO >= 1: the updated parameters
  // after the DP parameter gather). Bytes 0 = none.
  model::CommOp ep_gradient_scatter;
  model::CommOp ep_gradient_gather;
  model::CommOp ep_parameter_gather;
};

struct StepCommInputs {
  double boundary_bytes = 0.0;
  double stage_parameters = 0.0;   // per rank and DP group, the stage with the most (dense / ep + experts)
  double ep_dense_parameters = 0.0;  // per rank, the dense ones reduced over ep first (0 when ep = 1)
  double gradient_bytes = 0.0;     // per parameter, as communicated
  double parameter_bytes = 0.0;    // per parameter
  int zero_stage = 0;              // 0 when dp = 1
  double tied_table_parameters = 0.0;  // per rank; 0 = untied or one stage
};

[[nodiscard]] StepComms training_step_comms(const StepCommInputs& in);

}  // namespace rapidllm::parallel
