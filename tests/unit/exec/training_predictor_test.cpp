#include <numeric>

#include <gtest/gtest.h>

#include "compute/op_coster.hpp"
#include "exec/training_predictor.hpp"
#include "llm_fixtures.hpp"
#include "model/layer_ops.hpp"
#include "model/llm_dims.hpp"
#include "network/analytical_collectives.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/software_stack.hpp"

namespace rapidllm::exec {
namespace {

using testing::shipped_hardware;
using testing::shipped_model;

double breakdown_sum(const TrainingPrediction& p) {
  return std::accumulate(p.breakdown.begin(), p.breakdown.end(), 0.0,
                         [](double a, const auto& e) { return a + e.second; });
}

double category(const TrainingPrediction& p, const std::string& name) {
  for (const auto& [n, s] : p.breakdown) {
    if (n == name) return s;
  }
  return 0.0;
}

TEST(TrainingPredictor, BreakdownSumsToTheStepAndThroughputFollows) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.tp = 2;
  hw.parallelism.tp_sp = true;
  hw.parallelism.pp = 2;
  hw.parallelism.dp = 2;
  hw.parallelism.mb = 8;
  hw.sw.dp_zero_stage = 1;
  const LlmModelSpec m = shipped_model("llama3.1-8b");
  const TrainingPrediction p = predict_training(hw, m, "test");
  EXPECT_EQ(p.num_gpus, 8);
  EXPECT_EQ(p.micro_batches, 8);
  EXPECT_EQ(p.micro_batch_size, 128 / (2 * 8));
  EXPECT_NEAR(breakdown_sum(p), p.step_time_s, 1e-9 * p.step_time_s);
  EXPECT_DOUBLE_EQ(p.tokens_per_s, 128.0 * 8192.0 / p.step_time_s);
  EXPECT_GT(category(p, "communication.tp"), 0.0);
  EXPECT_GT(category(p, "communication.pp"), 0.0);
  EXPECT_GT(p.mfu, 0.0);
  EXPECT_LT(p.mfu, 1.0);
}

// Llama-3.1-8B over pp 4 in 8 micro-batches of one sequence, with a negligible embedding
// and head: four (near-)equal stages of 8 layers.
struct FourStagePipeline {
  HardwareSpec hw = [] {
    HardwareSpec h = shipped_hardware("H100_SXM5_80GB");
    h.parallelism.pp = 4;
    h.parallelism.mb = 8;
    return h;
  }();
  LlmModelSpec m = [] {
    LlmModelSpec spec = shipped_model("llama3.1-8b");
    spec.global_batch_size = 8;
    spec.vocab_size = 256;
    return spec;
  }();
};

TEST(TrainingPredictor, PipelineBubbleFollowsTheSchedule) {
  auto [hw, m] = FourStagePipeline{};
  const TrainingPrediction one_f_one_b = predict_training(hw, m, "test");
  EXPECT_NEAR(one_f_one_b.pipeline_bubble_fraction, 3.0 / 11.0, 0.01);  // (p-1)/(m+p-1)
  hw.parallelism.pp_schedule = PipelineSchedule::gpipe;
  EXPECT_DOUBLE_EQ(predict_training(hw, m, "test").step_time_s, one_f_one_b.step_time_s);
  hw.parallelism.pp_schedule = PipelineSchedule::interleaved_1f1b;
  hw.parallelism.vpp = 2;
  const TrainingPrediction interleaved = predict_training(hw, m, "test");
  EXPECT_LT(interleaved.pipeline_bubble_fraction, one_f_one_b.pipeline_bubble_fraction);
  EXPECT_NEAR(interleaved.pipeline_bubble_fraction, 3.0 / 19.0, 0.01);  // (p-1)/(v m + p - 1)
}

TEST(TrainingPredictor, ABlockingPipelineEngineStallsEachTransfer) {
  auto [hw, m] = FourStagePipeline{};
  const TrainingPrediction asynchronous = predict_training(hw, m, "test");
  const double h = 0.25;
  hw.sw.pipeline_transfer_stall_s = h;
  const TrainingPrediction blocking = predict_training(hw, m, "test");
  // A middle stage receives and sends each way: 4h per micro-batch for all 8 of them. On
  // the fill and drain path the other three stages' 4h + 2h + 2h count half (a hop's two
  // ends stall together): (4 x 8 + 4) h. (Without stalls the last stage, with the head,
  // was critical by 0.2 ms of pipeline sends less: hence the tolerance.)
  EXPECT_NEAR(blocking.step_time_s - asynchronous.step_time_s, (4 * 8 + 4) * h, 1e-3);
  EXPECT_NEAR(category(blocking, "communication.pp") - category(asynchronous, "communication.pp"), 4 * 8 * h, 1e-2);
  EXPECT_NEAR(breakdown_sum(blocking), blocking.step_time_s, 1e-9 * blocking.step_time_s);
}

// Llama-2-7B over 8 data-parallel ranks, one sequence each: with tp 1 they fill one NVLink
// node, so a data-parallel collective is one collective on that dimension.
struct EightWayDataParallel {
  HardwareSpec hw = [] {
    HardwareSpec h = shipped_hardware("H100_SXM5_80GB");
    h.parallelism.dp = 8;
    h.parallelism.mb = 1;
    return h;
  }();
  LlmModelSpec m = [] {
    LlmModelSpec spec = shipped_model("llama2-7b");
    spec.global_batch_size = 8;
    return spec;
  }();
  double params = model::parameter_count(model::llm_dims(m, "test"));

  // `op` over the 8 ranks on `bytes_per_param` bytes of every parameter.
  [[nodiscard]] double collective_s(CollectiveOp op, double bytes_per_param) const {
    return network::estimate_collective(op, params * bytes_per_param, {GroupSpan{&hw.network.dimensions[0], 8}},
                                        hw.execution)
        .time_s;
  }
};

TEST(TrainingPredictor, OneGradientBufferAfterBackwardExposesTheWholeAllReduce) {
  // Megatron-LM 2020's DDP: every gradient all-reduced in one buffer once backward is done.
  auto [hw, m, params] = EightWayDataParallel{};
  const TrainingPrediction bucketed = predict_training(hw, m, "test");
  hw.sw.dp_bucket_params = kOneGradientBuffer;
  const TrainingPrediction one_buffer = predict_training(hw, m, "test");
  const double exposed =
      EightWayDataParallel{}.collective_s(CollectiveOp::all_reduce, hw.sw.precision.grad_communication.bytes);
  EXPECT_NEAR(category(one_buffer, "communication.dp"), exposed, 1e-6 * exposed);
  // 40M-parameter buckets leave only the last one after backward.
  EXPECT_LT(category(bucketed, "communication.dp"), 0.1 * exposed);
  EXPECT_NEAR(one_buffer.step_time_s - bucketed.step_time_s,
              exposed - category(bucketed, "communication.dp"), 1e-6 * one_buffer.step_time_s);
}

TEST(TrainingPredictor, AZeroGatherBeforeTheNextStepIsExposedWhole) {
  // ZeRO-1 over 8 data-parallel ranks in one node: the updated bf16 parameters are
  // all-gathered after the optimizer. Megatron's distributed optimizer hides them behind
  // the next step's forward; nanotron's optimizer.step() gathers them before it returns.
  auto [hw, m, params] = EightWayDataParallel{};
  hw.sw.dp_zero_stage = 1;
  const TrainingPrediction overlapped = predict_training(hw, m, "test");
  hw.sw.zero_gather_overlap = false;
  const TrainingPrediction blocking = predict_training(hw, m, "test");
  const double gather = EightWayDataParallel{}.collective_s(CollectiveOp::all_gather, hw.sw.precision.parameters.bytes);
  // A micro-batch's forward (4096 tokens of a 7B model) outlasts the gather, so only the
  // last 40M-parameter bucket of it was exposed; now all of it is.
  const double last_bucket = hw.sw.dp_bucket_params / params;
  EXPECT_NEAR(blocking.step_time_s - overlapped.step_time_s, gather * (1.0 - last_bucket), 1e-6 * gather);
  EXPECT_NEAR(category(blocking, "communication.dp") - category(overlapped, "communication.dp"),
              gather * (1.0 - last_bucket), 1e-6 * gather);
  // The whole-step simulation adds its gather chain, less the last bucket it hid. It runs
  // 40M-parameter buckets, an all-gather each, which the single collective above does not
  // pay latency for: measured 16 % more.
  TrainingRunOptions o;
  o.simulate_step = true;
  const double simulated_blocking = predict_training(hw, m, "test", nullptr, o).step_time_s;
  hw.sw.zero_gather_overlap = true;
  const double simulated_overlapped = predict_training(hw, m, "test", nullptr, o).step_time_s;
  EXPECT_NEAR((simulated_blocking - simulated_overlapped) / (gather * (1.0 - last_bucket)), 1.16, 0.02);
}

TEST(TrainingPredictor, TheStacksHostTimeIsPaidOnEveryMicroBatch) {
  // A trainer's host time on each micro-batch (Composer's slicing and FSDP's root
  // synchronisation) holds the GPUs idle: the step lasts that much longer per micro-batch,
  // in both executions.
  auto [hw, m, params] = EightWayDataParallel{};
  hw.parallelism.mb = 4;
  m.global_batch_size = 32;  // 4 micro-batches of one sequence on each of the 8 ranks
  hw.sw.micro_batch_overhead_s = 0.0;
  const TrainingPrediction without = predict_training(hw, m, "test");
  ASSERT_EQ(without.micro_batches * without.gradient_accumulation, 4);
  hw.sw.micro_batch_overhead_s = 0.125;
  const TrainingPrediction with = predict_training(hw, m, "test");
  EXPECT_NEAR(with.step_time_s - without.step_time_s, 4 * 0.125, 1e-12);
  EXPECT_DOUBLE_EQ(category(with, "host_overhead"), 4 * 0.125);
  EXPECT_DOUBLE_EQ(category(without, "host_overhead"), 0.0);
  EXPECT_NEAR(with.tokens_per_s / without.tokens_per_s, without.step_time_s / with.step_time_s, 1e-12);
  TrainingRunOptions o;
  o.simulate_step = true;
  const TrainingPrediction simulated = predict_training(hw, m, "test", nullptr, o);
  hw.sw.micro_batch_overhead_s = 0.0;
  const TrainingPrediction simulated_without = predict_training(hw, m, "test", nullptr, o);
  EXPECT_NEAR(simulated.step_time_s - simulated_without.step_time_s, 4 * 0.125, 1e-12);
  EXPECT_DOUBLE_EQ(category(simulated, "host_overhead"), 4 * 0.125);
}

// Llama-2-7B on an A100 in 4 micro-batches of one sequence.
struct FourMicroBatches {
  HardwareSpec hw = [] {
    HardwareSpec h = shipped_hardware("A100_SXM4_80GB");
    h.parallelism.mb = 4;
    return h;
  }();
  LlmModelSpec m = [] {
    LlmModelSpec s = shipped_model("llama2-7b");
    s.global_batch_size = 4;
    return s;
  }();
};

TEST(TrainingPredictor, FullRecomputeRepeatsTheLayerForward) {
  auto [hw, m] = FourMicroBatches{};
  hw.sw.recompute = ActivationRecompute::selective;
  const TrainingPrediction selective = predict_training(hw, m, "test");
  EXPECT_DOUBLE_EQ(category(selective, "compute.recompute"), 0.0);  // flash recomputes inside its kernel
  hw.sw.recompute = ActivationRecompute::full;
  const TrainingPrediction full = predict_training(hw, m, "test");
  // Recompute = the layers' forward: about a third of forward + backward (2x forward).
  double layer_work = 0.0;
  for (const char* c : {"compute.qkv_projection", "compute.attention", "compute.output_projection", "compute.mlp",
                        "compute.norm_elementwise"}) {
    layer_work += category(full, c);
  }
  EXPECT_NEAR(category(full, "compute.recompute") / layer_work, 1.0 / 3.0, 0.05);
  EXPECT_NEAR(full.step_time_s - selective.step_time_s, category(full, "compute.recompute"), 1e-9);
}

// torchtitan's selective op checkpointing on Llama-2-7B (MHA: wk is a third of QKV): backward
// recomputes wk, wo and w3 and every memory-bound op of each layer's forward, exactly what the
// step adds over no recompute; the event executor and the whole-step simulation agree.
TEST(TrainingPredictor, OpLevelRecomputeRepeatsTheUnsavedForwardOps) {
  auto [hw, m] = FourMicroBatches{};
  hw.sw.recompute = ActivationRecompute::none;
  const TrainingPrediction none = predict_training(hw, m, "test");
  hw.sw.recompute = ActivationRecompute::op;
  const TrainingPrediction op = predict_training(hw, m, "test");
  EXPECT_NEAR(op.step_time_s - none.step_time_s, category(op, "compute.recompute"), 1e-9);
  // Per layer: a third of QKV's forward, the output projection's, half of gate/up's, and the
  // forward of every norm, activation, rotary and residual op; 32 layers, 4 micro-batches.
  const model::LlmDims d = model::llm_dims(m, "test");
  model::LocalShape s;
  s.micro_batch = 1;
  s.seq = m.seq_len;
  compute::OpCoster coster(hw, DType::bf16, DType::bf16);
  double per_layer = 0.0;
  for (const model::Op& o : model::transformer_layer_ops(d, s)) {
    const double forward = coster.time(o).forward_s;
    if (o.name == "qkv_projection") per_layer += forward / 3.0;
    if (o.name == "output_projection") per_layer += forward;
    if (o.name == "mlp_gate_up") per_layer += forward / 2.0;
    if (o.kind == model::OpKind::memory) per_layer += forward;
  }
  EXPECT_NEAR(category(op, "compute.recompute"), per_layer * d.layers * 4, 1e-6 * per_layer);
  EXPECT_NEAR(predict_training(hw, m, "test", nullptr, ExecutorKind::event).step_time_s / op.step_time_s, 1.0, 1e-6);
  TrainingRunOptions simulated;
  simulated.simulate_step = true;
  EXPECT_NEAR(predict_training(hw, m, "test", nullptr, simulated).step_time_s / op.step_time_s, 1.0, 0.02);
}

// The loss's logits on the last stage: 4 + 2 bytes each for Megatron's cross-entropy (an fp32
// copy beside the bf16 logits, worked in place, compiled or not; the fused kernel is counted
// the same), 12 for F.cross_entropy on an fp32 upcast (backward holds the log-softmax output,
// its incoming gradient and the one it passes on).
TEST(TrainingPredictor, AnEagerCrossEntropyHoldsTwelveBytesPerLogit) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  LlmModelSpec m = shipped_model("llama3.1-8b");
  m.global_batch_size = 1;
  const auto temporaries = [&](CrossEntropyKernel kernel) {
    hw.sw.cross_entropy = kernel;
    for (const auto& [name, bytes] : training_memory(hw, m, "test").memory.bytes) {
      if (name == "temporaries") return bytes;
    }
    return 0.0;
  };
  const double logits = 8192.0 * 128256.0;
  EXPECT_DOUBLE_EQ(temporaries(CrossEntropyKernel::fused), logits * 6.0);
  EXPECT_DOUBLE_EQ(temporaries(CrossEntropyKernel::megatron), logits * 6.0);
  EXPECT_DOUBLE_EQ(temporaries(CrossEntropyKernel::megatron_unfused), logits * 6.0);
  EXPECT_DOUBLE_EQ(temporaries(CrossEntropyKernel::eager), logits * 12.0);
}

// The policy counts aten.mm calls of dense layers: MoE layers (grouped expert GEMMs) are refused.
TEST(TrainingPredictor, OpLevelRecomputeRefusesMoeLayers) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  LlmModelSpec m = shipped_model("llama3.1-8b");
  m.moe.num_experts = 8;
  m.moe.top_k = 2;
  m.moe.moe_intermediate_size = 4096;
  hw.sw.recompute = ActivationRecompute::op;
  EXPECT_THROW((void)predict_training(hw, m, "test"), InfeasibleError);
}

// Megatron's alltoall dispatcher gathers the received rows over the TP group and
// reduce-scatters them back with plain NCCL calls: Transformer Engine's userbuffer overlap
// of the linear layers (tp_sp_overlap) hides the layer's own TP collectives, not these.
TEST(TrainingPredictor, TheDispatchersTpCollectivesHideOnlyWithTheDispatch) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  LlmModelSpec m = shipped_model("llama3.1-8b");
  m.global_batch_size = 16;
  hw.parallelism.micro_batch_size = 1;
  hw.parallelism.tp = 2;
  hw.parallelism.tp_sp = true;
  hw.parallelism.dp = 4;
  hw.network.overlap.tp_sp_overlap = 1.0;
  // The dense model's layers hide their TP collectives; what shows is outside the layers
  // (the vocabulary-parallel embedding and head).
  const double outside_layers = category(predict_training(hw, m, "test"), "communication.tp");

  m.moe.num_experts = 8;
  m.moe.top_k = 2;
  m.moe.moe_intermediate_size = 4096;
  hw.parallelism.ep = 4;
  hw.parallelism.dp = 1;
  const double exposed = category(predict_training(hw, m, "test"), "communication.tp");
  EXPECT_GT(exposed, 10.0 * outside_layers);
  hw.network.overlap.ep_overlap = 1.0;  // a dispatch hidden under compute (DualPipe-like)
  EXPECT_NEAR(category(predict_training(hw, m, "test"), "communication.tp"), outside_layers, 1e-9);
}

TEST(TrainingPredictor, DataParallelismAddsOnlyGradientSynchronisation) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  LlmModelSpec m = shipped_model("llama3.1-8b");
  m.global_batch_size = 8;
  hw.parallelism.micro_batch_size = 1;
  const TrainingPrediction single = predict_training(hw, m, "test");
  hw.parallelism.dp = 8;
  m.global_batch_size = 64;
  const TrainingPrediction data_parallel = predict_training(hw, m, "test");
  // Same per-GPU work; the 8 GPUs share one NVSwitch for the all-reduce.
  const double dp = category(data_parallel, "communication.dp");
  EXPECT_GT(dp, 0.0);
  EXPECT_NEAR(data_parallel.step_time_s - dp, single.step_time_s, 1e-9);
}

TEST(TrainingPredictor, IndivisibleConfigurationsAreInfeasible) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  LlmModelSpec m = shipped_model("llama3.1-8b");
  hw.parallelism.tp = 3;  // 32 heads
  EXPECT_THROW((void)predict_training(hw, m, "test"), InfeasibleError);
  hw.parallelism.tp = 1;
  hw.parallelism.dp = 3;  // 128 sequences
  EXPECT_THROW((void)predict_training(hw, m, "test"), InfeasibleError);
}

}  // namespace
}  // namespace rapidllm::exec
