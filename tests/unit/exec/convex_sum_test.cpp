#include <algorithm>

#include <gtest/gtest.h>

#include "exec/convex_sum.hpp"

namespace rapidllm::exec {
namespace {

TEST(ConvexSum, MatchesBruteForceOnMaxOfLines) {
  // max(launch floor, bandwidth line, compute line): the shape of a decode kernel's time.
  const auto f = [](std::int64_t x) {
    const double v = static_cast<double>(x);
    return std::max({9e-6, 2e-6 + 3e-9 * v, -1e-4 + 8e-9 * v});
  };
  for (auto [lo, hi] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {1, 2}, {100, 5000}, {3000, 40000}, {0, 99999}}) {
    double brute = 0.0;
    for (std::int64_t x = lo; x <= hi; ++x) brute += f(x);
    EXPECT_NEAR(sum_convex_piecewise_linear(f, lo, hi), brute, 1e-9 * brute) << lo << ".." << hi;
  }
  EXPECT_EQ(sum_convex_piecewise_linear(f, 5, 4), 0.0);
}

TEST(ConvexSum, EvaluatesFarFewerPointsThanTerms) {
  int calls = 0;
  const auto f = [&calls](std::int64_t x) {
    ++calls;
    return std::max(1.0, 0.5 * static_cast<double>(x) - 1000.0);
  };
  (void)sum_convex_piecewise_linear(f, 0, 1000000);
  EXPECT_LT(calls, 200);
}

}  // namespace
}  // namespace rapidllm::exec
