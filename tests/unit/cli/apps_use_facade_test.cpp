// docs/architecture.md "Public facade": the command line calls only include/rapidllm/, never src/
// internals. The build enforces it too (rapidllm_api publishes no src/ include folder);
// this test names the offending file and line when an app includes an internal header.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

// A quoted include is allowed when it is a public header or one of the app's own headers
// (a file beside the including one, e.g. cli_common.hpp).
bool allowed(const std::string& header, const fs::path& including_file) {
  return header.rfind("rapidllm/", 0) == 0 || fs::exists(including_file.parent_path() / header);
}

TEST(AppsUseFacade, NoAppIncludesAnInternalHeader) {
  const fs::path apps = fs::path(RAPIDLLM_SOURCE_DIR) / "apps";
  const fs::path src = fs::path(RAPIDLLM_SOURCE_DIR) / "src";
  const std::regex quoted(R"(^\s*#\s*include\s*"([^"]+)\")");
  const std::regex angled(R"(^\s*#\s*include\s*<([^/>]+)/[^>]*>)");
  std::vector<std::string> offences;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(apps)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h")) continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      const bool internal = (std::regex_search(line, m, quoted) && !allowed(m[1], entry.path())) ||
                            // <exec/...> reaches src/ just the same
                            (std::regex_search(line, m, angled) && fs::is_directory(src / m[1].str()));
      if (internal) offences.push_back(fs::relative(entry.path(), RAPIDLLM_SOURCE_DIR).string() + ":" +
                                       std::to_string(n) + ": " + line);
    }
  }
  EXPECT_GT(files, 0) << "no sources under " << apps;
  for (const auto& o : offences) ADD_FAILURE() << "includes a src/ header (use include/rapidllm/): " << o;
}

}  // namespace
