#include "io/chakra_export.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <system_error>

#include "rapidllm/error.hpp"

namespace rapidllm::io {

namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::GlobalMetadata;
using ChakraProtoMsg::Node;

// Attribute value types follow what Chakra's ET feeder (src/feeder/et_feeder_node.cpp)
// reads: num_ops, comm_type and comm_size as int64_val, tensor_size as uint64_val,
// comm_src, comm_dst and comm_tag as int32_val, is_cpu_op as bool_val; involved_dim is a
// bool_list (ASTRA-sim).
AttributeProto* add_attr(Node& node, const char* name) {
  AttributeProto* a = node.add_attr();
  a->set_name(name);
  return a;
}

std::int64_t to_int64(double v) {
  if (!(v >= 0.0)) return 0;
  if (v >= 9.2e18) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(std::llround(v));
}

std::uint64_t to_uint64(double v) { return static_cast<std::uint64_t>(to_int64(v)); }

std::string node_label(std::size_t stage, std::size_t id) {
  return "stage " + std::to_string(stage) + " node " + std::to_string(id);
}

// The stage program as Chakra nodes, the same for every rank of the stage except the
// send/recv peers, which `for_rank` fills in.
struct StageNodes {
  std::vector<Node> nodes;
  std::vector<std::size_t> messages;  // indices of send/recv nodes
};

StageNodes build_stage(const exec::StepGraph& g, std::size_t s) {
  const exec::StageProgram& prog = g.stages[s];
  StageNodes out;
  out.nodes.reserve(prog.nodes.size());
  for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
    const exec::StepNode& n = prog.nodes[i];
    Node& c = out.nodes.emplace_back();
    c.set_id(i);
    if (n.name >= g.names.size()) {
      throw Error("Chakra export: " + node_label(s, i) + " has name index " +
                  std::to_string(n.name) + " past the " + std::to_string(g.names.size()) +
                  " names of the graph");
    }
    c.set_name(g.names[n.name]);
    if (n.deps_begin > n.deps_end || n.deps_end > prog.deps.size()) {
      throw Error("Chakra export: " + node_label(s, i) + " has a dependency range past the program's list");
    }
    for (std::uint32_t d = n.deps_begin; d < n.deps_end; ++d) {
      if (prog.deps[d] >= prog.nodes.size()) {
        throw Error("Chakra export: " + node_label(s, i) + " depends on node " +
                    std::to_string(prog.deps[d]) + ", not in the stage's program");
      }
      c.add_data_deps(prog.deps[d]);
    }
    switch (n.kind) {
      case exec::StepNodeKind::compute:
        c.set_type(ChakraProtoMsg::COMP_NODE);
        c.set_duration_micros(to_uint64(n.duration_s * 1e6));
        add_attr(c, "num_ops")->set_int64_val(to_int64(n.flops));
        add_attr(c, "tensor_size")->set_uint64_val(to_uint64(n.bytes));
        add_attr(c, "is_cpu_op")->set_bool_val(false);
        break;
      case exec::StepNodeKind::collective: {
        c.set_type(ChakraProtoMsg::COMM_COLL_NODE);
        const auto group = static_cast<std::size_t>(n.group);
        if (group >= g.involved_dims.size()) {
          throw Error("Chakra export: " + node_label(s, i) + " has an unknown communicator");
        }
        ChakraProtoMsg::CollectiveCommType type{};
        try {
          type = chakra_comm_type(n.op);
        } catch (const Error& e) {
          throw Error(std::string(e.what()) + " (" + node_label(s, i) + ", " + c.name() + ")");
        }
        add_attr(c, "comm_type")->set_int64_val(type);
        add_attr(c, "comm_size")->set_int64_val(to_int64(n.bytes));
        auto* dims = add_attr(c, "involved_dim")->mutable_bool_list();
        for (bool b : g.involved_dims[group]) dims->add_values(b);
        break;
      }
      case exec::StepNodeKind::send:
      case exec::StepNodeKind::recv:
        c.set_type(n.kind == exec::StepNodeKind::send ? ChakraProtoMsg::COMM_SEND_NODE
                                                      : ChakraProtoMsg::COMM_RECV_NODE);
        if (n.peer_stage < 0 || n.peer_stage >= g.pp) {
          throw Error("Chakra export: " + node_label(s, i) + " has peer stage " +
                      std::to_string(n.peer_stage) + " outside 0.." + std::to_string(g.pp - 1));
        }
        add_attr(c, "comm_src")->set_int32_val(0);  // per rank, set by for_rank
        add_attr(c, "comm_dst")->set_int32_val(0);
        add_attr(c, "comm_tag")->set_int32_val(n.tag);
        add_attr(c, "comm_size")->set_int64_val(to_int64(n.bytes));
        out.messages.push_back(i);
        break;
    }
  }
  return out;
}

void for_rank(const exec::StepGraph& g, std::size_t s, StageNodes& sn, int rank) {
  for (std::size_t i : sn.messages) {
    const exec::StepNode& n = g.stages[s].nodes[i];
    const int peer = g.peer_rank(rank, n.peer_stage);
    const bool send = n.kind == exec::StepNodeKind::send;
    Node& c = sn.nodes[i];
    c.mutable_attr(0)->set_int32_val(send ? rank : peer);  // comm_src
    c.mutable_attr(1)->set_int32_val(send ? peer : rank);  // comm_dst
  }
}

template <class Message>
void write_delimited(google::protobuf::io::CodedOutputStream& out, const Message& m) {
  const std::size_t size = m.ByteSizeLong();
  if (size > std::numeric_limits<std::uint32_t>::max()) throw Error("Chakra export: a record over 4 GiB");
  out.WriteVarint32(static_cast<std::uint32_t>(size));
  if (!m.SerializeToCodedStream(&out)) throw Error("Chakra export: cannot serialize a record");
}

void write_file(const std::filesystem::path& path, const GlobalMetadata& meta, const std::vector<Node>& nodes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw Error("cannot open " + path.string() + " for writing");
  {
    google::protobuf::io::OstreamOutputStream zero_copy(&file);
    google::protobuf::io::CodedOutputStream out(&zero_copy);
    write_delimited(out, meta);
    for (const Node& n : nodes) write_delimited(out, n);
    if (out.HadError()) throw Error("cannot write " + path.string());
  }
  file.close();
  if (!file) throw Error("cannot write " + path.string());
}

}  // namespace

ChakraProtoMsg::CollectiveCommType chakra_comm_type(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return ChakraProtoMsg::ALL_REDUCE;
    case CollectiveOp::all_gather: return ChakraProtoMsg::ALL_GATHER;
    case CollectiveOp::reduce_scatter: return ChakraProtoMsg::REDUCE_SCATTER;
    case CollectiveOp::all_to_all: return ChakraProtoMsg::ALL_TO_ALL;
    case CollectiveOp::broadcast: return ChakraProtoMsg::BROADCAST;
    case CollectiveOp::send_recv: break;
  }
  throw Error("Chakra export: a send_recv collective has no Chakra comm_type; a step graph "
              "carries point-to-point messages as send/recv node pairs");
}

void write_chakra_traces(const exec::StepGraph& g, const std::filesystem::path& dir,
                         const std::string& prefix, const std::vector<int>& ranks) {
  if (g.pp < 1 || g.stages.size() != static_cast<std::size_t>(g.pp) || g.pp_stride < 1 || g.num_ranks < 1) {
    throw Error("Chakra export: the step graph has " + std::to_string(g.stages.size()) +
                " stage programs for pp = " + std::to_string(g.pp) + " (pp_stride " +
                std::to_string(g.pp_stride) + ", " + std::to_string(g.num_ranks) + " ranks)");
  }
  std::vector<int> all;
  const std::vector<int>* todo = &ranks;
  if (ranks.empty()) {
    all.resize(static_cast<std::size_t>(g.num_ranks));
    for (int r = 0; r < g.num_ranks; ++r) all[static_cast<std::size_t>(r)] = r;
    todo = &all;
  }
  for (int r : *todo) {
    if (r < 0 || r >= g.num_ranks) {
      throw Error("Chakra export: rank " + std::to_string(r) + " outside 0.." + std::to_string(g.num_ranks - 1));
    }
  }
  // Every stage is checked (and converted) before anything is written.
  std::vector<StageNodes> stages;
  stages.reserve(g.stages.size());
  for (std::size_t s = 0; s < g.stages.size(); ++s) stages.push_back(build_stage(g, s));

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw Error("cannot create directory " + dir.string() + (ec ? ": " + ec.message() : ""));
  }
  GlobalMetadata meta;
  meta.set_version(kChakraTraceVersion);

  struct Pending {
    std::filesystem::path tmp, target;
  };
  std::vector<Pending> pending;
  const auto discard = [&pending] {
    std::error_code ignored;
    for (const Pending& p : pending) std::filesystem::remove(p.tmp, ignored);
  };
  try {
    for (int r : *todo) {
      const auto s = static_cast<std::size_t>(g.stage_of_rank(r));
      const std::filesystem::path target = dir / (prefix + "." + std::to_string(r) + ".et");
      std::filesystem::path tmp = target;
      tmp += ".tmp";
      pending.push_back({tmp, target});
      for_rank(g, s, stages[s], r);
      write_file(tmp, meta, stages[s].nodes);
    }
    for (const Pending& p : pending) {
      std::filesystem::rename(p.tmp, p.target, ec);
      if (ec) throw Error("cannot rename " + p.tmp.string() + " to " + p.target.string() + ": " + ec.message());
    }
  } catch (...) {
    discard();
    throw;
  }
}

std::vector<Node> read_chakra_trace(const std::filesystem::path& path, GlobalMetadata* meta) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error("cannot open Chakra trace " + path.string());
  google::protobuf::io::IstreamInputStream zero_copy(&file);
  // One CodedInputStream per record keeps each under protobuf's total-bytes limit.
  const auto read_one = [&](auto& message, bool& eof) {
    google::protobuf::io::CodedInputStream in(&zero_copy);
    const void* data = nullptr;
    int available = 0;
    if (!in.GetDirectBufferPointer(&data, &available)) {  // no byte left: the end of the file
      eof = true;
      return;
    }
    std::uint32_t size = 0;
    if (!in.ReadVarint32(&size)) throw Error("truncated Chakra trace " + path.string());
    if (size > static_cast<std::uint32_t>(std::numeric_limits<int>::max())) {
      throw Error("malformed Chakra trace " + path.string() + " (a record of " + std::to_string(size) + " bytes)");
    }
    const auto limit = in.PushLimit(static_cast<int>(size));
    if (!message.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage() || in.BytesUntilLimit() != 0) {
      throw Error("malformed or truncated Chakra trace " + path.string());
    }
    in.PopLimit(limit);
  };
  GlobalMetadata m;
  bool eof = false;
  read_one(m, eof);
  if (eof) throw Error("empty Chakra trace " + path.string() + " (no GlobalMetadata)");
  if (meta != nullptr) *meta = std::move(m);
  std::vector<Node> nodes;
  for (;;) {
    Node n;
    read_one(n, eof);
    if (eof) break;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

}  // namespace rapidllm::io
