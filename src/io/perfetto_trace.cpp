#include "io/perfetto_trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rapidllm/error.hpp"

namespace rapidllm::io {

namespace {

constexpr double kMicrosecondsPerSecond = 1e6;

// Span indices grouped by unit (units[u] = order[offsets[u] .. offsets[u+1])), each unit's
// spans sorted by (track, start, end): built once, shared by every rank that shows the unit.
struct SpansByUnit {
  std::vector<std::size_t> offsets;
  std::vector<std::size_t> order;
};

void check_timeline(const exec::Timeline& t) {
  if (t.units < 0) throw Error(fmt::format("trace: the timeline has a negative unit count ({})", t.units));
  for (std::size_t r = 0; r < t.unit_of_rank.size(); ++r) {
    const int u = t.unit_of_rank[r];
    if (u < 0 || u >= t.units) {
      throw Error(fmt::format("trace: rank {} shows unit {}, but the timeline has {} units", r, u, t.units));
    }
  }
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    const auto& s = t.spans[i];
    if (s.unit < 0 || s.unit >= t.units) {
      throw Error(fmt::format("trace: span {} belongs to unit {}, but the timeline has {} units", i, s.unit, t.units));
    }
    if (s.name >= t.names.size()) {
      throw Error(fmt::format("trace: span {} names entry {}, but the timeline has {} names", i, s.name, t.names.size()));
    }
    if (s.track >= t.tracks.size()) {
      throw Error(fmt::format("trace: span {} is on track {}, but the timeline has {} tracks", i, s.track,
                              t.tracks.size()));
    }
    if (!std::isfinite(s.start_s) || !std::isfinite(s.end_s) || s.end_s < s.start_s) {
      throw Error(fmt::format("trace: span {} ('{}') runs from {} s to {} s", i, t.names[s.name], s.start_s, s.end_s));
    }
  }
}

SpansByUnit group_spans(const exec::Timeline& t) {
  const auto units = static_cast<std::size_t>(t.units);
  SpansByUnit g;
  g.offsets.assign(units + 1, 0);
  for (const auto& s : t.spans) ++g.offsets[static_cast<std::size_t>(s.unit) + 1];
  for (std::size_t u = 0; u < units; ++u) g.offsets[u + 1] += g.offsets[u];
  g.order.resize(t.spans.size());
  std::vector<std::size_t> next(g.offsets.begin(), g.offsets.end() - 1);
  for (std::size_t i = 0; i < t.spans.size(); ++i) g.order[next[static_cast<std::size_t>(t.spans[i].unit)]++] = i;
  const auto before = [&t](std::size_t a, std::size_t b) {
    const auto& x = t.spans[a];
    const auto& y = t.spans[b];
    return std::tie(x.track, x.start_s, x.end_s, a) < std::tie(y.track, y.start_s, y.end_s, b);
  };
  for (std::size_t u = 0; u < units; ++u) {
    const auto first = g.order.begin() + static_cast<std::ptrdiff_t>(g.offsets[u]);
    const auto last = g.order.begin() + static_cast<std::ptrdiff_t>(g.offsets[u + 1]);
    std::sort(first, last, before);
  }
  return g;
}

// Writes the elements of the "traceEvents" array one by one, comma-separated.
class EventStream {
 public:
  explicit EventStream(std::ostream& out) : out_(out) {}

  void write(const nlohmann::json& event) {
    out_ << (first_ ? "\n" : ",\n");
    first_ = false;
    out_ << event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  void metadata(int pid, int tid, const char* what, nlohmann::json args) {
    write({{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", what}, {"args", std::move(args)}});
  }

 private:
  std::ostream& out_;
  bool first_ = true;
};

std::vector<int> ranks_to_write(const exec::Timeline& t, const std::vector<int>& ranks) {
  const auto num_ranks = t.unit_of_rank.size();
  std::vector<int> out;
  if (ranks.empty()) {
    out.resize(num_ranks);
    for (std::size_t r = 0; r < num_ranks; ++r) out[r] = static_cast<int>(r);
    return out;
  }
  for (const int r : ranks) {
    if (r < 0 || static_cast<std::size_t>(r) >= num_ranks) {
      throw Error(fmt::format("trace: rank {} is not in the cluster (ranks 0 to {})", r,
                              static_cast<long long>(num_ranks) - 1));
    }
  }
  out = ranks;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

void write_perfetto_trace(const exec::Timeline& t, std::ostream& out, const std::vector<int>& ranks) {
  check_timeline(t);
  const std::vector<int> selected = ranks_to_write(t, ranks);
  const SpansByUnit groups = group_spans(t);

  out << R"({"displayTimeUnit":"ns","traceEvents":[)";
  EventStream events(out);
  for (const int rank : selected) {
    events.metadata(rank, 0, "process_name", {{"name", fmt::format("GPU {}", rank)}});
    events.metadata(rank, 0, "process_sort_index", {{"sort_index", rank}});
    const auto unit = static_cast<std::size_t>(t.unit_of_rank[static_cast<std::size_t>(rank)]);
    int track = -1;
    for (std::size_t k = groups.offsets[unit]; k < groups.offsets[unit + 1]; ++k) {
      const auto& s = t.spans[groups.order[k]];
      if (s.track != track) {  // spans are sorted by track: name each track before its first span
        track = s.track;
        events.metadata(rank, track, "thread_name", {{"name", t.tracks[s.track]}});
        events.metadata(rank, track, "thread_sort_index", {{"sort_index", track}});
      }
      const double ts = s.start_s * kMicrosecondsPerSecond;
      const double end = s.end_s * kMicrosecondsPerSecond;  // ts + dur lands on the end exactly
      events.write({{"ph", "X"},
                    {"pid", rank},
                    {"tid", track},
                    {"ts", ts},
                    {"dur", end - ts},
                    {"name", t.names[s.name]},
                    {"cat", s.kind == exec::SpanKind::compute ? "compute" : "communication"}});
    }
    if (!out) break;
  }
  out << "\n]}\n";
  out.flush();
  if (!out) throw Error("trace: writing the trace failed");
}

std::vector<int> parse_rank_list(std::string_view text, int num_ranks) {
  const std::string valid = num_ranks > 0 ? fmt::format("0-{}", num_ranks - 1) : std::string("none");
  const auto fail = [&](const std::string& problem) {
    throw ConfigError(SourceLocation{"command line", 0, 0, {}}, "--trace-ranks", problem,
                      fmt::format("write ranks and ranges such as 0-7,64,128-130; valid ranks are {} "
                                  "(the cluster has {} ranks)",
                                  valid, num_ranks));
  };
  const auto trim = [](std::string_view s) {
    const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
  };
  if (num_ranks <= 0) fail("the cluster has no ranks to trace");
  if (trim(text).empty()) fail("the rank list is empty");

  // A rank: decimal digits only. Values past int are kept as "too large" for the range check.
  const auto parse_rank = [&](std::string_view item, std::string_view s) -> long long {
    s = trim(s);
    const bool digits = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      fail(fmt::format("'{}' is not a rank (a number in {}) or a range of ranks (first-last)", item, valid));
    }
    long long value = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc::result_out_of_range) return std::numeric_limits<long long>::max();
    return value;
  };
  std::vector<int> out;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view raw = rest.substr(0, comma);
    const std::string_view item = trim(raw);
    if (item.empty()) fail(fmt::format("'{}' has an empty entry (two commas, or a comma at an end)", text));
    const auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      const long long r = parse_rank(item, item);
      if (r >= num_ranks) fail(fmt::format("rank {} is out of range: valid ranks are {}", item, valid));
      out.push_back(static_cast<int>(r));
    } else {
      const long long first = parse_rank(item, item.substr(0, dash));
      const long long last = parse_rank(item, item.substr(dash + 1));
      if (last < first) {
        fail(fmt::format("range '{}' runs backwards: write the lower rank first ({}-{})", item,
                         trim(item.substr(dash + 1)), trim(item.substr(0, dash))));
      }
      if (last >= num_ranks) {
        fail(fmt::format("range '{}' is out of range: rank {} is past the last rank; valid ranks are {}", item,
                         trim(item.substr(dash + 1)), valid));
      }
      for (long long r = first; r <= last; ++r) out.push_back(static_cast<int>(r));
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace rapidllm::io
