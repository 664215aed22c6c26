// The incremental flow engine: submissions sharing links are slowed by exactly what max-min
// fairness predicts (hand-derived), disjoint ones are not, callbacks can submit more, a
// whole plan gives FlowSimulator::run's results, and random plans with overlapping
// transfers match a straightforward progressive-filling reference to 1e-9.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "net_fixtures.hpp"
#include "network/collective_flows.hpp"
#include "network/flow_engine.hpp"
#include "network/flow_simulator.hpp"
#include "network/routing.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::network {
namespace {

using namespace rapidllm::network::testing;

std::shared_ptr<PairSet> ring_pairs(std::vector<int> group) {
  auto p = std::make_shared<PairSet>();
  p->kind = PairSet::Kind::shift;
  p->groups = {std::move(group)};
  return p;
}

FlowPlan one_transfer(std::shared_ptr<const PairSet> pairs, double bytes) {
  FlowPlan plan;
  Transfer t;
  t.pairs = std::move(pairs);
  t.bytes = bytes;
  plan.add(t);
  plan.jobs = 1;
  return plan;
}

void run_until_idle(FlowEngine& engine) {
  while (std::isfinite(engine.next_event_s())) engine.advance();
}

// 8 GPUs on a 100 GB/s switch, no latency: a ring step of 100 MB alone takes 1 ms.
struct FlowEngineOnASwitch : ::testing::Test {
  NetworkDimension sw = dim("sw", TopologyType::switch_, 100e9, 0.0);
  Topology topo{{{&sw, 8}}, {}};
};

TEST_F(FlowEngineOnASwitch, OneSubmissionAloneRunsAtTheLinkRate) {
  FlowEngine engine(topo);
  double end = -1.0;
  engine.submit(0.0, one_transfer(ring_pairs({0, 1, 2, 3, 4, 5, 6, 7}), 100e6), [&](double t) { end = t; });
  run_until_idle(engine);
  expect_rel(end, 1e-3, 1e-12);
  EXPECT_EQ(engine.transfers_run(), 1u);
  EXPECT_TRUE(std::isinf(engine.next_event_s()));
}

TEST_F(FlowEngineOnASwitch, TwoSubmissionsOnTheSameLinksTakeTwiceAsLong) {
  // Two rings over the same 8 GPUs (distinct PairSet objects, so two usages that overlap):
  // every up- and downlink carries one member of each, 50 GB/s each -> 2 ms for both.
  FlowEngine engine(topo);
  double a = -1.0, b = -1.0;
  engine.submit(0.0, one_transfer(ring_pairs({0, 1, 2, 3, 4, 5, 6, 7}), 100e6), [&](double t) { a = t; });
  engine.submit(0.0, one_transfer(ring_pairs({0, 1, 2, 3, 4, 5, 6, 7}), 100e6), [&](double t) { b = t; });
  run_until_idle(engine);
  expect_rel(a, 2e-3, 1e-12);
  expect_rel(b, 2e-3, 1e-12);
}

TEST_F(FlowEngineOnASwitch, TwoSubmissionsOfOnePairSetShareItsLinks) {
  // The same PairSet twice: one usage with two slots, solo rate / 2 each -> 2 ms.
  FlowEngine engine(topo);
  const auto pairs = ring_pairs({0, 1, 2, 3, 4, 5, 6, 7});
  std::vector<double> ends;
  for (int i = 0; i < 2; ++i) engine.submit(0.0, one_transfer(pairs, 100e6), [&](double t) { ends.push_back(t); });
  run_until_idle(engine);
  ASSERT_EQ(ends.size(), 2u);
  expect_rel(ends[0], 2e-3, 1e-12);
  expect_rel(ends[1], 2e-3, 1e-12);
}

TEST_F(FlowEngineOnASwitch, SubmissionsOnDisjointLinksDoNotSlowEachOther) {
  FlowEngine engine(topo);
  double a = -1.0, b = -1.0;
  engine.submit(0.0, one_transfer(ring_pairs({0, 1, 2, 3}), 100e6), [&](double t) { a = t; });
  engine.submit(0.0, one_transfer(ring_pairs({4, 5, 6, 7}), 100e6), [&](double t) { b = t; });
  run_until_idle(engine);
  expect_rel(a, 1e-3, 1e-12);
  expect_rel(b, 1e-3, 1e-12);
}

TEST_F(FlowEngineOnASwitch, ASubmissionJoiningMidwaySlowsOnlyTheOverlap) {
  // A alone for 0.5 ms (50 MB sent), then A and B at 50 GB/s: A's last 50 MB end at 1.5 ms;
  // B has 50 MB left then and runs alone: 2.0 ms.
  FlowEngine engine(topo);
  double a = -1.0, b = -1.0;
  engine.submit(0.0, one_transfer(ring_pairs({0, 1, 2, 3, 4, 5, 6, 7}), 100e6), [&](double t) { a = t; });
  while (engine.next_event_s() < 0.5e-3) engine.advance();
  engine.submit(0.5e-3, one_transfer(ring_pairs({7, 6, 5, 4, 3, 2, 1, 0}), 100e6), [&](double t) { b = t; });
  run_until_idle(engine);
  expect_rel(a, 1.5e-3, 1e-12);
  expect_rel(b, 2.0e-3, 1e-12);
}

TEST_F(FlowEngineOnASwitch, ASubmissionFromADoneCallbackStartsAtThatTime) {
  FlowEngine engine(topo);
  const auto pairs = ring_pairs({0, 1, 2, 3, 4, 5, 6, 7});
  double first = -1.0, second = -1.0, second_start = -1.0;
  engine.submit(0.0, one_transfer(pairs, 100e6), [&](double t) {
    first = t;
    engine.submit(t, one_transfer(pairs, 50e6), [&](double t2) { second = t2; },
                  [&](int, double start_s, double) { second_start = start_s; });
  });
  run_until_idle(engine);
  expect_rel(first, 1e-3, 1e-12);
  expect_rel(second_start, 1e-3, 1e-12);
  expect_rel(second, 1.5e-3, 1e-12);
  EXPECT_EQ(engine.transfers_run(), 2u);
}

TEST_F(FlowEngineOnASwitch, AFinishedSubmissionsPairSetIsForgottenSoANewOneAtItsAddressIsRouted) {
  // C: ring over 4..7, 300 MB. A: ring over 0..3 (disjoint), 100 MB, its PairSet owned by
  // its plan only, ends at 1 ms; from its callback B: a fresh ring over 4..7 (likely at A's
  // freed address), 100 MB. B shares with C at 50 GB/s: B ends at 3 ms; C (100 MB left) at 4 ms.
  FlowEngine engine(topo);
  double a = -1.0, b = -1.0, c = -1.0;
  engine.submit(0.0, one_transfer(ring_pairs({4, 5, 6, 7}), 300e6), [&](double t) { c = t; });
  engine.submit(0.0, one_transfer(ring_pairs({0, 1, 2, 3}), 100e6), [&](double t) {
    a = t;
    engine.submit(t, one_transfer(ring_pairs({4, 5, 6, 7}), 100e6), [&](double t2) { b = t2; });
  });
  run_until_idle(engine);
  expect_rel(a, 1e-3, 1e-12);
  expect_rel(b, 3e-3, 1e-12);
  expect_rel(c, 4e-3, 1e-12);
}

TEST_F(FlowEngineOnASwitch, AnEmptySubmissionIsDoneWhenSubmitted) {
  FlowEngine engine(topo);
  double end = -1.0;
  engine.submit(0.0, FlowPlan{}, [&](double t) { end = t; });
  run_until_idle(engine);
  EXPECT_EQ(end, 0.0);
  EXPECT_EQ(engine.events(), 0u);
}

TEST_F(FlowEngineOnASwitch, CyclesAndInvalidDependenciesAreRefusedWhenSubmitted) {
  FlowEngine engine(topo);
  FlowPlan cycle = one_transfer(ring_pairs({0, 1}), 1e6);
  cycle.add(cycle.transfers[0]);
  cycle.transfers[0].deps = {1};
  cycle.transfers[1].deps = {0};
  EXPECT_THROW(engine.submit(0.0, cycle, nullptr), InfeasibleError);
  FlowPlan invalid = one_transfer(ring_pairs({0, 1}), 1e6);
  invalid.transfers[0].deps = {3};
  EXPECT_THROW(engine.submit(0.0, invalid, nullptr), InfeasibleError);
}

TEST_F(FlowEngineOnASwitch, ASubmissionBeforeTheLastEventIsRefused) {
  FlowEngine engine(topo);
  engine.submit(0.0, one_transfer(ring_pairs({0, 1}), 100e6), nullptr);
  run_until_idle(engine);
  EXPECT_THROW(engine.submit(0.5e-3, one_transfer(ring_pairs({0, 1}), 1e6), nullptr), std::invalid_argument);
  EXPECT_NO_THROW(engine.submit(1e-3, one_transfer(ring_pairs({0, 1}), 1e6), nullptr));
}

TEST(FlowEngine, APlanSubmittedWholeGivesFlowSimulatorResults) {
  auto nv = dim("nv", TopologyType::switch_, 400e9, 1e-6);
  auto ib = dim("ib", TopologyType::switch_, 50e9, 5e-6);
  const Topology topo({{&nv, 8}, {&ib, 4}}, {});
  ExecutionBackendSpec chunked;
  chunked.preferred_dataset_splits = 4;
  chunked.active_chunks_per_dimension = 2;
  FlowPlan plan;
  add_collective(plan, topo, CollectiveOp::all_reduce, 256 * kMiB, chunked);
  add_collective(plan, topo, CollectiveOp::all_to_all, 64 * kMiB, {});
  FlowSimulator sim(topo);
  const SimulationResult r = sim.run(plan);

  FlowEngine engine(topo);
  std::vector<double> start(plan.transfers.size(), -1.0), end(plan.transfers.size(), -1.0);
  double done = -1.0;
  engine.submit(0.0, plan, [&](double t) { done = t; }, [&](int i, double s, double e) {
    start[static_cast<std::size_t>(i)] = s;
    end[static_cast<std::size_t>(i)] = e;
  });
  run_until_idle(engine);
  EXPECT_EQ(done, r.time_s);
  EXPECT_EQ(start, r.transfer_start_s);
  EXPECT_EQ(end, r.transfer_end_s);
  EXPECT_EQ(engine.events(), r.events);
  EXPECT_EQ(engine.rate_computations(), r.rate_computations);
  expect_rel(engine.bytes_delivered(), engine.bytes_injected(), 1e-9);
}

// Straightforward reference: every event, every active transfer's rate from scratch by
// textbook progressive filling over per-transfer link weights.
std::vector<double> reference_end_times(const Topology& topo, const FlowPlan& plan) {
  Router router(topo);
  const auto& links = topo.links();
  const std::size_t nt = plan.transfers.size();
  std::vector<std::map<int, double>> weight(nt);
  std::vector<double> latency(nt, 0.0);
  for (std::size_t i = 0; i < nt; ++i) {
    plan.transfers[i].pairs->for_each([&](int s, int d) {
      std::vector<LinkShare> path;
      latency[i] = std::max(latency[i], router.route(s, d, path));
      for (const auto& ls : path) weight[i][ls.link] += ls.fraction;
    });
  }
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> ready(nt, inf), remaining(nt, 0.0), drained(nt, inf), end(nt, inf);
  std::vector<int> pending(nt, 0);
  for (std::size_t i = 0; i < nt; ++i) {
    pending[i] = static_cast<int>(plan.transfers[i].deps.size());
    if (pending[i] == 0) ready[i] = 0.0;
    remaining[i] = plan.transfers[i].bytes;
  }
  std::set<std::size_t> active;
  double now = 0.0;
  for (;;) {
    for (std::size_t i = 0; i < nt; ++i) {  // starts due now
      if (ready[i] <= now && drained[i] == inf && !active.count(i)) active.insert(i);
    }
    std::map<std::size_t, double> rate;
    std::vector<double> rem(links.size());
    for (std::size_t l = 0; l < links.size(); ++l) rem[l] = links[l].capacity_bytes_per_s;
    std::set<std::size_t> unfrozen = active;
    while (!unfrozen.empty()) {
      double best = inf;
      int best_link = -1;
      for (std::size_t l = 0; l < links.size(); ++l) {
        double w = 0.0;
        for (std::size_t i : unfrozen) {
          if (auto it = weight[i].find(static_cast<int>(l)); it != weight[i].end()) w += it->second;
        }
        if (w > 0.0 && rem[l] / w < best) best = rem[l] / w, best_link = static_cast<int>(l);
      }
      for (auto it = unfrozen.begin(); it != unfrozen.end();) {
        if (!weight[*it].count(best_link)) {
          ++it;
          continue;
        }
        rate[*it] = best;
        for (const auto& [l, w] : weight[*it]) rem[static_cast<std::size_t>(l)] -= best * w;
        it = unfrozen.erase(it);
      }
    }
    double next = inf;
    for (std::size_t i : active) next = std::min(next, now + remaining[i] / rate[i]);
    for (std::size_t i = 0; i < nt; ++i) {
      if (ready[i] > now) next = std::min(next, ready[i]);
      if (drained[i] < inf && end[i] == inf) {
        next = std::min(next, drained[i] + latency[i] + plan.transfers[i].extra_latency_s);
      }
    }
    if (next == inf) break;
    for (auto it = active.begin(); it != active.end();) {
      remaining[*it] -= rate[*it] * (next - now);
      if (remaining[*it] <= 1e-9 * plan.transfers[*it].bytes) {
        drained[*it] = next;
        it = active.erase(it);
      } else {
        ++it;
      }
    }
    now = next;
    for (std::size_t i = 0; i < nt; ++i) {
      if (drained[i] < inf && end[i] == inf && drained[i] + latency[i] + plan.transfers[i].extra_latency_s <= now) {
        end[i] = now;
        for (std::size_t j = 0; j < nt; ++j) {
          for (int d : plan.transfers[j].deps) {
            if (static_cast<std::size_t>(d) == i && --pending[j] == 0) ready[j] = now;
          }
        }
      }
    }
  }
  return end;
}

TEST(FlowEngine, RandomOverlappingPlansMatchAReferenceProgressiveFilling) {
  // A ring of 8 (multi-hop paths, so transfers overlap on some links and not others) and a
  // two-leaf fat-tree (ECMP fractions over two spines).
  auto ring = dim("ring", TopologyType::ring, 50e9, 1e-6);
  auto pod = superpod("pod", 100e9, 40e9, 0.5e-6, 4, 2);
  const Topology ring_topo({{&ring, 8}}, {});
  const Topology pod_topo({{&pod, 8}}, {});
  std::mt19937 rng(12345);
  for (const Topology* topo : {&ring_topo, &pod_topo}) {
    for (int trial = 0; trial < 40; ++trial) {
      SCOPED_TRACE(trial);
      FlowPlan plan;
      std::vector<std::shared_ptr<const PairSet>> sets;
      const int n = std::uniform_int_distribution<int>(2, 12)(rng);
      for (int i = 0; i < n; ++i) {
        Transfer t;
        if (!sets.empty() && std::uniform_real_distribution<double>(0, 1)(rng) < 0.3) {
          t.pairs = sets[std::uniform_int_distribution<std::size_t>(0, sets.size() - 1)(rng)];  // one usage, k slots
        } else {
          auto p = std::make_shared<PairSet>();
          p->groups = {{0, 1, 2, 3, 4, 5, 6, 7}};
          const int pairs = std::uniform_int_distribution<int>(1, 4)(rng);
          for (int k = 0; k < pairs; ++k) {
            const int s = std::uniform_int_distribution<int>(0, 7)(rng);
            const int d = (s + std::uniform_int_distribution<int>(1, 7)(rng)) % 8;
            p->index_pairs.emplace_back(s, d);
          }
          sets.push_back(p);
          t.pairs = p;
        }
        t.bytes = std::uniform_real_distribution<double>(1e6, 1e8)(rng);
        t.extra_latency_s = std::uniform_int_distribution<int>(0, 1)(rng) * 2e-6;
        for (int d = 0; d < i; ++d) {
          if (std::uniform_real_distribution<double>(0, 1)(rng) < 0.2) t.deps.push_back(d);
        }
        plan.add(t);
      }
      FlowSimulator sim(*topo);
      const SimulationResult r = sim.run(plan);
      const std::vector<double> expected = reference_end_times(*topo, plan);
      for (std::size_t i = 0; i < plan.transfers.size(); ++i) expect_rel(r.transfer_end_s[i], expected[i], 1e-9);
      expect_rel(r.bytes_delivered, r.bytes_injected, 1e-9);
    }
  }
}

}  // namespace
}  // namespace rapidllm::network
