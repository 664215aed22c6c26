#include "rapidllm/dtype.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace rapidllm {

double dtype_bytes(DType dtype) {
  switch (dtype) {
    case DType::fp8: return 1.0;
    case DType::fp16:
    case DType::bf16: return 2.0;
    case DType::fp32: return 4.0;
  }
  return 0.0;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::fp8: return "fp8";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp32: return "fp32";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "fp8" || lower == "float8" || lower == "e4m3" || lower == "e5m2") return DType::fp8;
  if (lower == "fp16" || lower == "float16" || lower == "half") return DType::fp16;
  if (lower == "bf16" || lower == "bfloat16") return DType::bf16;
  if (lower == "fp32" || lower == "float32" || lower == "float") return DType::fp32;
  return std::nullopt;
}

std::optional<DType> dtype_from_bytes(double bytes) {
  if (bytes == 1.0) return DType::fp8;
  if (bytes == 2.0) return DType::bf16;
  if (bytes == 4.0) return DType::fp32;
  return std::nullopt;
}

}  // namespace rapidllm
