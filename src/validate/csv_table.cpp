#include "validate/csv_table.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/units.hpp"

namespace rapidllm::validate {

const std::string& CsvRow::text(const std::string& column) const {
  static const std::string empty;
  auto it = fields_.find(column);
  return it == fields_.end() ? empty : it->second;
}

std::optional<double> CsvRow::number(const std::string& column) const { return parse_number(text(column)); }

namespace {

// Splits the whole text into records of fields.
std::vector<std::vector<std::string>> parse(const std::string& text, const std::string& path) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(std::move(field));
      field.clear();
      records.push_back(std::move(record));
      record.clear();
    } else {
      field += c;
    }
  }
  if (quoted) throw Error(fmt::format("{}: a quoted field is never closed", path));
  if (!field.empty() || !record.empty()) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace

std::string lowercase(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool has_text(std::string_view text, std::string_view needle) {
  return lowercase(text).find(needle) != std::string::npos;
}

std::vector<CsvRow> read_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read '{}'", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const auto records = parse(buffer.str(), path);
  if (records.empty()) throw Error(fmt::format("{}: no header row", path));
  const auto& header = records.front();
  std::vector<CsvRow> rows;
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() == 1 && records[r][0].empty()) continue;  // blank line
    if (records[r].size() != header.size()) {
      throw Error(fmt::format("{}: record {} has {} fields, the header {}", path, r + 1, records[r].size(), header.size()));
    }
    std::map<std::string, std::string> fields;
    for (std::size_t c = 0; c < header.size(); ++c) fields[header[c]] = records[r][c];
    rows.emplace_back(std::move(fields));
  }
  return rows;
}

}  // namespace rapidllm::validate
