// The one TP rule (Megatron column/row-parallel linears) and the graphs built with it.
#include <gtest/gtest.h>

#include "llama_dims.hpp"
#include "parallel/layer_graph.hpp"
#include "parallel/tensor_parallel.hpp"

namespace rapidllm::parallel {
namespace {

using model::Pass;
using model::TpRole;

TEST(TensorParallel, ColumnAndRowLinearsWithAndWithoutSequenceParallelism) {
  // Column without SP: nothing forward (the output stays split), dX all-reduced backward.
  TpCollectives c = linear_collectives(TpRole::column, false, false, 10.0, 20.0);
  ASSERT_EQ(c.count, 1);
  EXPECT_EQ(c.items[0].op, CollectiveOp::all_reduce);
  EXPECT_EQ(c.items[0].pass, Pass::backward);
  EXPECT_DOUBLE_EQ(c.items[0].bytes, 10.0);
  // ... unless the output must be whole: Y all-gathered after the GEMM.
  c = linear_collectives(TpRole::column, false, true, 10.0, 20.0);
  ASSERT_EQ(c.count, 2);
  EXPECT_EQ(c.items[0].op, CollectiveOp::all_gather);
  EXPECT_FALSE(c.items[0].before);
  EXPECT_DOUBLE_EQ(c.items[0].bytes, 20.0);
  // Column with SP: X gathered before, dX reduce-scattered.
  c = linear_collectives(TpRole::column, true, true, 10.0, 20.0);
  ASSERT_EQ(c.count, 2);
  EXPECT_TRUE(c.items[0].before);
  EXPECT_EQ(c.items[1].op, CollectiveOp::reduce_scatter);
  // Row: partial Y summed forward; with SP, dY gathered before the backward GEMMs.
  c = linear_collectives(TpRole::row, false, false, 10.0, 20.0);
  ASSERT_EQ(c.count, 1);
  EXPECT_EQ(c.items[0].op, CollectiveOp::all_reduce);
  EXPECT_EQ(c.items[0].pass, Pass::forward);
  c = linear_collectives(TpRole::row, true, false, 10.0, 20.0);
  ASSERT_EQ(c.count, 2);
  EXPECT_EQ(c.items[0].op, CollectiveOp::reduce_scatter);
  EXPECT_EQ(c.items[1].op, CollectiveOp::all_gather);
  EXPECT_TRUE(c.items[1].before);
  EXPECT_EQ(linear_collectives(TpRole::none, true, true, 1.0, 1.0).count, 0);
}

model::LlmDims llama_like() { return testing::llama3_8b_dims(32); }

struct Counts {
  int forward = 0;
  int backward = 0;
  double forward_bytes = 0.0;
};

Counts comms(const model::OpGraph& g, model::CommPurpose purpose) {
  Counts c;
  for (const auto& n : g.nodes()) {
    if (n.kind != model::NodeKind::communication || g.comms()[n.index].purpose != purpose) continue;
    if (n.pass == Pass::forward) {
      ++c.forward;
      c.forward_bytes += g.comms()[n.index].bytes;
    } else {
      ++c.backward;
    }
  }
  return c;
}

TEST(LayerGraph, ALayerExchangesItsActivationsFourTimesPerPassUnderSequenceParallelism) {
  model::LocalShape s;
  s.micro_batch = 2;
  s.seq = 4096;
  s.tp = 4;
  s.sequence_parallel = true;
  PartSettings p;
  model::OpGraph g;
  layer_graph(llama_like(), s, p, g);
  const Counts tp = comms(g, model::CommPurpose::tp);
  // All-gather before QKV and the MLP, reduce-scatter after the output projection and the MLP.
  EXPECT_EQ(tp.forward, 4);
  EXPECT_EQ(tp.backward, 4);
  EXPECT_DOUBLE_EQ(tp.forward_bytes, 4.0 * 2 * 4096 * 4096 * 2.0);
  s.sequence_parallel = false;
  layer_graph(llama_like(), s, p, g);  // the same graph object, rebuilt
  const Counts no_sp = comms(g, model::CommPurpose::tp);
  EXPECT_EQ(no_sp.forward, 2);  // all-reduces after the row-parallel linears
  EXPECT_EQ(no_sp.backward, 2);  // and of dX of the column-parallel ones
}

TEST(LayerGraph, ContextParallelAndZero3AddTheirGathers) {
  model::LocalShape s;
  s.seq = 8192;
  s.tp = 2;
  s.cp = 2;
  PartSettings p;
  p.cp = 2;
  p.zero3_parameter_bytes = 1e8;
  p.zero3_gradient_bytes = 1e8;
  model::OpGraph g;
  layer_graph(llama_like(), s, p, g);
  const Counts cp = comms(g, model::CommPurpose::cp);
  EXPECT_EQ(cp.forward, 1);
  EXPECT_EQ(cp.backward, 2);
  // Keys and values of the whole sequence, the KV heads of one TP rank: 8192 x 2 x 4 x 128 x 2 B.
  EXPECT_DOUBLE_EQ(cp.forward_bytes, 8192.0 * 2 * 4 * 128 * 2);
  const Counts zero3 = comms(g, model::CommPurpose::zero3);
  EXPECT_EQ(zero3.forward, 1);
  EXPECT_EQ(zero3.backward, 2);
  for (const auto& n : g.nodes()) {
    if (n.kind == model::NodeKind::communication && g.comms()[n.index].purpose == model::CommPurpose::zero3) {
      EXPECT_EQ(g.deps_begin(n), g.deps_end(n));  // prefetched: waits for nothing
    }
  }
}

}  // namespace
}  // namespace rapidllm::parallel
