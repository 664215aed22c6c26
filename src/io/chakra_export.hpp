// Chakra execution-trace export of a whole training step (exec::StepGraph): one file per
// rank in the MLCommons Chakra format (proto/chakra/et_def.proto), readable by Chakra's
// tools (chakra_jsonizer, the ET feeder) and by ASTRA-sim. docs/architecture.md, "Chakra
// export", lists what each node carries.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "chakra/et_def.pb.h"
#include "exec/step_graph.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::io {

// The Chakra GlobalMetadata version the files carry.
inline constexpr const char* kChakraTraceVersion = "0.0.4";

// Writes `<dir>/<prefix>.<rank>.et` for each rank in `ranks` (empty: every rank of the
// graph, 0 .. num_ranks - 1). Each file holds a varint32-length-prefixed GlobalMetadata,
// then one varint32-length-prefixed Node per node of the rank's stage program, in issue
// order (node id = index in the program, data_deps = its dependencies). `dir` is created
// when missing. Throws rapidllm::Error (naming the path or the node) when the graph cannot
// be written (a rank out of range, a malformed program, a send_recv collective node) or
// on I/O failure; every file is written to a temporary name first and renamed only once
// all of them are complete, so a failure leaves no trace file behind.
void write_chakra_traces(const exec::StepGraph& g, const std::filesystem::path& dir,
                         const std::string& prefix, const std::vector<int>& ranks = {});

// Reads a file written as above: its GlobalMetadata into *meta (when not null), and its
// nodes in file order. Throws rapidllm::Error when the file cannot be opened or is
// truncated or malformed.
[[nodiscard]] std::vector<ChakraProtoMsg::Node> read_chakra_trace(
    const std::filesystem::path& path, ChakraProtoMsg::GlobalMetadata* meta = nullptr);

// Chakra comm_type of a collective. send_recv has none (a StepGraph carries pipeline
// messages as send/recv node pairs): throws rapidllm::Error.
[[nodiscard]] ChakraProtoMsg::CollectiveCommType chakra_comm_type(CollectiveOp op);

}  // namespace rapidllm::io
