// html_to_text: the readable text of an HTML document, parsed by gumbo (an HTML5 parser, so
// broken markup is read the way browsers read it): text nodes in document order, block elements
// and <br> as line breaks, runs of white space as one space, script/style/head content dropped.
//
// An HTML5 tree builder takes time quadratic in the nesting depth (20,000 unclosed <b> take
// seconds), so a document whose tags may nest deeper than kMaxTreeDepth (hostile or broken
// markup; real pages nest a few dozen deep) is read by a linear tag stripper instead, with the
// same line and white-space rules.

#include <gumbo.h>

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/common/utf8.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"
#include "flotilla/expr/functions/utf8_text.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

// Elements whose content is not text a reader sees.
bool IsSkipped(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_META:
    case GUMBO_TAG_LINK:
      return true;
    default:
      return false;
  }
}

// Elements that start and end a line of their own.
bool IsBlock(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_P:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TH:
    case GUMBO_TAG_TITLE:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_UL:
      return true;
    default:
      return false;
  }
}

// Builds the text: white space collapses to one space inside a line, line breaks never repeat,
// and no line starts or ends with a space.
class TextSink {
 public:
  explicit TextSink(std::string* out) : out_(out) { out_->clear(); }

  void Text(std::string_view text, bool preformatted) {
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      // U+00A0 (&nbsp;) is white space to a reader.
      const bool nbsp = c == '\xC2' && i + 1 < text.size() && text[i + 1] == '\xA0';
      if (preformatted && c == '\n') {
        Break();
      } else if (preformatted && (c == ' ' || c == '\t')) {
        *out_ += c;  // kept as written, even at the start of a line
        at_line_start_ = false;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || nbsp) {
        if (!at_line_start_) pending_space_ = true;
        if (nbsp) ++i;
      } else {
        if (pending_space_) *out_ += ' ';
        pending_space_ = false;
        *out_ += c;
        at_line_start_ = false;
      }
    }
  }

  void Break() {
    pending_space_ = false;
    if (!at_line_start_) {
      *out_ += '\n';
      at_line_start_ = true;
    }
  }

  void Finish() {
    if (!out_->empty() && out_->back() == '\n') out_->pop_back();
  }

 private:
  std::string* out_;
  bool pending_space_ = false;
  bool at_line_start_ = true;
};

// Walks the tree without recursion: hostile documents nest elements hundreds of thousands deep.
void ExtractText(const GumboNode* root, std::string* out) {
  TextSink sink(out);
  struct Frame {
    const GumboNode* node;
    unsigned int next_child;
    bool preformatted;
  };
  std::vector<Frame> stack = {{root, 0, false}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    const GumboNode* node = top.node;
    const GumboVector* children =
        node->type == GUMBO_NODE_DOCUMENT ? &node->v.document.children : &node->v.element.children;
    if (top.next_child >= children->length) {
      if (node->type != GUMBO_NODE_DOCUMENT && IsBlock(node->v.element.tag)) sink.Break();
      stack.pop_back();
      continue;
    }
    const bool preformatted = top.preformatted;
    const auto* child = static_cast<const GumboNode*>(children->data[top.next_child++]);
    switch (child->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        sink.Text(child->v.text.text, preformatted);
        break;
      case GUMBO_NODE_ELEMENT:
      case GUMBO_NODE_TEMPLATE: {
        const GumboTag tag = child->v.element.tag;
        if (IsSkipped(tag) || child->type == GUMBO_NODE_TEMPLATE) break;
        if (IsBlock(tag)) sink.Break();
        stack.push_back(
            {child, 0, preformatted || tag == GUMBO_TAG_PRE || tag == GUMBO_TAG_TEXTAREA});
        break;
      }
      default:  // comments, the doctype
        break;
    }
  }
  sink.Finish();
}

constexpr int kMaxTreeDepth = 2048;

std::string_view TagName(std::string_view html, size_t at, std::string* lower) {
  size_t end = at;
  while (end < html.size() && (std::isalnum(static_cast<unsigned char>(html[end])) != 0))
    ++end;
  lower->clear();
  for (size_t i = at; i < end; ++i)
    lower->push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(html[i]))));
  return *lower;
}

// Elements that never hold others, or that the parser closes when a sibling starts: neither
// deepens the tree.
bool NeverNests(std::string_view tag) {
  static const std::string_view kTags[] = {
      "area",   "base",  "br",  "col", "embed", "hr", "img", "input",  "link", "meta", "param",
      "source", "track", "wbr", "p",   "li",    "dt", "dd",  "option", "tr",   "td",   "th"};
  for (std::string_view t : kTags) {
    if (t == tag) return true;
  }
  return false;
}

// An upper bound on how deep the document's elements nest: start tags in, end tags out.
int NestingBound(std::string_view html) {
  int depth = 0, deepest = 0;
  std::string name;
  for (size_t at = html.find('<'); at != std::string_view::npos; at = html.find('<', at + 1)) {
    const bool closing = at + 1 < html.size() && html[at + 1] == '/';
    const size_t name_at = at + (closing ? 2 : 1);
    if (name_at >= html.size() || std::isalpha(static_cast<unsigned char>(html[name_at])) == 0)
      continue;
    if (NeverNests(TagName(html, name_at, &name))) continue;
    if (closing) {
      depth = depth > 0 ? depth - 1 : 0;
    } else if (++depth > deepest) {
      deepest = depth;
      if (deepest > kMaxTreeDepth) break;
    }
  }
  return deepest;
}

// Appends the character an entity names (the common named ones, and numeric ones); returns the
// entity's length, 0 when it is not one.
size_t DecodeEntity(std::string_view html, size_t at, std::string* out) {
  static const std::pair<std::string_view, std::string_view> kNamed[] = {
      {"&amp;", "&"},   {"&lt;", "<"},   {"&gt;", ">"},
      {"&quot;", "\""}, {"&apos;", "'"}, {"&nbsp;", "\xC2\xA0"}};
  for (const auto& [name, text] : kNamed) {
    if (html.substr(at, name.size()) == name) {
      *out = text;
      return name.size();
    }
  }
  if (at + 2 < html.size() && html[at + 1] == '#') {
    const bool hex = html[at + 2] == 'x' || html[at + 2] == 'X';
    size_t i = at + (hex ? 3 : 2);
    int32_t code = 0;
    const size_t digits_at = i;
    while (i < html.size() && i - digits_at < 7 &&
           (hex ? std::isxdigit(static_cast<unsigned char>(html[i]))
                : std::isdigit(static_cast<unsigned char>(html[i]))) != 0) {
      const char c = html[i++];
      code = code * (hex ? 16 : 10) +
             (c <= '9' ? c - '0' : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10));
    }
    if (i == digits_at || i >= html.size() || html[i] != ';') return 0;
    if (code <= 0 || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) code = 0xFFFD;
    out->clear();
    AppendCodePoint(code, out);
    return i + 1 - at;
  }
  return 0;
}

// The fallback for deeply nested documents: text outside tags, entities decoded, the content of
// skipped elements dropped, block tags as line breaks.
void StripTags(std::string_view html, std::string* out) {
  TextSink sink(out);
  std::string name, entity;
  size_t at = 0;
  while (at < html.size()) {
    const size_t lt = html.find('<', at);
    const size_t text_end = lt == std::string_view::npos ? html.size() : lt;
    for (size_t i = at; i < text_end;) {
      const size_t amp = html.find('&', i);
      const size_t run_end = amp == std::string_view::npos || amp >= text_end ? text_end : amp;
      sink.Text(html.substr(i, run_end - i), false);
      if (run_end == text_end) break;
      const size_t length = DecodeEntity(html.substr(0, text_end), run_end, &entity);
      sink.Text(length > 0 ? std::string_view(entity) : std::string_view("&"), false);
      i = run_end + (length > 0 ? length : 1);
    }
    if (lt == std::string_view::npos) break;
    const bool closing = lt + 1 < html.size() && html[lt + 1] == '/';
    const size_t name_at = lt + (closing ? 2 : 1);
    if (name_at >= html.size() || std::isalpha(static_cast<unsigned char>(html[name_at])) == 0) {
      // "<!-- ... -->", "<!DOCTYPE>", "<?...>" or a lone '<'.
      if (html.substr(lt, 4) == "<!--") {
        const size_t end = html.find("-->", lt + 4);
        at = end == std::string_view::npos ? html.size() : end + 3;
      } else if (name_at < html.size() && (html[name_at] == '!' || html[name_at] == '?')) {
        const size_t end = html.find('>', lt);
        at = end == std::string_view::npos ? html.size() : end + 1;
      } else {
        sink.Text("<", false);
        at = lt + 1;
      }
      continue;
    }
    const GumboTag tag =
        gumbo_tagn_enum(html.data() + name_at, TagName(html, name_at, &name).size());
    const size_t gt = html.find('>', name_at);
    at = gt == std::string_view::npos ? html.size() : gt + 1;
    if (IsBlock(tag)) sink.Break();
    if (!closing && IsSkipped(tag) && tag != GUMBO_TAG_META && tag != GUMBO_TAG_LINK) {
      size_t end = at;
      for (;; ++end) {
        end = html.find("</", end);
        if (end == std::string_view::npos) break;
        std::string candidate;
        TagName(html, end + 2, &candidate);
        if (candidate == name) break;
      }
      at = end == std::string_view::npos ? html.size() : end;
    }
  }
  sink.Finish();
}

Result<TypePtr> ResolveHtmlToText(const Types& t) {
  const DataType& type = *t[0];
  if (!IsStringOrNull(type) && !IsBinaryOrNull(type)) {
    return ArgumentTypeError("html_to_text", 0, "a string or binary value", t[0]);
  }
  return utf8();
}

Result<Datum> HtmlToTextExec(const Args& args, int64_t num_rows) {
  StringBuilder builder(utf8());
  std::string valid, text;
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    // The parser expects UTF-8; bytes that are not (pages in other charsets, binary
    // junk) become U+FFFD rather than undefined behaviour.
    std::string_view html = ViewAt(args[0], row);
    if (!IsValidUtf8(html.data(), html.size())) {
      valid = ToValidUtf8(html);
      html = valid;
    }
    if (NestingBound(html) > kMaxTreeDepth) {
      StripTags(html, &text);
      return builder.Append(text);
    }
    GumboOutput* output = gumbo_parse_with_options(&kGumboDefaultOptions, html.data(), html.size());
    if (output == nullptr) return Status::OutOfMemory("html_to_text(): the HTML parser failed");
    ExtractText(output->document, &text);
    gumbo_destroy_output(&kGumboDefaultOptions, output);
    return builder.Append(text);
  });
}

}  // namespace

Status RegisterHtmlFunctions(FunctionRegistry* r) {
  return r->Add({"html_to_text",
                 "The readable text of an HTML document (a string or bytes, UTF-8): text in "
                 "document order, one line per block element, white space collapsed, scripts, "
                 "styles and the head's metadata dropped. Null for null.",
                 1, 1, ResolveHtmlToText, HtmlToTextExec});
}

}  // namespace flotilla::expr::functions
