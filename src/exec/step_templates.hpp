// What every step graph is stamped from (the training step, an inference prefill or decode
// step): one pass of a part's op graph (a layer, the embedding, the head) as a template of
// nodes with local dependencies, the pipeline message and handshake nodes, and a writer
// that stamps templates into a stage program. Written once so the workloads' graphs agree
// on what a layer is.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <array>
#include <optional>

#include "compute/op_coster.hpp"
#include "exec/llm_context.hpp"
#include "exec/step_graph.hpp"
#include "model/op_graph.hpp"

namespace rapidllm::exec {

struct TemplateNode {
  StepNodeKind kind = StepNodeKind::compute;
  std::string_view op_name;
  model::OpClass cls = model::OpClass::elementwise;
  double duration_s = 0.0;
  double flops = 0.0;
  double bytes = 0.0;
  model::CommOp comm;
  bool recompute = false;
  bool prefetch = false;  // a parameter gather nothing in its pass waits on but its consumer
  bool tp_wait = false;   // the host held by the pass's TP collectives beyond its work
  std::vector<int> deps;
};
using Template = std::vector<TemplateNode>;

struct PartTemplates {
  Template forward;
  Template backward;        // input and weight gradients (empty for a forward-only graph)
  Template input_backward;  // input gradients only: its weight gradients come as a W pass
  Template weight_grad;
};

// A communication op's time on the idle network: what covers the TP waits.
using IdleCommTime = std::function<double(const model::CommOp&)>;

// The templates of one part's graph `g`, its kernels costed by `coster`; each pass lasts at
// least its TP collectives x `tp_wait_s` (sw_param.pipelined_tp_wait).
[[nodiscard]] PartTemplates part_templates(const model::OpGraph& g, compute::OpCoster& coster, double element_bytes,
                                           double tp_wait_s, const IdleCommTime& comm_s);

// The templates of every part of the model at one micro-batch shape: a layer of each kind
// the model has (windowed attention, MoE MLP), the embedding and the head.
struct ModelTemplates {
  std::array<std::optional<PartTemplates>, model::kLayerKinds> layer_kinds;
  PartTemplates embedding;
  PartTemplates head;

  [[nodiscard]] const PartTemplates& layer(const model::LlmDims& d, int layer_no) const {
    return *layer_kinds[static_cast<std::size_t>(d.layer_kind(layer_no))];
  }
};
[[nodiscard]] ModelTemplates model_templates(LlmContext& ctx, const model::LocalShape& shape);

// Where a step graph's ranks sit: the pipeline stride and the dimensions each communicator
// spans (Chakra involved_dim).
void describe_ranks(const LlmContext& ctx, StepGraph& graph);

// A pipeline message end (send or receive) to or from `peer` stage; a send and its receive
// carry the same tag.
[[nodiscard]] StepNode message(StepNodeKind kind, model::Pass pass, double bytes, int peer, int tag,
                               model::CommPurpose purpose);
// The host blocked on a pipeline transfer's handshake: it holds the compute stream.
[[nodiscard]] StepNode transfer_stall(model::Pass pass, double seconds, int micro_batch, int chunk);

// Appends nodes to one stage's program.
class ProgramWriter {
 public:
  ProgramWriter(StepGraph& graph, int stage) : g_(graph), prog_(graph.stages[static_cast<std::size_t>(stage)]) {}

  std::uint32_t name(std::string text);
  int add(StepNode n, const std::vector<int>& deps);
  // Stamps `t` out; its sources wait for `entry`. Returns its sinks (what the next part waits for).
  std::vector<int> stamp(const Template& t, const std::vector<int>& entry, const std::string& prefix, model::Pass pass,
                         int layer, int micro_batch, int chunk);

  bool weight_grad_ = false;  // stamping a W pass

 private:
  StepGraph& g_;
  StageProgram& prog_;
};

}  // namespace rapidllm::exec
