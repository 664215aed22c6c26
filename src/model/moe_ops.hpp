// The kernels of one rank for the mixture-of-experts MLP of a layer (Megatron-Core's
// MoELayer with the all-to-all token dispatcher): the router, the permutation that groups
// each token's top_k copies by expert, the grouped expert GEMMs, the un-permutation that
// sums the weighted expert outputs back per token, and the shared experts.
//
// Experts are split over ep ranks and each expert over the tp ranks (expert tensor
// parallelism = tp). A rank's experts see the routed copies of its EP group's tokens: with
// T tokens per TP group, T x top_k rows on the rank when balanced. Imbalance is RAPID-
// LLM's one-hot model: one expert gets `imbalance` x the average rows, the other experts
// of the model share the rest evenly, and the rank holding the hot expert is the one
// costed (it sets the pace of the layer). With few tokens (decode) not every expert is
// hit: the expected number of distinct local experts that receive a token run, so a
// decode step reads only their weights.
#pragma once

#include <cstdint>
#include <vector>

#include "model/layer_ops.hpp"

namespace rapidllm::model {

// How the busiest rank's expert work is split.
struct ExpertLoad {
  int local_experts = 1;        // experts held (E / ep)
  std::int64_t ffn = 0;         // per expert, after the TP split
  double rows = 0.0;            // routed rows on the rank, balanced (T x top_k)
  double hot_rank_factor = 1.0; // the busiest rank's rows / the balanced rows
  // The GEMM groups: `experts` experts with `rows` rows each.
  struct Group {
    std::int64_t experts = 0;
    std::int64_t rows = 0;
  };
  std::vector<Group> groups;
};

// Throws InfeasibleError when ep does not divide the experts or tp the expert width.
[[nodiscard]] ExpertLoad expert_load(const LlmDims& d, const LocalShape& s);

// Appends the MoE MLP kernels (after the pre-MLP norm, before the residual add).
void append_moe_ops(const LlmDims& d, const LocalShape& s, std::vector<Op>& ops);

// Names of the ops the expert-parallel collectives attach to (parallel/layer_graph).
inline constexpr std::string_view kMoeRouter = "moe_router";
inline constexpr std::string_view kMoePermute = "moe_permute";
inline constexpr std::string_view kMoeUnpermute = "moe_unpermute";

}  // namespace rapidllm::model
