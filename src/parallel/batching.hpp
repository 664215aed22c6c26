// How a training step's global batch is cut: per data-parallel rank, gradient-accumulation
// flushes of `micro_batches` micro-batches of `micro_batch_size` sequences each.
#pragma once

#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/model_spec.hpp"

namespace rapidllm::parallel {

struct Batching {
  int micro_batches = 1;     // per pipeline flush
  int micro_batch_size = 1;  // sequences
  int flushes = 1;           // gradient-accumulation steps per optimizer update
  // Per data-parallel rank and flush: sequences computed beyond the batch because mb does
  // not divide it (RAPID-LLM's rule: ceil(batch / mb) sequences per micro-batch).
  int padded_sequences = 0;
};

// global_batch_size = dp x flushes x micro_batches x micro_batch_size. The micro-batch
// size comes from parallelism.micro_batch_size when given (then micro-batches follow; it
// must divide), else from parallelism.mb micro-batches of ceil(batch / mb) sequences, as
// RAPID-LLM cuts them (padded_sequences says how many that adds). Throws InfeasibleError
// when dp x flushes does not divide the global batch.
[[nodiscard]] Batching training_batching(const LlmModelSpec& model, const ParallelismSpec& parallelism);

}  // namespace rapidllm::parallel
