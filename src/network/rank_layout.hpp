// Lays a communicator of N ranks over the network dimensions, innermost first: a dimension
// with a fixed size contributes that many ranks (or all that remain, if fewer), an `auto`
// one takes the rest. E.g. 64 ranks on [NVSwitch size 8, InfiniBand auto] = 8 x 8.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::network {

// With `dimension_id`, all ranks lie in that one dimension. Throws InfeasibleError when the
// ranks do not fit or do not divide evenly.
[[nodiscard]] std::vector<GroupSpan> lay_out_ranks(const NetworkSpec& network, int ranks,
                                                   const std::optional<std::string>& dimension_id = std::nullopt);

}  // namespace rapidllm::network
