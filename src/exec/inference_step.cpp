#include "exec/inference_step.hpp"

#include <string>

#include <fmt/format.h>

#include "exec/step_templates.hpp"

namespace rapidllm::exec {

StepGraph build_inference_step(LlmContext& ctx, const model::LocalShape& shape, double boundary_bytes,
                               std::string_view phase) {
  const auto& d = ctx.dims();
  const int pp = ctx.degrees().pp;
  const double stall_s = ctx.hardware().sw.pipeline_transfer_stall_s;
  const ModelTemplates parts = model_templates(ctx, shape);
  constexpr auto forward = model::Pass::forward;
  StepGraph out;
  out.pp = pp;
  out.num_ranks = static_cast<int>(ctx.degrees().total());
  out.stages.resize(static_cast<std::size_t>(pp));
  const std::string head_prefix = fmt::format("{}.", phase);
  for (int s = 0; s < pp; ++s) {
    ProgramWriter w(out, s);
    std::vector<int> entry;
    if (s > 0) {
      StepNode r = message(StepNodeKind::recv, forward, boundary_bytes, s - 1, s - 1, model::CommPurpose::pp);
      r.micro_batch = 0;
      r.name = w.name(head_prefix + "recv_activations");
      entry = {w.add(r, {})};
    }
    if (s == 0) entry = w.stamp(parts.embedding.forward, entry, head_prefix + "embedding.", forward, -1, 0, 0);
    const ModelPartition::LayerRange layers = ctx.chunk_layers(s, pp);
    for (int l = layers.first; l < layers.first + layers.count; ++l) {
      entry = w.stamp(parts.layer(d, l).forward, entry, fmt::format("L{}.{}.", l, phase), forward, l, 0, 0);
    }
    if (s == pp - 1) {
      (void)w.stamp(parts.head.forward, entry, head_prefix + "head.", forward, -1, 0, 0);
      continue;
    }
    if (stall_s > 0.0) {
      StepNode st = transfer_stall(forward, stall_s, 0, 0);
      st.name = w.name(head_prefix + "send_activations_stall");
      entry = {w.add(st, entry)};
    }
    StepNode sn = message(StepNodeKind::send, forward, boundary_bytes, s + 1, s, model::CommPurpose::pp);
    sn.micro_batch = 0;
    sn.name = w.name(head_prefix + "send_activations");
    (void)w.add(sn, entry);
  }
  describe_ranks(ctx, out);
  return out;
}

StepGraph join_prefill_and_decode(const StepGraph& prefill, const StepGraph& decode, double token_bytes) {
  StepGraph out = prefill;
  const auto names = static_cast<std::uint32_t>(out.names.size());
  out.names.insert(out.names.end(), decode.names.begin(), decode.names.end());
  const int pp = out.pp;
  const int token_tag = pp;  // the stage hops use tags 0 .. pp - 2
  for (int s = 0; s < pp; ++s) {
    StageProgram& prog = out.stages[static_cast<std::size_t>(s)];
    const StageProgram& next = decode.stages[static_cast<std::size_t>(s)];
    const auto offset = static_cast<std::uint32_t>(prog.nodes.size());
    const auto prefill_last = static_cast<int>(prog.nodes.size()) - 1;
    ProgramWriter w(out, s);
    // The decode's first node waits for this stage's prefill, and on the first stage for
    // the sampled token (pp > 1: a message from the last stage).
    std::vector<int> entry{prefill_last};
    if (pp > 1 && s == pp - 1) {
      StepNode sn = message(StepNodeKind::send, model::Pass::forward, token_bytes, 0, token_tag, model::CommPurpose::pp);
      sn.micro_batch = 0;
      sn.name = w.name("prefill.send_token");
      (void)w.add(sn, entry);
    }
    if (pp > 1 && s == 0) {
      StepNode rn = message(StepNodeKind::recv, model::Pass::forward, token_bytes, pp - 1, token_tag, model::CommPurpose::pp);
      rn.micro_batch = 0;
      rn.name = w.name("decode.recv_token");
      entry.push_back(w.add(rn, {}));
    }
    const auto shift = static_cast<std::uint32_t>(prog.nodes.size()) - offset;  // the token message nodes
    for (const StepNode& n : next.nodes) {
      StepNode copy = n;
      copy.name += names;
      copy.micro_batch = n.micro_batch < 0 ? -1 : 1;
      if (copy.kind == StepNodeKind::send || copy.kind == StepNodeKind::recv) copy.tag += pp + 1;  // apart from prefill's
      std::vector<int> deps;
      for (std::uint32_t k = n.deps_begin; k < n.deps_end; ++k) {
        deps.push_back(static_cast<int>(next.deps[k] + offset + shift));
      }
      if (deps.empty()) deps = entry;
      (void)w.add(copy, deps);
    }
  }
  return out;
}

}  // namespace rapidllm::exec
