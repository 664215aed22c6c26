#include <gtest/gtest.h>

#include "model/llm_dims.hpp"
#include "model/model_flops.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::model {
namespace {

LlmDims dims_of(const std::string& rel) {
  const std::string path = std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel;
  return llm_dims(std::get<LlmModelSpec>(load_model(path).workload), path);
}

TEST(ParameterCount, Llama2_7B) {
  // 32 x (4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096) + 2 x 32000 x 4096 + 4096 = 6,738,415,616.
  EXPECT_DOUBLE_EQ(parameter_count(dims_of("configs/models/llama2-7b.yaml")), 6738415616.0);
}

TEST(ParameterCount, Llama3_70B) {
  // GQA: q and o 8192^2 each, k and v 8192 x 1024 each, MLP 3 x 8192 x 28672, norms 2 x
  // 8192, per layer; 80 layers + 2 x 128256 x 8192 + 8192 = 70,553,706,496.
  EXPECT_DOUBLE_EQ(parameter_count(dims_of("configs/models/llama3.1-70b.yaml")), 70553706496.0);
}

TEST(ParameterCount, TiedEmbeddingsCountTheTableOnce) {
  LlmDims d = dims_of("configs/models/llama2-7b.yaml");
  const double untied = parameter_count(d);
  d.tied_embeddings = true;
  EXPECT_DOUBLE_EQ(untied - parameter_count(d), 32000.0 * 4096.0);
}

TEST(ModelFlops, SixNPlusCausalAttention) {
  const LlmDims d = dims_of("configs/models/llama3.1-8b.yaml");
  const double n = matmul_parameters(d);  // all but the input embedding and the final norm
  EXPECT_DOUBLE_EQ(n, parameter_count(d) - 128256.0 * 4096.0 - 4096.0);
  EXPECT_DOUBLE_EQ(training_flops_per_token(d, 8192), 6.0 * n + 6.0 * 32 * 8192.0 * 4096.0);
}

}  // namespace
}  // namespace rapidllm::model
