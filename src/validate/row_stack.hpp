// What a ground-truth row's columns say about the software that ran it: the software-stack
// profile (software_stack.hpp), whether its release predates FlashAttention, and its ZeRO
// stage. Columns are free text ("Megatron-LM v2 (2020)", "NeMo inference
// (TensorRT-LLM backend, 2023)"), read by name, version and year.
#pragma once

#include <string_view>

namespace rapidllm::validate {

// The profile the column names; "auto" (the run type's default) when it names none.
[[nodiscard]] std::string_view row_stack_name(std::string_view column);

// Whether the column names a release of 2022 or earlier, by its year or as a Megatron-LM
// version before Megatron-Core: those runs computed attention unfused (FlashAttention
// reached Megatron-LM, Megatron-DeepSpeed and the FSDP stacks in 2023).
[[nodiscard]] bool predates_flash_attention(std::string_view column);

// Whether a column the nemo-24 profile reads ran Megatron's cross-entropy one PyTorch op per
// step (software_stack.hpp: CrossEntropyKernel::megatron_unfused): Megatron-LM's own scripts
// (a Megatron-Core column that names no NeMo: --cross-entropy-loss-fusion is off by
// default) and NeMo before 24.07, whose Megatron-Core predates the compiled path (core r0.8).
[[nodiscard]] bool runs_unfused_megatron_cross_entropy(std::string_view column);

// Whether the column names Megatron-LM before v2.0 (a 2019-2020 release): its --batch-size
// was each rank's whole batch, run in one forward and backward; micro-batches arrived with
// v2.0 (January 2021), when --batch-size became --micro-batch-size.
[[nodiscard]] bool predates_megatron_micro_batches(std::string_view column);

// The ZeRO stage a zero_fsdp column names: Megatron's distributed optimizer shards the
// optimizer states (1), FSDP's SHARD_GRAD_OP the gradients too (2), any other FSDP the
// parameters (3), DeepSpeed's "ZeRO-N" / "ZeRO stage N" N; 0 otherwise.
[[nodiscard]] int zero_stage_of(std::string_view column);

}  // namespace rapidllm::validate
