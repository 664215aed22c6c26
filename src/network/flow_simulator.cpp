#include "network/flow_simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {

enum class EventType : std::uint8_t { start, drain, complete };

struct Event {
  double t = 0.0;
  std::uint64_t seq = 0;
  EventType type = EventType::start;
  int id = 0;                 // transfer (start, complete) or slot (drain)
  std::uint64_t version = 0;  // drain: valid only while the slot's version matches
};

struct Later {
  bool operator()(const Event& a, const Event& b) const {
    if (a.t != b.t) return a.t > b.t;
    return a.seq > b.seq;
  }
};

constexpr double kTiny = 1e-12;

}  // namespace

FlowSimulator::FlowSimulator(const Topology& topology) : topo_(topology), router_(topology) {}

const FlowSimulator::Usage& FlowSimulator::usage_of(const PairSet& pairs) {
  if (auto it = usage_cache_.find(&pairs); it != usage_cache_.end()) return it->second;
  const auto& links = topo_.links();
  std::vector<double> acc(links.size(), 0.0);
  std::vector<int> touched;
  std::vector<LinkShare> path;
  Usage u;
  pairs.for_each([&](int src, int dst) {
    path.clear();
    const double lat = router_.route(src, dst, path);
    u.latency_s = std::max(u.latency_s, lat);
    for (const auto& ls : path) {
      if (acc[static_cast<std::size_t>(ls.link)] == 0.0) touched.push_back(ls.link);
      acc[static_cast<std::size_t>(ls.link)] += ls.fraction;
    }
  });
  std::sort(touched.begin(), touched.end());
  u.solo_rate = std::numeric_limits<double>::infinity();
  for (int l : touched) {
    const double w = acc[static_cast<std::size_t>(l)];
    u.links.push_back(l);
    u.weights.push_back(w);
    u.solo_rate = std::min(u.solo_rate, links[static_cast<std::size_t>(l)].capacity_bytes_per_s / w);
  }
  return usage_cache_.emplace(&pairs, std::move(u)).first->second;
}

SimulationResult FlowSimulator::run(const FlowPlan& plan, const SimulationOptions& options) {
  usage_cache_.clear();
  const auto& links = topo_.links();
  const std::size_t nt = plan.transfers.size();
  SimulationResult res;
  res.transfer_start_s.assign(nt, 0.0);
  res.transfer_end_s.assign(nt, 0.0);
  res.job_time_s.assign(static_cast<std::size_t>(std::max(plan.jobs, 0)), 0.0);
  if (options.track_node_bytes) {
    res.node_bytes_sent.assign(static_cast<std::size_t>(topo_.num_nodes()), 0.0);
    res.node_bytes_received.assign(static_cast<std::size_t>(topo_.num_nodes()), 0.0);
  }

  // Dependency bookkeeping.
  std::vector<int> pending(nt, 0);
  std::vector<std::vector<int>> dependents(nt);
  for (std::size_t i = 0; i < nt; ++i) {
    for (int d : plan.transfers[i].deps) {
      if (d < 0 || static_cast<std::size_t>(d) >= nt || static_cast<std::size_t>(d) == i) {
        throw InfeasibleError(fmt::format("flow plan: transfer {} depends on invalid transfer {}", i, d));
      }
      dependents[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
      ++pending[i];
    }
  }

  // Active transfers ("slots") and per-link lists of (slot, weight).
  struct Slot {
    int transfer = -1;
    const Usage* usage = nullptr;
    double members = 0.0;
    double remaining = 0.0;  // bytes per member still to send
    double rate = 0.0;       // bytes/s per member
    double last_t = 0.0;
    std::uint64_t version = 0;
    bool active = false;
  };
  std::vector<Slot> slots;
  std::vector<int> free_slots;
  std::vector<std::vector<std::pair<int, double>>> on_link(links.size());
  std::size_t shared_links = 0;  // links with two or more active slots

  std::priority_queue<Event, std::vector<Event>, Later> events;
  std::uint64_t seq = 0;
  auto push = [&](double t, EventType type, int id, std::uint64_t version = 0) {
    events.push(Event{t, seq++, type, id, version});
  };
  for (std::size_t i = 0; i < nt; ++i) {
    if (pending[i] == 0) push(0.0, EventType::start, static_cast<int>(i));
  }

  // Scratch for the component search and the water-filling.
  std::vector<std::uint32_t> link_mark(links.size(), 0), slot_mark;
  std::uint32_t epoch = 0;
  std::vector<double> rem(links.size(), 0.0), wsum(links.size(), 0.0);
  std::vector<int> comp_links, comp_slots, seed_links;
  std::vector<char> frozen;

  auto advance = [&](Slot& s, double now) {
    const double sent = s.rate * (now - s.last_t);
    s.remaining -= sent;
    s.last_t = now;
  };
  auto schedule_drain = [&](int slot_id, double now) {
    Slot& s = slots[static_cast<std::size_t>(slot_id)];
    ++s.version;
    if (s.remaining <= kTiny * std::max(1.0, plan.transfers[static_cast<std::size_t>(s.transfer)].bytes)) {
      push(now, EventType::drain, slot_id, s.version);
      return;
    }
    if (!(s.rate > 0.0)) {
      throw InfeasibleError(fmt::format("flow simulation: transfer {} gets no bandwidth (a link on its path has none)",
                                        s.transfer));
    }
    push(now + s.remaining / s.rate, EventType::drain, slot_id, s.version);
  };

  // Max-min fair rates for every slot connected to `seed_links`.
  auto recompute = [&](double now) {
    if (seed_links.empty()) return;
    ++epoch;
    if (slot_mark.size() < slots.size()) slot_mark.resize(slots.size(), 0);
    comp_links.clear();
    comp_slots.clear();
    std::vector<int> stack;
    for (int l : seed_links) {
      if (link_mark[static_cast<std::size_t>(l)] != epoch) {
        link_mark[static_cast<std::size_t>(l)] = epoch;
        stack.push_back(l);
      }
    }
    if (shared_links == 0) {
      // Nobody shares a link: every slot on the seed links runs at its solo rate.
      for (int l : stack) {
        for (const auto& [sid, w] : on_link[static_cast<std::size_t>(l)]) {
          if (slot_mark[static_cast<std::size_t>(sid)] == epoch) continue;
          slot_mark[static_cast<std::size_t>(sid)] = epoch;
          Slot& s = slots[static_cast<std::size_t>(sid)];
          advance(s, now);
          s.rate = s.usage->solo_rate;
          ++res.rate_computations;
          schedule_drain(sid, now);
        }
      }
      seed_links.clear();
      return;
    }
    while (!stack.empty()) {
      const int l = stack.back();
      stack.pop_back();
      comp_links.push_back(l);
      for (const auto& [sid, w] : on_link[static_cast<std::size_t>(l)]) {
        if (slot_mark[static_cast<std::size_t>(sid)] == epoch) continue;
        slot_mark[static_cast<std::size_t>(sid)] = epoch;
        comp_slots.push_back(sid);
        for (int l2 : slots[static_cast<std::size_t>(sid)].usage->links) {
          if (link_mark[static_cast<std::size_t>(l2)] != epoch) {
            link_mark[static_cast<std::size_t>(l2)] = epoch;
            stack.push_back(l2);
          }
        }
      }
    }
    seed_links.clear();
    if (comp_slots.empty()) return;
    for (int sid : comp_slots) advance(slots[static_cast<std::size_t>(sid)], now);
    if (comp_slots.size() == 1) {
      Slot& s = slots[static_cast<std::size_t>(comp_slots[0])];
      s.rate = s.usage->solo_rate;
      ++res.rate_computations;
      schedule_drain(comp_slots[0], now);
      return;
    }
    // Progressive filling: raise every unfrozen rate together; the link whose remaining
    // capacity per unit of unfrozen weight is smallest saturates first and freezes its slots.
    for (int l : comp_links) {
      rem[static_cast<std::size_t>(l)] = links[static_cast<std::size_t>(l)].capacity_bytes_per_s;
      double w = 0.0;
      for (const auto& [sid, wt] : on_link[static_cast<std::size_t>(l)]) w += wt;
      wsum[static_cast<std::size_t>(l)] = w;
    }
    using Entry = std::pair<double, int>;  // (share, link)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    for (int l : comp_links) {
      const auto lu = static_cast<std::size_t>(l);
      if (wsum[lu] > kTiny) heap.emplace(rem[lu] / wsum[lu], l);
    }
    if (frozen.size() < slots.size()) frozen.resize(slots.size(), 0);
    for (int sid : comp_slots) frozen[static_cast<std::size_t>(sid)] = 0;
    std::size_t left = comp_slots.size();
    while (left > 0 && !heap.empty()) {
      const auto [share, l] = heap.top();
      heap.pop();
      const auto lu = static_cast<std::size_t>(l);
      if (wsum[lu] <= kTiny) continue;
      const double current = std::max(0.0, rem[lu]) / wsum[lu];
      // Shares only grow as slots freeze, and every change queued a fresh entry: skip stale ones.
      if (current > share * (1.0 + 1e-9)) continue;
      for (const auto& [sid, wt] : on_link[lu]) {
        if (frozen[static_cast<std::size_t>(sid)]) continue;
        frozen[static_cast<std::size_t>(sid)] = 1;
        --left;
        Slot& s = slots[static_cast<std::size_t>(sid)];
        s.rate = current;
        ++res.rate_computations;
        const Usage& u = *s.usage;
        for (std::size_t k = 0; k < u.links.size(); ++k) {
          const auto lk = static_cast<std::size_t>(u.links[k]);
          rem[lk] -= current * u.weights[k];
          wsum[lk] -= u.weights[k];
          if (wsum[lk] > kTiny && lk != lu) heap.emplace(std::max(0.0, rem[lk]) / wsum[lk], u.links[k]);
        }
      }
    }
    for (int sid : comp_slots) schedule_drain(sid, now);
  };

  auto activate = [&](int ti, double now) {
    const Transfer& t = plan.transfers[static_cast<std::size_t>(ti)];
    res.transfer_start_s[static_cast<std::size_t>(ti)] = now;
    const double members = t.pairs ? static_cast<double>(t.pairs->size()) : 0.0;
    res.bytes_injected += members * t.bytes;
    const Usage* u = t.pairs ? &usage_of(*t.pairs) : nullptr;
    if (!u || u->links.empty() || t.bytes <= 0.0) {
      res.bytes_delivered += members * t.bytes;
      push(now + (u ? u->latency_s : 0.0) + t.extra_latency_s, EventType::complete, ti);
      return;
    }
    int sid;
    if (!free_slots.empty()) {
      sid = free_slots.back();
      free_slots.pop_back();
    } else {
      sid = static_cast<int>(slots.size());
      slots.emplace_back();
    }
    Slot& s = slots[static_cast<std::size_t>(sid)];
    s.transfer = ti;
    s.usage = u;
    s.members = members;
    s.remaining = t.bytes;
    s.rate = 0.0;
    s.last_t = now;
    s.active = true;
    for (std::size_t k = 0; k < u->links.size(); ++k) {
      auto& list = on_link[static_cast<std::size_t>(u->links[k])];
      list.emplace_back(sid, u->weights[k]);
      if (list.size() == 2) ++shared_links;
    }
    if (shared_links == 0) {  // alone on every link (and so is everyone): its solo rate
      s.rate = u->solo_rate;
      ++res.rate_computations;
      schedule_drain(sid, now);
      return;
    }
    seed_links.insert(seed_links.end(), u->links.begin(), u->links.end());
  };

  auto drain = [&](int sid, double now) {
    Slot& s = slots[static_cast<std::size_t>(sid)];
    advance(s, now);
    const Transfer& t = plan.transfers[static_cast<std::size_t>(s.transfer)];
    res.bytes_delivered += s.members * (t.bytes - std::max(0.0, s.remaining));
    const bool shared_before = shared_links > 0;  // else nobody else's rate depends on this slot
    for (int l : s.usage->links) {
      auto& list = on_link[static_cast<std::size_t>(l)];
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (list[k].first == sid) {
          list[k] = list.back();
          list.pop_back();
          break;
        }
      }
      if (list.size() == 1) --shared_links;
      if (shared_before && !list.empty()) seed_links.push_back(l);
    }
    s.active = false;
    ++s.version;
    free_slots.push_back(sid);
    push(now + s.usage->latency_s + t.extra_latency_s, EventType::complete, s.transfer);
  };

  std::size_t completed = 0;
  while (!events.empty()) {
    const double now = events.top().t;
    while (!events.empty() && events.top().t <= now) {
      const Event e = events.top();
      events.pop();
      ++res.events;
      switch (e.type) {
        case EventType::start: activate(e.id, now); break;
        case EventType::drain: {
          const Slot& s = slots[static_cast<std::size_t>(e.id)];
          if (!s.active || s.version != e.version) break;  // superseded by a rate change
          drain(e.id, now);
          break;
        }
        case EventType::complete: {
          ++completed;
          const auto ti = static_cast<std::size_t>(e.id);
          res.transfer_end_s[ti] = now;
          const Transfer& t = plan.transfers[ti];
          if (t.job >= 0 && static_cast<std::size_t>(t.job) < res.job_time_s.size()) {
            res.job_time_s[static_cast<std::size_t>(t.job)] = std::max(res.job_time_s[static_cast<std::size_t>(t.job)], now);
          }
          res.time_s = std::max(res.time_s, now);
          for (int d : dependents[ti]) {
            if (--pending[static_cast<std::size_t>(d)] == 0) push(now, EventType::start, d);
          }
          break;
        }
      }
    }
    recompute(now);
  }
  if (completed != nt) {
    throw InfeasibleError(fmt::format("flow plan: {} of {} transfers never ran (a dependency cycle)", nt - completed, nt));
  }

  res.phase_time_s.assign(plan.phases.size(), 0.0);
  std::vector<double> first(plan.phases.size(), std::numeric_limits<double>::infinity());
  std::vector<double> last(plan.phases.size(), 0.0);
  for (std::size_t i = 0; i < nt; ++i) {
    const int p = plan.transfers[i].phase;
    if (p < 0 || static_cast<std::size_t>(p) >= plan.phases.size()) continue;
    first[static_cast<std::size_t>(p)] = std::min(first[static_cast<std::size_t>(p)], res.transfer_start_s[i]);
    last[static_cast<std::size_t>(p)] = std::max(last[static_cast<std::size_t>(p)], res.transfer_end_s[i]);
  }
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    if (std::isfinite(first[p])) res.phase_time_s[p] = last[p] - first[p];
  }
  if (options.track_node_bytes) {
    for (const auto& t : plan.transfers) {
      if (!t.pairs) continue;
      t.pairs->for_each([&](int src, int dst) {
        res.node_bytes_sent[static_cast<std::size_t>(src)] += t.bytes;
        res.node_bytes_received[static_cast<std::size_t>(dst)] += t.bytes;
      });
    }
  }
  return res;
}

}  // namespace rapidllm::network
