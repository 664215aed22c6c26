// What a ground-truth row's framework or engine column says about the software that ran it:
// the software-stack profile (software_stack.hpp) and whether its release predates
// FlashAttention. Columns are free text ("Megatron-LM v2 (2020)", "NeMo inference
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

}  // namespace rapidllm::validate
