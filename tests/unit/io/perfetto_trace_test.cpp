#include "io/perfetto_trace.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rapidllm/error.hpp"

namespace rapidllm::io {
namespace {

using exec::SpanKind;
using exec::Timeline;
using exec::TimelineSpan;
using ::testing::HasSubstr;

// Two simulated units (e.g. two pipeline stages) standing for four ranks: ranks 0 and 2 show
// unit 0, ranks 1 and 3 show unit 1. Spans are given out of order.
Timeline two_unit_timeline() {
  Timeline t;
  t.names = {"L0.mb0.fwd.qkv_proj", "L0.mb0.fwd.tp_allreduce", "L0.mb0.bwd.qkv_proj", "L1.mb0.fwd.qkv_proj"};
  t.tracks = {"compute", "tp"};
  t.units = 2;
  t.unit_of_rank = {0, 1, 0, 1};
  const auto span = [](double start, double end, std::uint32_t name, std::uint16_t track, SpanKind kind, int unit) {
    TimelineSpan s;
    s.start_s = start;
    s.end_s = end;
    s.name = name;
    s.track = track;
    s.kind = kind;
    s.unit = unit;
    return s;
  };
  t.spans = {
      span(2.0e-3, 3.5e-3, 2, 0, SpanKind::compute, 0),        // bwd after fwd on the compute stream
      span(1.0e-3, 1.25e-3, 1, 1, SpanKind::communication, 0),  // tp all-reduce
      span(0.0, 1.0e-3, 0, 0, SpanKind::compute, 0),
      span(4.0e-3, 5.0e-3, 3, 0, SpanKind::compute, 1),
      span(5.0e-3, 5.5e-3, 1, 1, SpanKind::communication, 1),
  };
  return t;
}

nlohmann::json trace_of(const Timeline& t, const std::vector<int>& ranks) {
  std::ostringstream out;
  write_perfetto_trace(t, out, ranks);
  return nlohmann::json::parse(out.str());
}

std::vector<nlohmann::json> events_with(const nlohmann::json& trace, const std::string& ph, int pid = -1) {
  std::vector<nlohmann::json> out;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == ph && (pid < 0 || e.at("pid") == pid)) out.push_back(e);
  }
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError";
  return {};
}

TEST(PerfettoTrace, OutputParsesAsChromeTraceJson) {
  std::ostringstream out;
  write_perfetto_trace(two_unit_timeline(), out, {});
  const auto trace = nlohmann::json::parse(out.str());  // throws if not valid JSON
  ASSERT_TRUE(trace.is_object());
  EXPECT_EQ(trace.at("displayTimeUnit"), "ns");
  ASSERT_TRUE(trace.at("traceEvents").is_array());
  for (const auto& e : trace.at("traceEvents")) {
    EXPECT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("name")) << e.dump();
  }
}

TEST(PerfettoTrace, EmptyTimelineIsValidJson) {
  const auto trace = trace_of(Timeline{}, {});
  EXPECT_TRUE(trace.at("traceEvents").empty());
}

TEST(PerfettoTrace, WritesOneCompleteEventPerSpanOfEachSelectedRank) {
  const auto t = two_unit_timeline();
  EXPECT_EQ(events_with(trace_of(t, {}), "X").size(), 10u);        // 3 + 2 + 3 + 2
  EXPECT_EQ(events_with(trace_of(t, {0, 1}), "X").size(), 5u);     // 3 + 2
  EXPECT_EQ(events_with(trace_of(t, {2}), "X").size(), 3u);        // unit 0
  EXPECT_EQ(events_with(trace_of(t, {3, 1, 3}), "X").size(), 4u);  // duplicates written once
  const auto subset = trace_of(t, {1, 2});
  EXPECT_TRUE(events_with(subset, "X", 0).empty());
  EXPECT_TRUE(events_with(subset, "M", 3).empty());
}

TEST(PerfettoTrace, TimesAreMicrosecondsFromSeconds) {
  const auto x = events_with(trace_of(two_unit_timeline(), {0}), "X");
  ASSERT_EQ(x.size(), 3u);
  // Sorted by (track, start): compute fwd, compute bwd, tp all-reduce.
  EXPECT_EQ(x[0].at("name"), "L0.mb0.fwd.qkv_proj");
  EXPECT_DOUBLE_EQ(x[0].at("ts").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(x[0].at("dur").get<double>(), 1000.0);
  EXPECT_EQ(x[1].at("name"), "L0.mb0.bwd.qkv_proj");
  EXPECT_DOUBLE_EQ(x[1].at("ts").get<double>(), 2000.0);
  EXPECT_DOUBLE_EQ(x[1].at("dur").get<double>(), 1500.0);
  EXPECT_EQ(x[2].at("name"), "L0.mb0.fwd.tp_allreduce");
  EXPECT_DOUBLE_EQ(x[2].at("ts").get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(x[2].at("dur").get<double>(), 250.0);
  EXPECT_TRUE(x[0].at("ts").is_number_float());
}

TEST(PerfettoTrace, TrackIsTidAndKindIsCategory) {
  const auto x = events_with(trace_of(two_unit_timeline(), {1}), "X");
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[0].at("tid"), 0);
  EXPECT_EQ(x[0].at("cat"), "compute");
  EXPECT_EQ(x[1].at("tid"), 1);
  EXPECT_EQ(x[1].at("cat"), "communication");
  EXPECT_EQ(x[1].at("pid"), 1);
}

TEST(PerfettoTrace, MetadataNamesProcessesAfterGpusAndThreadsAfterTracks) {
  const auto m = events_with(trace_of(two_unit_timeline(), {2}), "M", 2);
  const auto find = [&](const std::string& what, int tid) {
    for (const auto& e : m) {
      if (e.at("name") == what && e.at("tid") == tid) return e.at("args");
    }
    ADD_FAILURE() << "no " << what << " for tid " << tid;
    return nlohmann::json{};
  };
  EXPECT_EQ(find("process_name", 0).value("name", ""), "GPU 2");
  EXPECT_EQ(find("process_sort_index", 0).value("sort_index", -1), 2);
  EXPECT_EQ(find("thread_name", 0).value("name", ""), "compute");
  EXPECT_EQ(find("thread_sort_index", 0).value("sort_index", -1), 0);
  EXPECT_EQ(find("thread_name", 1).value("name", ""), "tp");
  EXPECT_EQ(find("thread_sort_index", 1).value("sort_index", -1), 1);
  EXPECT_EQ(m.size(), 6u);  // process name + sort index, and name + sort index of 2 tracks
}

TEST(PerfettoTrace, UnitSharedByTwoRanksAppearsUnderBothPids) {
  const auto trace = trace_of(two_unit_timeline(), {0, 2});
  const auto r0 = events_with(trace, "X", 0);
  const auto r2 = events_with(trace, "X", 2);
  ASSERT_EQ(r0.size(), 3u);
  ASSERT_EQ(r2.size(), 3u);
  for (std::size_t i = 0; i < r0.size(); ++i) {
    auto a = r0[i];
    auto b = r2[i];
    a.erase("pid");
    b.erase("pid");
    EXPECT_EQ(a, b) << i;
  }
  EXPECT_EQ(events_with(trace, "M", 2).front().at("args").at("name"), "GPU 2");
}

TEST(PerfettoTrace, RejectsRanksOutsideTheClusterBeforeWriting) {
  std::ostringstream out;
  EXPECT_THROW(write_perfetto_trace(two_unit_timeline(), out, {0, 4}), Error);
  EXPECT_THROW(write_perfetto_trace(two_unit_timeline(), out, {-1}), Error);
  EXPECT_TRUE(out.str().empty());
}

TEST(PerfettoTrace, RejectsInconsistentTimelines) {
  std::ostringstream out;
  auto bad_unit = two_unit_timeline();
  bad_unit.unit_of_rank[3] = 2;
  EXPECT_THROW(write_perfetto_trace(bad_unit, out, {0}), Error);
  auto bad_name = two_unit_timeline();
  bad_name.spans[0].name = 9;
  EXPECT_THROW(write_perfetto_trace(bad_name, out, {}), Error);
  auto bad_track = two_unit_timeline();
  bad_track.spans[1].track = 2;
  EXPECT_THROW(write_perfetto_trace(bad_track, out, {}), Error);
  auto backwards = two_unit_timeline();
  backwards.spans[2].end_s = -1.0;
  EXPECT_THROW(write_perfetto_trace(backwards, out, {}), Error);
  EXPECT_TRUE(out.str().empty());
}

TEST(ParseRankList, ParsesRanksAndRanges) {
  std::vector<int> expected = {0, 1, 2, 3, 4, 5, 6, 7, 64, 128, 129, 130};
  EXPECT_EQ(parse_rank_list("0-7,64,128-130", 256), expected);
  EXPECT_EQ(parse_rank_list("5", 8), std::vector<int>{5});
  EXPECT_EQ(parse_rank_list("4-4", 8), std::vector<int>{4});
  EXPECT_EQ(parse_rank_list("0-7", 8).size(), 8u);
}

TEST(ParseRankList, SortsRemovesDuplicatesAndAllowsSpaces) {
  EXPECT_EQ(parse_rank_list("5,1-3,2", 8), (std::vector<int>{1, 2, 3, 5}));
  EXPECT_EQ(parse_rank_list(" 6 , 0 - 1 ", 8), (std::vector<int>{0, 1, 6}));
}

TEST(ParseRankList, RejectsBadSyntax) {
  for (const char* text : {"a", "1-", "-3", "1--2", "1-2-3", "1.5", "+2", "0x10"}) {
    const auto message = error_of([&] { parse_rank_list(text, 16); });
    EXPECT_THAT(message, HasSubstr("--trace-ranks")) << text;
    EXPECT_THAT(message, HasSubstr("is not a rank")) << text;
    EXPECT_THAT(message, HasSubstr("0-15")) << text;
  }
  for (const char* text : {"", "  ", "1,,2", "1,", ",1"}) {
    const auto message = error_of([&] { parse_rank_list(text, 16); });
    EXPECT_THAT(message, HasSubstr("--trace-ranks")) << '"' << text << '"';
    EXPECT_THAT(message, HasSubstr("empty")) << '"' << text << '"';
    EXPECT_THAT(message, HasSubstr("0-15")) << '"' << text << '"';
  }
}

TEST(ParseRankList, RejectsReversedRanges) {
  const auto message = error_of([] { parse_rank_list("0,7-3", 16); });
  EXPECT_THAT(message, HasSubstr("--trace-ranks"));
  EXPECT_THAT(message, HasSubstr("7-3"));
  EXPECT_THAT(message, HasSubstr("backwards"));
  EXPECT_THAT(message, HasSubstr("0-15"));
}

TEST(ParseRankList, RejectsRanksPastTheCluster) {
  for (const char* text : {"16", "0,8-16", "99999999999999999999999"}) {
    const auto message = error_of([&] { parse_rank_list(text, 16); });
    EXPECT_THAT(message, HasSubstr("--trace-ranks")) << text;
    EXPECT_THAT(message, HasSubstr("out of range")) << text;
    EXPECT_THAT(message, HasSubstr("0-15")) << text;
    EXPECT_THAT(message, HasSubstr("16 ranks")) << text;
  }
  EXPECT_THROW(parse_rank_list("0", 0), ConfigError);
}

}  // namespace
}  // namespace rapidllm::io
