#include "flotilla/columnar/table_printer.h"

#include <fmt/format.h>

#include <algorithm>

namespace flotilla {
namespace {

// Decodes one UTF-8 code point at text[*i], advancing *i; returns -1 for an invalid byte.
int32_t NextCodePoint(std::string_view text, size_t* i) {
  unsigned char c = static_cast<unsigned char>(text[*i]);
  int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || *i + len > text.size()) {
    ++*i;
    return -1;
  }
  int32_t cp = len == 1 ? c : c & (0x7F >> len);
  for (int k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(text[*i + k]);
    if ((cc >> 6) != 0x2) {
      ++*i;
      return -1;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  *i += len;
  return cp;
}

int CodePointWidth(int32_t cp) {
  if (cp < 0) return 1;
  if (cp == 0 || (cp >= 0x300 && cp <= 0x36F) || (cp >= 0x200B && cp <= 0x200F) ||
      (cp >= 0xFE00 && cp <= 0xFE0F)) {
    return 0;  // combining marks, zero-width spaces, variation selectors
  }
  bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
              (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
              (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
              (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1FAFF) ||
              (cp >= 0x20000 && cp <= 0x3FFFD);
  return wide ? 2 : 1;
}

// Cuts `text` to at most `width` cells, ending in "…" when cut. Control characters (newlines,
// tabs) are shown as spaces so a value never breaks the table.
std::string Fit(std::string_view text, int width) {
  std::string out;
  int used = 0;
  size_t i = 0;
  bool cut = false;
  while (i < text.size()) {
    size_t start = i;
    int32_t cp = NextCodePoint(text, &i);
    int w = CodePointWidth(cp);
    if (used + w > width - 1 && DisplayWidth(text.substr(start)) + used > width) {
      cut = true;
      break;
    }
    if (cp >= 0 && cp < 0x20) {
      out += ' ';
    } else if (cp < 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for invalid bytes
    } else {
      out.append(text.substr(start, i - start));
    }
    used += w;
  }
  if (cut) out += "…";
  return out;
}

bool RightAligned(const DataType& t) {
  return t.is_numeric() || t.id() == TypeId::kDecimal128 || t.id() == TypeId::kDuration;
}

std::string Pad(const std::string& text, int width, bool right) {
  int pad = std::max(0, width - DisplayWidth(text));
  return right ? std::string(pad, ' ') + text : text + std::string(pad, ' ');
}

std::string Rule(const std::vector<int>& widths, const char* left, const char* mid,
                 const char* right) {
  std::string out = left;
  for (size_t c = 0; c < widths.size(); ++c) {
    if (c) out += mid;
    for (int i = 0; i < widths[c] + 2; ++i)
      out += "─";
  }
  return out + right + "\n";
}

}  // namespace

int DisplayWidth(std::string_view text) {
  int width = 0;
  size_t i = 0;
  while (i < text.size())
    width += CodePointWidth(NextCodePoint(text, &i));
  return width;
}

std::string FormatTable(const Schema& schema, const std::vector<RecordBatch>& batches,
                        const TablePrintOptions& options) {
  int64_t total = 0;
  for (const auto& b : batches)
    total += b.num_rows();
  // Which rows to show: all, or the head and the tail around a "…" row.
  std::vector<int64_t> shown;
  bool elided = total > options.max_rows;
  int64_t head = elided ? (options.max_rows + 1) / 2 : total;
  int64_t tail = elided ? options.max_rows / 2 : 0;
  for (int64_t r = 0; r < head; ++r)
    shown.push_back(r);
  for (int64_t r = total - tail; r < total; ++r)
    shown.push_back(r);

  const int ncols = schema.num_fields();
  std::vector<std::vector<std::string>> cells(ncols);
  std::vector<int> widths(ncols);
  for (int c = 0; c < ncols; ++c) {
    const Field& f = schema.field(c);
    widths[c] = std::max(DisplayWidth(f.name), DisplayWidth(f.type->ToString()));
    widths[c] = std::min(std::max(widths[c], 1), options.max_column_width);
  }
  size_t batch = 0;
  int64_t batch_start = 0;
  for (int64_t row : shown) {
    while (row >= batch_start + batches[batch].num_rows())
      batch_start += batches[batch++].num_rows();
    for (int c = 0; c < ncols; ++c) {
      std::string v =
          Fit(batches[batch].column(c).ValueToString(row - batch_start), options.max_column_width);
      widths[c] = std::max(widths[c], DisplayWidth(v));
      cells[c].push_back(std::move(v));
    }
  }

  // Leave out trailing columns that do not fit the width budget.
  int visible = ncols;
  if (options.max_width > 0) {
    int used = 1;
    for (visible = 0; visible < ncols; ++visible) {
      int need = widths[visible] + 3;
      if (used + need > options.max_width && visible > 0) break;
      used += need;
    }
  }
  std::vector<int> w(widths.begin(), widths.begin() + visible);

  std::string out = Rule(w, "┌", "┬", "┐");
  for (int line = 0; line < 2; ++line) {
    out += "│";
    for (int c = 0; c < visible; ++c) {
      const Field& f = schema.field(c);
      std::string text = Fit(line == 0 ? f.name : f.type->ToString(), w[c]);
      out += " " + Pad(text, w[c], false) + " │";
    }
    out += "\n";
  }
  out += Rule(w, "├", "┼", "┤");
  for (size_t r = 0; r < shown.size(); ++r) {
    if (elided && static_cast<int64_t>(r) == head) {
      out += "│";
      for (int c = 0; c < visible; ++c)
        out += " " + Pad("…", w[c], false) + " │";
      out += "\n";
    }
    out += "│";
    for (int c = 0; c < visible; ++c) {
      out += " " + Pad(cells[c][r], w[c], RightAligned(*schema.field(c).type)) + " │";
    }
    out += "\n";
  }
  out += Rule(w, "└", "┴", "┘");
  out += fmt::format("{}{} row{}", options.first_rows_only ? "first " : "", total,
                     total == 1 ? "" : "s");
  if (elided) out += fmt::format(" ({} shown)", shown.size());
  if (visible < ncols) {
    out += fmt::format(", {} of {} columns shown", visible, ncols);
  }
  out += "\n";
  return out;
}

std::string FormatTable(const RecordBatch& batch, const TablePrintOptions& options) {
  return FormatTable(*batch.schema(), {batch}, options);
}

}  // namespace flotilla
