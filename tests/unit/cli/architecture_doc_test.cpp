// docs/architecture.md is drawn from the code: what it counts and which library links which
// must be what the tree says, so the page cannot drift from the build.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;
using Links = std::map<std::string, std::set<std::string>>;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const fs::path kRoot(RAPIDLLM_SOURCE_DIR);

// Project libraries (rapidllm_*) each library links, from every target_link_libraries
// call of the CMakeLists.txt files under src/.
Links cmake_links() {
  Links out;
  const std::regex call(R"(target_link_libraries\(\s*(rapidllm_\w+)([^)]*)\))");
  const std::regex library(R"(\brapidllm_\w+)");
  for (const auto& entry : fs::recursive_directory_iterator(kRoot / "src")) {
    if (entry.path().filename() != "CMakeLists.txt") continue;
    const std::string text = slurp(entry.path());
    for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
      auto& links = out[(*it)[1].str()];
      const std::string args = (*it)[2].str();
      for (std::sregex_iterator l(args.begin(), args.end(), library); l != end; ++l) links.insert(l->str());
    }
  }
  return out;
}

// The doc's "| `rapidllm_x` | `rapidllm_y` `rapidllm_z` |" rows.
Links documented_links() {
  Links out;
  const std::string text = slurp(kRoot / "docs/architecture.md");
  const std::regex row(R"(\n\| `(rapidllm_\w+)` \|([^\n]*)\|)");
  const std::regex library(R"(`(rapidllm_\w+)`)");
  for (std::sregex_iterator it(text.begin(), text.end(), row), end; it != end; ++it) {
    auto& links = out[(*it)[1].str()];
    const std::string cells = (*it)[2].str();
    for (std::sregex_iterator l(cells.begin(), cells.end(), library); l != end; ++l) links.insert((*l)[1].str());
  }
  return out;
}

std::string describe(const Links& links) {
  std::string s;
  for (const auto& [lib, deps] : links) {
    s += "| `" + lib + "` |";
    for (const auto& d : deps) s += " `" + d + "`";
    s += " |\n";
  }
  return s;
}

TEST(ArchitectureDoc, TheLibraryTableIsWhatTheCMakeListsLink) {
  const Links built = cmake_links();
  ASSERT_GE(built.size(), 15u);  // every room of src/ is a library
  EXPECT_EQ(documented_links(), built) << "docs/architecture.md's table should read:\n" << describe(built);
}

TEST(ArchitectureDoc, TheGoldenCountIsTheCasesPinned) {
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(kRoot / "tests/golden")) {
    if (fs::exists(entry.path() / "cmd")) ++cases;
  }
  const std::string text = slurp(kRoot / "docs/architecture.md");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(`tests/golden/` pins (\d+) CLI runs)")));
  EXPECT_EQ(std::stoi(m[1].str()), cases);
}

// The facade is the top layer: no room under src/ but api itself includes its headers.
TEST(ArchitectureDoc, NothingUnderSrcIncludesTheFacadesInternals) {
  const std::regex include(R"(^\s*#\s*include\s*"api/)");
  std::string offences;
  for (const auto& entry : fs::recursive_directory_iterator(kRoot / "src")) {
    if (!entry.is_regular_file()) continue;
    const fs::path rel = fs::relative(entry.path(), kRoot / "src");
    if (*rel.begin() == "api") continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (std::regex_search(line, include)) offences += rel.string() + ":" + std::to_string(n) + " ";
    }
  }
  EXPECT_TRUE(offences.empty()) << offences;
}

}  // namespace
