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
    case CommPurpose::ep: return "communication.ep";
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

}  // namespace rapidllm::model
