// One forward of an inference batch as a StepGraph: the prefill of the prompt, or one decode
// step at one cache length. The batch crosses the pipeline stage by stage: each stage's
// program receives the previous stage's activations, runs its layers (the first stage also
// the embedding, the last the head) with their TP, CP and EP collectives, and sends its
// output on. A blocking pipeline engine's handshake (sw_param.pipeline_transfer_stall) holds
// the sending stage once per hop, as the closed form counts it. The same simulator that
// plays a training step plays it on the cluster network, so faults, contention, traces and
// Chakra reach time to first token and time per output token.
#pragma once

#include <string_view>

#include "exec/llm_context.hpp"
#include "exec/step_graph.hpp"

namespace rapidllm::exec {

// `shape`: the batch's per-rank extents (decode: decode = true, kv_len the cache length);
// `boundary_bytes`: the activations one stage sends the next; `phase` names the nodes
// ("prefill" or "decode": "L12.decode.qkv_proj").
[[nodiscard]] StepGraph build_inference_step(LlmContext& ctx, const model::LocalShape& shape, double boundary_bytes,
                                             std::string_view phase);

// Prefill then the decode step as one graph, for an export (Chakra): the last stage samples
// the next token and sends its ids (4 bytes a sequence) to the first, where the decode step
// begins; each stage's decode waits for its own prefill work.
[[nodiscard]] StepGraph join_prefill_and_decode(const StepGraph& prefill, const StepGraph& decode, double token_bytes);

}  // namespace rapidllm::exec
