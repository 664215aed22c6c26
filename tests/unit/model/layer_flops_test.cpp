// The kernels of a layer do exactly the arithmetic of the closed forms.
#include <gtest/gtest.h>

#include "compute/op_coster.hpp"
#include "model/layer_ops.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm::model {
namespace {

HardwareSpec a100() { return load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/A100_SXM4_80GB.yaml"); }

LlmDims gpt(std::int64_t h, std::int64_t heads) {
  LlmDims d;
  d.hidden = h;
  d.heads = heads;
  d.kv_heads = heads;
  d.head_dim = h / heads;
  d.ffn = 4 * h;
  d.vocab = 51200;
  d.layers = 1;
  d.mlp = MlpKind::gelu;
  d.norm = NormKind::layernorm;
  d.flash_attention = false;  // the closed form counts the full s x s scores
  return d;
}

double forward_flops(const std::vector<Op>& ops, compute::OpCoster& coster) {
  double f = 0.0;
  for (const auto& op : ops) f += coster.time(op).forward_flops;
  return f;
}

TEST(LayerFlops, GptLayerForwardIsTheClosedForm) {
  // Korthikanti et al. / Narayanan et al.: 24 b s h^2 + 4 b s^2 h per layer forward.
  const HardwareSpec hw = a100();
  compute::OpCoster coster(hw, DType::bf16, DType::bf16);
  for (auto [b, s, h, a] : {std::array<int, 4>{1, 2048, 4096, 32}, {4, 1024, 2048, 16}}) {
    LocalShape shape;
    shape.micro_batch = b;
    shape.seq = s;
    const double bd = b, sd = s, hd = h;
    const double expected = 24.0 * bd * sd * hd * hd + 4.0 * bd * sd * sd * hd;
    EXPECT_DOUBLE_EQ(forward_flops(transformer_layer_ops(gpt(h, a), shape), coster), expected);
  }
}

TEST(LayerFlops, TensorParallelismDividesTheWork) {
  const HardwareSpec hw = a100();
  compute::OpCoster coster(hw, DType::bf16, DType::bf16);
  LocalShape whole;
  whole.micro_batch = 2;
  whole.seq = 2048;
  LocalShape split = whole;
  split.tp = 8;
  const LlmDims d = gpt(4096, 32);
  EXPECT_DOUBLE_EQ(forward_flops(transformer_layer_ops(d, split), coster),
                   forward_flops(transformer_layer_ops(d, whole), coster) / 8.0);
}

TEST(LayerFlops, FlashSkipsTheCausalUpperTriangle) {
  const HardwareSpec hw = a100();
  compute::OpCoster coster(hw, DType::bf16, DType::bf16);
  AttentionShape s{1, 32, 32, 4096, 4096, 128, true, true, 128, 2.0, 2.0};
  Op op;
  op.kind = OpKind::attention;
  op.attention = s;
  // 32 key blocks of 128: 32*33/2 of the 32*32 blocks run.
  const double full = 4.0 * 32 * 4096.0 * 4096.0 * 128;
  EXPECT_DOUBLE_EQ(coster.time(op).forward_flops, full * (33.0 / 64.0));
  op.attention.causal = false;
  EXPECT_DOUBLE_EQ(coster.time(op).forward_flops, full);
}

TEST(LayerFlops, SequenceParallelShardsOnlyNormsAndResiduals) {
  LocalShape sp;
  sp.micro_batch = 1;
  sp.seq = 4096;
  sp.tp = 4;
  sp.sequence_parallel = true;
  EXPECT_EQ(sp.tokens(), 4096);
  EXPECT_EQ(sp.norm_tokens(), 1024);
  sp.cp = 2;
  EXPECT_EQ(sp.tokens(), 2048);
}

}  // namespace
}  // namespace rapidllm::model
