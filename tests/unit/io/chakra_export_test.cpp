// Chakra export of a hand-built two-stage StepGraph: every file parsed back with the
// generated Chakra classes.
#include "io/chakra_export.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>

#include "rapidllm/error.hpp"

namespace rapidllm::io {
namespace {

namespace fs = std::filesystem;
using exec::StepGraph;
using exec::StepNode;
using exec::StepNodeKind;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("rapidllm_chakra_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct Builder {
  StepGraph& g;
  std::size_t stage;

  std::uint32_t add(StepNode n, const std::string& name, std::initializer_list<std::uint32_t> deps) {
    auto& prog = g.stages[stage];
    n.name = static_cast<std::uint32_t>(g.names.size());
    g.names.push_back(name);
    n.deps_begin = static_cast<std::uint32_t>(prog.deps.size());
    prog.deps.insert(prog.deps.end(), deps.begin(), deps.end());
    n.deps_end = static_cast<std::uint32_t>(prog.deps.size());
    prog.nodes.push_back(n);
    return static_cast<std::uint32_t>(prog.nodes.size() - 1);
  }
};

StepNode compute(double duration_s, double flops, double bytes) {
  StepNode n;
  n.kind = StepNodeKind::compute;
  n.duration_s = duration_s;
  n.flops = flops;
  n.bytes = bytes;
  return n;
}

StepNode collective(CollectiveOp op, Parallelism group, double bytes) {
  StepNode n;
  n.kind = StepNodeKind::collective;
  n.op = op;
  n.group = group;
  n.bytes = bytes;
  return n;
}

StepNode message(StepNodeKind kind, int peer_stage, int tag, double bytes) {
  StepNode n;
  n.kind = kind;
  n.group = Parallelism::pp;
  n.peer_stage = peer_stage;
  n.tag = tag;
  n.bytes = bytes;
  return n;
}

// 8 ranks, tp = 2 fastest, pp = 2 (stride 2), dp = 2: stage 0 = {0, 1, 4, 5}, stage 1 = {2, 3, 6, 7}.
StepGraph two_stage_graph() {
  StepGraph g;
  g.num_ranks = 8;
  g.pp = 2;
  g.pp_stride = 2;
  g.stages.resize(2);
  g.involved_dims[static_cast<std::size_t>(Parallelism::tp)] = {true, false};
  g.involved_dims[static_cast<std::size_t>(Parallelism::ep)] = {true, false};
  g.involved_dims[static_cast<std::size_t>(Parallelism::dp)] = {false, true};
  g.involved_dims[static_cast<std::size_t>(Parallelism::pp)] = {false, true};

  Builder s0{g, 0};
  auto f = s0.add(compute(125e-6, 3.0e12, 4.0e8), "L0.mb0.fwd.mlp", {});
  auto ar = s0.add(collective(CollectiveOp::all_reduce, Parallelism::tp, 1.5e7), "L0.mb0.fwd.tp_ar", {f});
  s0.add(message(StepNodeKind::send, 1, 7, 8.0e6), "mb0.fwd.send", {ar});
  auto rv = s0.add(message(StepNodeKind::recv, 1, 8, 8.0e6), "mb0.bwd.recv", {});
  auto b = s0.add(compute(250.4e-6, 6.0e12, 8.0e8), "L0.mb0.bwd.mlp", {rv, ar});
  auto rs = s0.add(collective(CollectiveOp::reduce_scatter, Parallelism::dp, 2.0e9), "dp.reduce_scatter", {b});
  s0.add(collective(CollectiveOp::all_gather, Parallelism::dp, 2.0e9), "dp.all_gather", {rs});

  Builder s1{g, 1};
  auto r1 = s1.add(message(StepNodeKind::recv, 0, 7, 8.0e6), "mb0.fwd.recv", {});
  auto f1 = s1.add(compute(100e-6, 2.0e12, 3.0e8), "L1.mb0.fwd.moe", {r1});
  auto a2a = s1.add(collective(CollectiveOp::all_to_all, Parallelism::ep, 4.0e6), "L1.mb0.fwd.a2a", {f1});
  auto b1 = s1.add(compute(200e-6, 4.0e12, 6.0e8), "L1.mb0.bwd.moe", {a2a});
  s1.add(message(StepNodeKind::send, 0, 8, 8.0e6), "mb0.bwd.send", {b1});
  auto bc = s1.add(collective(CollectiveOp::broadcast, Parallelism::dp, 1.0e3), "dp.broadcast", {b1});
  s1.add(collective(CollectiveOp::all_reduce, Parallelism::dp, 2.0e9), "dp.all_reduce", {bc});
  return g;
}

const ChakraProtoMsg::AttributeProto* find_attr(const ChakraProtoMsg::Node& n, const std::string& name) {
  for (const auto& a : n.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

const ChakraProtoMsg::AttributeProto& attr(const ChakraProtoMsg::Node& n, const std::string& name) {
  const auto* a = find_attr(n, name);
  if (a == nullptr) throw std::runtime_error("node " + n.name() + " lacks attribute " + name);
  return *a;
}

ChakraProtoMsg::NodeType expected_type(StepNodeKind k) {
  switch (k) {
    case StepNodeKind::compute: return ChakraProtoMsg::COMP_NODE;
    case StepNodeKind::collective: return ChakraProtoMsg::COMM_COLL_NODE;
    case StepNodeKind::send: return ChakraProtoMsg::COMM_SEND_NODE;
    case StepNodeKind::recv: return ChakraProtoMsg::COMM_RECV_NODE;
  }
  return ChakraProtoMsg::INVALID_NODE;
}

TEST(ChakraExport, WritesOneParsableFilePerRank) {
  const StepGraph g = two_stage_graph();
  TempDir dir;
  write_chakra_traces(g, dir.path() / "traces", "step");

  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir.path() / "traces")) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".et") << e.path();
  }
  EXPECT_EQ(files, static_cast<std::size_t>(g.num_ranks));

  for (int rank = 0; rank < g.num_ranks; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    ChakraProtoMsg::GlobalMetadata meta;
    const auto nodes = read_chakra_trace(dir.path() / "traces" / ("step." + std::to_string(rank) + ".et"), &meta);
    EXPECT_EQ(meta.version(), "0.0.4");
    const auto& prog = g.stages[static_cast<std::size_t>(g.stage_of_rank(rank))];
    ASSERT_EQ(nodes.size(), prog.nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const auto& n = nodes[i];
      const auto& s = prog.nodes[i];
      EXPECT_EQ(n.id(), i);
      EXPECT_EQ(n.name(), g.names[s.name]);
      EXPECT_EQ(n.type(), expected_type(s.kind));
      ASSERT_EQ(static_cast<std::uint32_t>(n.data_deps_size()), s.deps_end - s.deps_begin) << n.name();
      for (std::uint32_t d = s.deps_begin; d < s.deps_end; ++d) {
        EXPECT_EQ(n.data_deps(static_cast<int>(d - s.deps_begin)), prog.deps[d]) << n.name();
      }
      EXPECT_EQ(n.ctrl_deps_size(), 0);
    }
  }
}

TEST(ChakraExport, ComputeNodesCarryOpsBytesAndDuration) {
  const StepGraph g = two_stage_graph();
  TempDir dir;
  write_chakra_traces(g, dir.path(), "t");
  const auto nodes = read_chakra_trace(dir.path() / "t.5.et");  // stage 0
  ASSERT_EQ(nodes.size(), 7U);
  const auto& fwd = nodes[0];
  EXPECT_EQ(fwd.duration_micros(), 125U);
  EXPECT_EQ(attr(fwd, "num_ops").value_case(), ChakraProtoMsg::AttributeProto::kInt64Val);
  EXPECT_EQ(attr(fwd, "num_ops").int64_val(), 3'000'000'000'000);
  EXPECT_EQ(attr(fwd, "tensor_size").value_case(), ChakraProtoMsg::AttributeProto::kUint64Val);
  EXPECT_EQ(attr(fwd, "tensor_size").uint64_val(), 400'000'000U);
  EXPECT_EQ(attr(fwd, "is_cpu_op").value_case(), ChakraProtoMsg::AttributeProto::kBoolVal);
  EXPECT_FALSE(attr(fwd, "is_cpu_op").bool_val());
  EXPECT_EQ(nodes[4].duration_micros(), 250U);  // 250.4 us rounds to the nearest microsecond
  EXPECT_EQ(find_attr(nodes[1], "num_ops"), nullptr);
}

TEST(ChakraExport, CollectivesCarryTypeSizeAndInvolvedDims) {
  const StepGraph g = two_stage_graph();
  TempDir dir;
  write_chakra_traces(g, dir.path(), "t");
  const auto s0 = read_chakra_trace(dir.path() / "t.0.et");
  const auto s1 = read_chakra_trace(dir.path() / "t.7.et");

  const auto check = [](const ChakraProtoMsg::Node& n, ChakraProtoMsg::CollectiveCommType type,
                        std::int64_t bytes, std::vector<bool> dims) {
    SCOPED_TRACE(n.name());
    EXPECT_EQ(n.type(), ChakraProtoMsg::COMM_COLL_NODE);
    EXPECT_EQ(attr(n, "comm_type").value_case(), ChakraProtoMsg::AttributeProto::kInt64Val);
    EXPECT_EQ(attr(n, "comm_type").int64_val(), type);
    EXPECT_EQ(attr(n, "comm_size").int64_val(), bytes);
    const auto& dim = attr(n, "involved_dim");
    ASSERT_TRUE(dim.has_bool_list());
    EXPECT_EQ(std::vector<bool>(dim.bool_list().values().begin(), dim.bool_list().values().end()), dims);
  };
  check(s0[1], ChakraProtoMsg::ALL_REDUCE, 15'000'000, {true, false});
  check(s0[5], ChakraProtoMsg::REDUCE_SCATTER, 2'000'000'000, {false, true});
  check(s0[6], ChakraProtoMsg::ALL_GATHER, 2'000'000'000, {false, true});
  check(s1[2], ChakraProtoMsg::ALL_TO_ALL, 4'000'000, {true, false});
  check(s1[5], ChakraProtoMsg::BROADCAST, 1'000, {false, true});
  check(s1[6], ChakraProtoMsg::ALL_REDUCE, 2'000'000'000, {false, true});
}

TEST(ChakraExport, SendRecvCarryTheActualPeerRanks) {
  const StepGraph g = two_stage_graph();
  TempDir dir;
  write_chakra_traces(g, dir.path(), "t");
  // Stage 0 rank r talks to stage 1 rank r + 2, and back.
  const std::map<int, int> peer{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {2, 0}, {3, 1}, {6, 4}, {7, 5}};
  for (const auto& [rank, other] : peer) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const auto nodes = read_chakra_trace(dir.path() / ("t." + std::to_string(rank) + ".et"));
    const bool first = g.stage_of_rank(rank) == 0;
    const auto& send = nodes[first ? 2 : 4];
    const auto& recv = nodes[first ? 3 : 0];
    ASSERT_EQ(send.type(), ChakraProtoMsg::COMM_SEND_NODE);
    ASSERT_EQ(recv.type(), ChakraProtoMsg::COMM_RECV_NODE);
    EXPECT_EQ(attr(send, "comm_src").int32_val(), rank);
    EXPECT_EQ(attr(send, "comm_dst").int32_val(), other);
    EXPECT_EQ(attr(recv, "comm_src").int32_val(), other);
    EXPECT_EQ(attr(recv, "comm_dst").int32_val(), rank);
    EXPECT_EQ(attr(send, "comm_tag").int32_val(), first ? 7 : 8);
    EXPECT_EQ(attr(recv, "comm_tag").int32_val(), first ? 8 : 7);
    EXPECT_EQ(attr(send, "comm_size").int64_val(), 8'000'000);
    EXPECT_EQ(attr(recv, "comm_size").int64_val(), 8'000'000);
  }
}

TEST(ChakraExport, WritesOnlyTheRanksAsked) {
  const StepGraph g = two_stage_graph();
  TempDir dir;
  write_chakra_traces(g, dir.path(), "sub", {3, 4});
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"sub.3.et", "sub.4.et"}));
  EXPECT_EQ(read_chakra_trace(dir.path() / "sub.3.et").size(), g.stages[1].nodes.size());
}

TEST(ChakraExport, CommTypeMapping) {
  EXPECT_EQ(chakra_comm_type(CollectiveOp::all_reduce), ChakraProtoMsg::ALL_REDUCE);
  EXPECT_EQ(chakra_comm_type(CollectiveOp::all_gather), ChakraProtoMsg::ALL_GATHER);
  EXPECT_EQ(chakra_comm_type(CollectiveOp::reduce_scatter), ChakraProtoMsg::REDUCE_SCATTER);
  EXPECT_EQ(chakra_comm_type(CollectiveOp::all_to_all), ChakraProtoMsg::ALL_TO_ALL);
  EXPECT_EQ(chakra_comm_type(CollectiveOp::broadcast), ChakraProtoMsg::BROADCAST);
  EXPECT_THROW((void)chakra_comm_type(CollectiveOp::send_recv), Error);
  // The published enum values (Chakra's et_def.proto).
  EXPECT_EQ(ChakraProtoMsg::ALL_REDUCE, 0);
  EXPECT_EQ(ChakraProtoMsg::ALL_GATHER, 2);
  EXPECT_EQ(ChakraProtoMsg::BROADCAST, 5);
  EXPECT_EQ(ChakraProtoMsg::ALL_TO_ALL, 6);
  EXPECT_EQ(ChakraProtoMsg::REDUCE_SCATTER, 7);
  EXPECT_EQ(ChakraProtoMsg::COMP_NODE, 4);
  EXPECT_EQ(ChakraProtoMsg::COMM_COLL_NODE, 7);
}

TEST(ChakraExport, UnwritableDirectoryThrowsWithThePath) {
  const StepGraph g = two_stage_graph();
  TempDir dir;
  fs::create_directories(dir.path());
  const fs::path blocker = dir.path() / "not_a_dir";
  std::ofstream(blocker) << "x";
  const fs::path target = blocker / "traces";
  try {
    write_chakra_traces(g, target, "t");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
  }
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1U);  // only the blocker
}

TEST(ChakraExport, BadGraphOrRankWritesNothing) {
  TempDir dir;
  StepGraph g = two_stage_graph();
  EXPECT_THROW(write_chakra_traces(g, dir.path(), "t", {0, 8}), Error);
  EXPECT_FALSE(fs::exists(dir.path()) && !fs::is_empty(dir.path()));

  g.stages[1].nodes[2].op = CollectiveOp::send_recv;
  EXPECT_THROW(write_chakra_traces(g, dir.path(), "t"), Error);
  EXPECT_FALSE(fs::exists(dir.path()) && !fs::is_empty(dir.path()));
}

TEST(ChakraExport, ReaderRejectsTruncatedFiles) {
  const StepGraph g = two_stage_graph();
  TempDir dir;
  write_chakra_traces(g, dir.path(), "t", {0});
  const fs::path file = dir.path() / "t.0.et";
  fs::resize_file(file, fs::file_size(file) - 3);
  EXPECT_THROW((void)read_chakra_trace(file), Error);
  EXPECT_THROW((void)read_chakra_trace(dir.path() / "missing.et"), Error);
  // A length prefix cut inside its varint.
  std::ofstream(dir.path() / "cut.et", std::ios::binary) << std::string("\x02\x0a\x00\x80", 4);
  EXPECT_THROW((void)read_chakra_trace(dir.path() / "cut.et"), Error);
}

}  // namespace
}  // namespace rapidllm::io
