#include "network/flow_engine.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {
constexpr double kTiny = 1e-12;
}

FlowEngine::FlowEngine(const Topology& topology, std::shared_ptr<Router> router)
    : usages_(topology, std::move(router)), filler_(topology.links()) {}

void FlowEngine::push(double t, EventType type, int sub, int id, std::uint64_t version) {
  events_queue_.push(Event{t, seq_++, type, sub, id, version});
}

double FlowEngine::next_event_s() const {
  return events_queue_.empty() ? std::numeric_limits<double>::infinity() : events_queue_.top().t;
}

void FlowEngine::submit(double now, FlowPlan plan, Done done, TransferDone on_transfer) {
  if (now < now_) {
    throw std::invalid_argument(
        fmt::format("flow engine: submission at {} s, before the last event at {} s", now, now_));
  }
  const std::size_t nt = plan.transfers.size();
  Submission s;
  s.pending.assign(nt, 0);
  s.dependents.resize(nt);
  s.start_s.assign(nt, 0.0);
  s.left = nt;
  for (std::size_t i = 0; i < nt; ++i) {
    for (int d : plan.transfers[i].deps) {
      if (d < 0 || static_cast<std::size_t>(d) >= nt || static_cast<std::size_t>(d) == i) {
        throw InfeasibleError(fmt::format("flow plan: transfer {} depends on invalid transfer {}", i, d));
      }
      s.dependents[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
      ++s.pending[i];
    }
  }
  // A cycle would leave the submission unfinished forever: refuse it up front (Kahn's order).
  std::vector<int> indegree = s.pending, ready;
  for (std::size_t i = 0; i < nt; ++i) {
    if (indegree[i] == 0) ready.push_back(static_cast<int>(i));
  }
  std::size_t reached = 0;
  while (!ready.empty()) {
    const int t = ready.back();
    ready.pop_back();
    ++reached;
    for (int d : s.dependents[static_cast<std::size_t>(t)]) {
      if (--indegree[static_cast<std::size_t>(d)] == 0) ready.push_back(d);
    }
  }
  if (reached != nt) {
    throw InfeasibleError(
        fmt::format("flow plan: {} of {} transfers never ran (a dependency cycle)", nt - reached, nt));
  }
  s.plan = std::move(plan);
  s.done = std::move(done);
  s.on_transfer = std::move(on_transfer);
  int sub;
  if (!free_subs_.empty()) {
    sub = free_subs_.back();
    free_subs_.pop_back();
    subs_[static_cast<std::size_t>(sub)] = std::move(s);
  } else {
    sub = static_cast<int>(subs_.size());
    subs_.push_back(std::move(s));
  }
  const Submission& added = subs_[static_cast<std::size_t>(sub)];
  for (std::size_t i = 0; i < nt; ++i) {
    if (added.pending[i] == 0) push(now, EventType::start, sub, static_cast<int>(i));
  }
  if (nt == 0) push(now, EventType::finish, sub, 0);
}

void FlowEngine::advance() {
  if (events_queue_.empty()) return;
  const double now = events_queue_.top().t;
  now_ = now;
  while (!events_queue_.empty() && events_queue_.top().t <= now) {
    const Event e = events_queue_.top();
    events_queue_.pop();
    if (e.type != EventType::finish) ++events_;  // a bookkeeping event, not the network's
    switch (e.type) {
      case EventType::start: activate(e.sub, e.id, now); break;
      case EventType::drain: {
        const Slot& s = slots_[static_cast<std::size_t>(e.id)];
        if (s.active && s.version == e.version) drain(e.id, now);  // else superseded by a rate change
        break;
      }
      case EventType::complete: complete(e.sub, e.id, now); break;
      case EventType::finish: finished_.push_back(e.sub); break;
    }
  }
  recompute(now);
  drop_stale_drains();
  if (meter_ != nullptr) {
    meter_->add(static_cast<double>(events_ - metered_events_));
    metered_events_ = events_;
  }
  std::vector<int> finished;
  finished.swap(finished_);
  for (int sub : finished) finish(sub, now);
}

void FlowEngine::activate(int sub, int ti, double now) {
  Submission& sm = subs_[static_cast<std::size_t>(sub)];
  const Transfer& t = sm.plan.transfers[static_cast<std::size_t>(ti)];
  sm.start_s[static_cast<std::size_t>(ti)] = now;
  Usage* u = t.pairs ? &usages_.of(t.pairs) : nullptr;
  const double members = u ? u->members : 0.0;
  bytes_injected_ += members * t.bytes;
  if (!u || u->links.empty() || t.bytes <= 0.0) {
    bytes_delivered_ += members * t.bytes;
    push(now + (u ? u->latency_s : 0.0) + t.extra_latency_s, EventType::complete, sub, ti);
    return;
  }
  int sid;
  if (!free_slots_.empty()) {
    sid = free_slots_.back();
    free_slots_.pop_back();
  } else {
    sid = static_cast<int>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[static_cast<std::size_t>(sid)];
  s.sub = sub;
  s.transfer = ti;
  s.usage = u;
  s.remaining = t.bytes;
  s.rate = 0.0;
  s.last_t = now;
  s.active = true;
  s.in_usage = u->slots.size();
  u->slots.push_back(sid);
  mark_dirty(*u);
}

void FlowEngine::drain(int sid, double now) {
  Slot& s = slots_[static_cast<std::size_t>(sid)];
  s.remaining -= s.rate * (now - s.last_t);
  s.last_t = now;
  const Transfer& t = subs_[static_cast<std::size_t>(s.sub)].plan.transfers[static_cast<std::size_t>(s.transfer)];
  Usage& u = *s.usage;
  bytes_delivered_ += u.members * (t.bytes - std::max(0.0, s.remaining));
  const int moved = u.slots.back();  // swap-remove the slot from its usage
  u.slots[s.in_usage] = moved;
  slots_[static_cast<std::size_t>(moved)].in_usage = s.in_usage;
  u.slots.pop_back();
  mark_dirty(u);  // its other slots, or else the usages it overlapped, get new rates
  s.active = false;
  ++s.version;
  free_slots_.push_back(sid);
  push(now + u.latency_s + t.extra_latency_s, EventType::complete, s.sub, s.transfer);
}

void FlowEngine::complete(int sub, int ti, double now) {
  Submission& sm = subs_[static_cast<std::size_t>(sub)];
  ++transfers_run_;
  if (sm.on_transfer) sm.on_transfer(ti, sm.start_s[static_cast<std::size_t>(ti)], now);
  for (int d : sm.dependents[static_cast<std::size_t>(ti)]) {
    if (--sm.pending[static_cast<std::size_t>(d)] == 0) push(now, EventType::start, sub, d);
  }
  if (--sm.left == 0) finished_.push_back(sub);
}

void FlowEngine::mark_dirty(Usage& u) {
  if (u.dirty) return;
  u.dirty = true;
  dirty_.push_back(&u);
}

void FlowEngine::recompute(double now) {
  if (dirty_.empty()) return;
  ++visit_epoch_;
  // Rates depend only on the connected set of overlapping usages, so each set around a
  // changed usage is recomputed once; every other usage keeps its rates and drain times.
  auto component_from = [&](Usage* seed) {
    component_.clear();
    stack_.assign(1, seed);
    seed->visit = visit_epoch_;
    while (!stack_.empty()) {
      Usage* u = stack_.back();
      stack_.pop_back();
      component_.push_back(u);
      for (Usage* a : u->neighbors) {
        if (!a->slots.empty() && a->visit != visit_epoch_) {
          a->visit = visit_epoch_;
          stack_.push_back(a);
        }
      }
    }
    if (component_.size() == 1) {  // alone on its links: the solo rate, split over its slots
      const Usage& u = *component_[0];
      for (int sid : u.slots) set_rate(sid, u.solo_rate / static_cast<double>(u.slots.size()), now);
      return;
    }
    filler_.fill(component_, rates_);
    for (std::size_t i = 0; i < component_.size(); ++i) {
      for (int sid : component_[i]->slots) set_rate(sid, rates_[i], now);
    }
  };
  for (Usage* d : dirty_) {
    d->dirty = false;
    if (!d->slots.empty()) {
      if (d->visit != visit_epoch_) component_from(d);
      continue;
    }
    for (Usage* a : d->neighbors) {
      if (!a->slots.empty() && a->visit != visit_epoch_) component_from(a);
    }
  }
  dirty_.clear();
}

void FlowEngine::set_rate(int sid, double rate, double now) {
  Slot& s = slots_[static_cast<std::size_t>(sid)];
  s.remaining -= s.rate * (now - s.last_t);
  s.last_t = now;
  s.rate = rate;
  ++s.version;
  ++rate_computations_;
  const Transfer& t = subs_[static_cast<std::size_t>(s.sub)].plan.transfers[static_cast<std::size_t>(s.transfer)];
  if (s.remaining <= kTiny * std::max(1.0, t.bytes)) {
    push(now, EventType::drain, s.sub, sid, s.version);
    return;
  }
  if (!(rate > 0.0)) {
    throw InfeasibleError(
        fmt::format("flow simulation: transfer {} gets no bandwidth (a link on its path has none)", s.transfer));
  }
  push(now + s.remaining / rate, EventType::drain, s.sub, sid, s.version);
}

void FlowEngine::drop_stale_drains() {
  // So that next_event_s() is a real event (infinity once everything has finished).
  while (!events_queue_.empty()) {
    const Event& e = events_queue_.top();
    if (e.type != EventType::drain) return;
    const Slot& s = slots_[static_cast<std::size_t>(e.id)];
    if (s.active && s.version == e.version) return;
    events_queue_.pop();
    ++events_;
  }
}

void FlowEngine::finish(int sub, double now) {
  Submission s = std::move(subs_[static_cast<std::size_t>(sub)]);
  subs_[static_cast<std::size_t>(sub)] = Submission{};
  free_subs_.push_back(sub);
  std::vector<const PairSet*> used;
  for (const auto& t : s.plan.transfers) {
    if (t.pairs) used.push_back(t.pairs.get());
  }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  Done done = std::move(s.done);
  s = Submission{};  // drop the plan first: the table forgets usages only no plan holds
  for (const PairSet* p : used) usages_.release(p);
  if (done) done(now);
}

}  // namespace rapidllm::network
