#include "model/op_graph.hpp"

namespace rapidllm::model {

std::string_view comm_category(CommPurpose p) {
  switch (p) {
    case CommPurpose::tp: return "communication.tp";
    case CommPurpose::cp: return "communication.cp";
    case CommPurpose::zero3: return "communication.zero3";
    case CommPurpose::pp: return "communication.pp";
    case CommPurpose::dp: return "communication.dp";
    case CommPurpose::embedding_sync: return "communication.embedding_sync";
  }
  return "communication.?";
}

void OpGraph::clear() {
  ops_.clear();
  comms_.clear();
  nodes_.clear();
  deps_.clear();
  recompute = Recompute::none;
}

void OpGraph::reserve(std::size_t ops, std::size_t comms) {
  ops_.reserve(ops);
  comms_.reserve(comms);
  nodes_.reserve(2 * ops + comms);
  deps_.reserve(2 * ops + comms);
}

std::uint32_t OpGraph::add_op(Op op) {
  ops_.push_back(std::move(op));
  return static_cast<std::uint32_t>(ops_.size() - 1);
}

int OpGraph::add_node(NodeKind kind, Pass pass, std::uint32_t index, std::initializer_list<int> deps) {
  Node n;
  n.kind = kind;
  n.pass = pass;
  n.index = index;
  n.deps_begin = static_cast<std::uint32_t>(deps_.size());
  for (int d : deps) {
    if (d >= 0) deps_.push_back(d);
  }
  n.deps_end = static_cast<std::uint32_t>(deps_.size());
  nodes_.push_back(n);
  return static_cast<int>(nodes_.size() - 1);
}

int OpGraph::add_compute(std::uint32_t op, Pass pass, std::initializer_list<int> deps) {
  return add_node(NodeKind::compute, pass, op, deps);
}

int OpGraph::add_comm(const CommOp& comm, Pass pass, std::initializer_list<int> deps) {
  comms_.push_back(comm);
  return add_node(NodeKind::communication, pass, static_cast<std::uint32_t>(comms_.size() - 1), deps);
}

}  // namespace rapidllm::model
