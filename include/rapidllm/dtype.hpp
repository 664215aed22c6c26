// Numeric formats: storage width and which tensor-core throughput class they use.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rapidllm {

enum class DType { fp8, fp16, bf16, fp32 };

[[nodiscard]] double dtype_bytes(DType dtype);
[[nodiscard]] std::string_view dtype_name(DType dtype);
// "fp8", "fp16", "bf16", "fp32" (case-insensitive; "float16", "bfloat16", "float32" too).
[[nodiscard]] std::optional<DType> parse_dtype(std::string_view text);
// The dtype a bare byte count stands for in RAPID-LLM precision fields (1 -> fp8, 2 -> bf16,
// 4 -> fp32); nullopt for any other width.
[[nodiscard]] std::optional<DType> dtype_from_bytes(double bytes);

}  // namespace rapidllm
