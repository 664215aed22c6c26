// SPDX-License-Identifier: GPL-2.0-only
//
// rapidllm-ns3: runs a rapidllm transfer plan (written by rapidllm's ns3 backend,
// src/network/ns3_backend.cpp) as a packet-level ns-3 simulation and prints when every
// transfer started and completed. This program links ns-3 (GPLv2) and is therefore GPLv2
// itself; rapidllm only runs it as a separate process.
//
// Model (docs/network-simulator.md, "ns3 backend"):
//  - every cable is a point-to-point link (rate = capacity, delay = latency, MTU 9000);
//  - per-flow fair queueing at every egress (FqCoDel as deficit round robin over 2^20 flow
//    buckets; its CoDel targets of 10 s / 100 s never trigger) behind a 2-packet device
//    queue, 100k-packet limits: nothing is dropped (a lossless fabric);
//  - routes: ns-3 global routing (shortest paths);
//  - transport: TCP NewReno, one connection per ordered node pair (per repeat of a pair within
//    a transfer), opened before the plan starts and reused by every transfer; segments of
//    8948 bytes, 64 MiB socket buffers, initial window 1000 segments (line-rate start, as an
//    RDMA transport), delayed ACKs every 2 segments, minimum RTO 1 ms;
//  - a transfer starts when its dependencies completed; each member pair enqueues `bytes`
//    on its connection; the transfer completes when the last member's last byte arrived,
//    plus the transfer's extra latency.
// Times are printed relative to the moment every connection was established.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <tuple>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

namespace {

struct Xfer {
  double bytes = 0.0;
  double extra = 0.0;
  int job = 0;
  std::vector<int> deps;
  std::vector<std::pair<int, int>> pairs;
};

struct Conn {
  ns3::Ptr<ns3::Socket> sock;
  std::uint64_t queued = 0;  // bytes not yet handed to the socket
};

struct Rx {
  std::uint64_t received = 0;
  std::uint64_t expected = 0;
  std::deque<std::pair<std::uint64_t, int>> boundaries;  // (cumulative end, transfer)
};

std::vector<Xfer> g_xfers;
std::vector<int> g_pending;
std::vector<std::vector<int>> g_dependents;
std::vector<std::size_t> g_members_left;
std::vector<double> g_start;
std::vector<double> g_end;
// A connection: (src node, dst node, lane). A transfer that lists the same pair k times uses
// lanes 0..k-1, so its members stay separate flows (as NCCL's channels are).
using Key = std::tuple<int, int, int>;
std::map<Key, Conn> g_conns;
std::map<Key, Rx> g_rx;
std::map<std::pair<int, std::uint16_t>, Key> g_port_to_key;  // (src node, local port) -> connection
std::unordered_map<std::uint32_t, int> g_addr_to_node;
std::vector<ns3::Ipv4Address> g_node_addr;
std::size_t g_connected = 0;
double g_t0 = 0.0;
bool g_started = false;
// Progress for rapidllm's progress bar: "progress DELIVERED TOTAL" (bytes) on stderr, at most
// a few times a second of wall time (rapidllm reads stderr line by line).
double g_total_bytes = 0.0;
double g_received_bytes = 0.0;
std::uint64_t g_receives = 0;
std::chrono::steady_clock::time_point g_last_report;

void report_progress() {
  if ((++g_receives & 1023u) != 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - g_last_report < std::chrono::milliseconds(250)) return;
  g_last_report = now;
  std::fprintf(stderr, "progress %.0f %.0f\n", g_received_bytes, g_total_bytes);
  std::fflush(stderr);
}

double now_s() { return ns3::Simulator::Now().GetSeconds() - g_t0; }

void start_transfer(int i);

void complete(int i) {
  g_end[static_cast<std::size_t>(i)] = now_s();
  for (int d : g_dependents[static_cast<std::size_t>(i)]) {
    if (--g_pending[static_cast<std::size_t>(d)] == 0) start_transfer(d);
  }
}

void pump(Key key) {
  Conn& c = g_conns[key];
  while (c.queued > 0) {
    const std::uint32_t avail = c.sock->GetTxAvailable();
    if (avail == 0) break;
    const std::uint64_t n = std::min<std::uint64_t>({c.queued, avail, std::uint64_t{1} << 20});
    const int sent = c.sock->Send(ns3::Create<ns3::Packet>(static_cast<std::uint32_t>(n)));
    if (sent <= 0) break;
    c.queued -= static_cast<std::uint64_t>(sent);
  }
}

void on_send_space(Key key, ns3::Ptr<ns3::Socket> /*sock*/, std::uint32_t /*avail*/) { pump(key); }

void start_transfer(int i) {
  const auto iu = static_cast<std::size_t>(i);
  Xfer& x = g_xfers[iu];
  g_start[iu] = now_s();
  const auto bytes = static_cast<std::uint64_t>(std::llround(x.bytes));
  if (x.pairs.empty() || bytes == 0) {
    ns3::Simulator::Schedule(ns3::Seconds(x.extra), &complete, i);
    return;
  }
  g_members_left[iu] = x.pairs.size();
  std::map<std::pair<int, int>, int> lanes;
  std::vector<Key> keys;
  for (const auto& p : x.pairs) {
    const Key key{p.first, p.second, lanes[p]++};
    Rx& rx = g_rx[key];
    rx.expected += bytes;
    rx.boundaries.emplace_back(rx.expected, i);
    g_conns[key].queued += bytes;
    keys.push_back(key);
  }
  for (const auto& k : keys) pump(k);
}

void on_receive(Key key, ns3::Ptr<ns3::Socket> sock) {
  Rx& rx = g_rx[key];
  while (ns3::Ptr<ns3::Packet> p = sock->Recv()) {
    if (p->GetSize() == 0) break;
    rx.received += p->GetSize();
    g_received_bytes += p->GetSize();
  }
  report_progress();
  while (!rx.boundaries.empty() && rx.received >= rx.boundaries.front().first) {
    const int i = rx.boundaries.front().second;
    rx.boundaries.pop_front();
    if (--g_members_left[static_cast<std::size_t>(i)] == 0) {
      ns3::Simulator::Schedule(ns3::Seconds(g_xfers[static_cast<std::size_t>(i)].extra), &complete, i);
    }
  }
}

bool on_accept_request(ns3::Ptr<ns3::Socket> /*sock*/, const ns3::Address& /*from*/) { return true; }

void on_accepted(int dst, ns3::Ptr<ns3::Socket> sock, const ns3::Address& from) {
  const ns3::InetSocketAddress inet = ns3::InetSocketAddress::ConvertFrom(from);
  const auto it = g_addr_to_node.find(inet.GetIpv4().Get());
  const auto kt = it == g_addr_to_node.end() ? g_port_to_key.end() : g_port_to_key.find({it->second, inet.GetPort()});
  if (kt == g_port_to_key.end() || std::get<1>(kt->second) != dst) {
    std::cerr << "rapidllm-ns3: connection from an unknown address\n";
    std::exit(3);
  }
  sock->SetRecvCallback(ns3::MakeBoundCallback(&on_receive, kt->second));
}

void begin_plan() {
  g_started = true;
  g_t0 = ns3::Simulator::Now().GetSeconds();
  for (std::size_t i = 0; i < g_xfers.size(); ++i) {
    if (g_pending[i] == 0) start_transfer(static_cast<int>(i));
  }
}

void on_connected(ns3::Ptr<ns3::Socket> /*sock*/) {
  if (++g_connected == g_conns.size()) ns3::Simulator::ScheduleNow(&begin_plan);
}

void on_connect_failed(ns3::Ptr<ns3::Socket> /*sock*/) {
  std::cerr << "rapidllm-ns3: a connection failed\n";
  std::exit(3);
}

void connect_all(std::uint16_t port) {
  if (g_conns.empty()) {
    begin_plan();
    return;
  }
  for (auto& [key, conn] : g_conns) {
    conn.sock->Connect(ns3::InetSocketAddress(g_node_addr[static_cast<std::size_t>(std::get<1>(key))], port));
  }
}

[[noreturn]] void bad_input(const std::string& why) {
  std::cerr << "rapidllm-ns3: bad input: " << why << '\n';
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  ns3::Time::SetResolution(ns3::Time::PS);  // 9000 B at 3.6 Tb/s is 20 ns: ns would round
  const auto wall0 = std::chrono::steady_clock::now();
  if (argc != 2) {
    std::cerr << "usage: rapidllm-ns3 PLAN_FILE  (written by rapidllm's ns3 backend)\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) bad_input("cannot open the plan file");
  std::string word;
  int version = 0;
  in >> word >> version;
  if (word != "rapidllm-ns3" || version != 1) bad_input("not a rapidllm-ns3 version 1 plan");
  int num_nodes = 0, num_gpus = 0;
  in >> word >> num_nodes >> num_gpus;
  if (word != "nodes" || num_nodes < 1) bad_input("nodes");
  std::size_t num_links = 0;
  in >> word >> num_links;
  if (word != "links") bad_input("links");
  struct Cable {
    int a, b;
    double capacity, latency;
  };
  std::vector<Cable> cables(num_links);
  for (auto& c : cables) in >> c.a >> c.b >> c.capacity >> c.latency;
  std::size_t num_xfers = 0;
  in >> word >> num_xfers;
  if (word != "transfers") bad_input("transfers");
  g_xfers.resize(num_xfers);
  for (auto& x : g_xfers) {
    std::size_t ndeps = 0, npairs = 0;
    in >> x.bytes >> x.extra >> x.job >> ndeps;
    x.deps.resize(ndeps);
    for (auto& d : x.deps) in >> d;
    in >> npairs;
    x.pairs.resize(npairs);
    for (auto& p : x.pairs) in >> p.first >> p.second;
  }
  in >> word;
  if (word != "end" || !in) bad_input("truncated plan");
  for (const auto& x : g_xfers) g_total_bytes += static_cast<double>(std::llround(x.bytes)) * static_cast<double>(x.pairs.size());
  g_last_report = std::chrono::steady_clock::now();

  ns3::Config::SetDefault("ns3::TcpL4Protocol::SocketType", ns3::TypeIdValue(ns3::TcpNewReno::GetTypeId()));
  ns3::Config::SetDefault("ns3::TcpSocket::SegmentSize", ns3::UintegerValue(8948));
  ns3::Config::SetDefault("ns3::TcpSocket::SndBufSize", ns3::UintegerValue(64u << 20));
  ns3::Config::SetDefault("ns3::TcpSocket::RcvBufSize", ns3::UintegerValue(64u << 20));
  ns3::Config::SetDefault("ns3::TcpSocket::DelAckCount", ns3::UintegerValue(2));
  // Line-rate start, as an RDMA transport on a lossless fabric: no slow-start ramp.
  ns3::Config::SetDefault("ns3::TcpSocket::InitialCwnd", ns3::UintegerValue(1000));
  ns3::Config::SetDefault("ns3::TcpSocketBase::MinRto", ns3::TimeValue(ns3::MilliSeconds(1)));

  ns3::NodeContainer nodes;
  nodes.Create(static_cast<std::uint32_t>(num_nodes));
  ns3::InternetStackHelper stack;
  stack.Install(nodes);
  ns3::Ipv4AddressHelper addr;
  addr.SetBase("10.0.0.0", "255.255.255.252");
  ns3::TrafficControlHelper tch;
  // Per-flow fair queueing at every egress (deficit round robin over the connections; its
  // CoDel dropping is switched off by targets far beyond any run's time scale).
  tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", ns3::QueueSizeValue(ns3::QueueSize("100000p")),
                       "Target", ns3::StringValue("10s"), "Interval", ns3::StringValue("100s"),
                       "Flows", ns3::UintegerValue(1u << 20));
  g_node_addr.assign(static_cast<std::size_t>(num_nodes), ns3::Ipv4Address());
  std::vector<bool> has_addr(static_cast<std::size_t>(num_nodes), false);
  for (const auto& c : cables) {
    if (c.a < 0 || c.b < 0 || c.a >= num_nodes || c.b >= num_nodes) bad_input("link endpoint");
    ns3::PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(static_cast<std::uint64_t>(std::llround(c.capacity * 8.0)))));
    p2p.SetDeviceAttribute("Mtu", ns3::UintegerValue(9000));
    p2p.SetChannelAttribute("Delay", ns3::TimeValue(ns3::Seconds(c.latency)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns3::QueueSizeValue(ns3::QueueSize("2p")));  // backlog waits in the queue disc
    ns3::NetDeviceContainer dev = p2p.Install(nodes.Get(static_cast<std::uint32_t>(c.a)), nodes.Get(static_cast<std::uint32_t>(c.b)));
    tch.Install(dev);
    ns3::Ipv4InterfaceContainer ifc = addr.Assign(dev);
    addr.NewNetwork();
    for (std::uint32_t k = 0; k < 2; ++k) {
      const int node = k == 0 ? c.a : c.b;
      g_addr_to_node[ifc.GetAddress(k).Get()] = node;
      if (!has_addr[static_cast<std::size_t>(node)]) {
        g_node_addr[static_cast<std::size_t>(node)] = ifc.GetAddress(k);
        has_addr[static_cast<std::size_t>(node)] = true;
      }
    }
  }
  ns3::Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  g_pending.assign(num_xfers, 0);
  g_dependents.assign(num_xfers, {});
  g_members_left.assign(num_xfers, 0);
  g_start.assign(num_xfers, 0.0);
  g_end.assign(num_xfers, 0.0);
  std::vector<bool> listens(static_cast<std::size_t>(num_nodes), false);
  for (std::size_t i = 0; i < num_xfers; ++i) {
    for (int d : g_xfers[i].deps) {
      if (d < 0 || static_cast<std::size_t>(d) >= num_xfers) bad_input("dependency");
      g_dependents[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
      ++g_pending[i];
    }
    for (const auto& p : g_xfers[i].pairs) {
      if (p.first < 0 || p.second < 0 || p.first >= num_nodes || p.second >= num_nodes || p.first == p.second) {
        bad_input("pair");
      }
      if (!has_addr[static_cast<std::size_t>(p.first)] || !has_addr[static_cast<std::size_t>(p.second)]) {
        bad_input("a pair endpoint has no link");
      }
      listens[static_cast<std::size_t>(p.second)] = true;
    }
    std::map<std::pair<int, int>, int> lanes;
    for (const auto& p : g_xfers[i].pairs) g_conns[Key{p.first, p.second, lanes[p]++}];
  }
  const std::uint16_t port = 9;
  for (int n = 0; n < num_nodes; ++n) {
    if (!listens[static_cast<std::size_t>(n)]) continue;
    ns3::Ptr<ns3::Socket> s = ns3::Socket::CreateSocket(nodes.Get(static_cast<std::uint32_t>(n)), ns3::TcpSocketFactory::GetTypeId());
    s->Bind(ns3::InetSocketAddress(ns3::Ipv4Address::GetAny(), port));
    s->Listen();
    s->SetAcceptCallback(ns3::MakeCallback(&on_accept_request), ns3::MakeBoundCallback(&on_accepted, n));
  }
  for (auto& [key, conn] : g_conns) {
    conn.sock = ns3::Socket::CreateSocket(nodes.Get(static_cast<std::uint32_t>(std::get<0>(key))),
                                          ns3::TcpSocketFactory::GetTypeId());
    conn.sock->Bind();
    ns3::Address local;
    conn.sock->GetSockName(local);
    g_port_to_key[{std::get<0>(key), ns3::InetSocketAddress::ConvertFrom(local).GetPort()}] = key;
    conn.sock->SetConnectCallback(ns3::MakeCallback(&on_connected), ns3::MakeCallback(&on_connect_failed));
    conn.sock->SetSendCallback(ns3::MakeBoundCallback(&on_send_space, key));
  }
  // Connect once the simulation runs (queue discs are initialised then).
  ns3::Simulator::ScheduleNow(&connect_all, port);
  ns3::Simulator::Run();
  const auto events = static_cast<unsigned long long>(ns3::Simulator::GetEventCount());
  ns3::Simulator::Destroy();

  double total = 0.0;
  std::size_t unfinished = 0;
  for (std::size_t i = 0; i < num_xfers; ++i) {
    if (g_pending[i] != 0 || (g_end[i] == 0.0 && g_start[i] == 0.0 && !g_xfers[i].deps.empty())) ++unfinished;
    total = std::max(total, g_end[i]);
    std::printf("transfer %zu %.12e %.12e\n", i, g_start[i], g_end[i]);
  }
  if (!g_started || unfinished > 0) {
    std::cerr << "rapidllm-ns3: the plan did not finish (" << unfinished << " transfers)\n";
    return 3;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::printf("time_s %.12e\nwall_s %.6f\nevents %llu\n", total, wall, events);
  return 0;
}
