// The WARC reader on hand-built files: the format's corners (folded and LF-only header lines,
// gzip member per record or for the whole file), damaged input named by offset or skipped, and
// the scan task's projection, limit and plan serialization.
#include <gtest/gtest.h>

#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/warc/scan_task.h"

namespace flotilla::io::warc {

using namespace std::string_literals;  // NOLINT: blocks with NUL bytes
namespace {

std::string Record(const std::string& type, const std::string& block,
                   const std::string& extra_headers = "", const std::string& eol = "\r\n") {
  return "WARC/1.1" + eol + "WARC-Type: " + type + eol + "WARC-Record-ID: <urn:uuid:" + type + ">" +
         eol + "WARC-Date: 2024-03-01T12:34:56Z" + eol + extra_headers +
         "Content-Length: " + std::to_string(block.size()) + eol + eol + block + eol + eol;
}

std::string Gzip(const std::string& bytes) {
  auto codec = parquet::PageCodec::Make(parquet::Codec::kGzip).ValueOrDie();
  std::string out;
  codec
      ->Compress(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int64_t>(bytes.size()),
                 &out)
      .Check();
  return out;
}

std::shared_ptr<io::RandomAccessFile> FileOf(const std::string& bytes,
                                             const std::string& name = "test.warc") {
  return io::MemoryFile(Buffer::CopyOf(bytes).ValueOrDie(), name);
}

Result<std::vector<RecordBatch>> ReadAll(const std::string& bytes, bool ignore_errors = false,
                                         io::ScanPushdowns pushdowns = {}) {
  WarcScanTask task(FileOf(bytes), WarcReadOptions{ignore_errors});
  return task.Read(pushdowns);
}

// One column of all batches as strings ("null" for nulls), numbers as decimal text.
std::vector<std::string> Column(const std::vector<RecordBatch>& batches, const std::string& name) {
  std::vector<std::string> out;
  for (const RecordBatch& batch : batches) {
    const Array& column = batch.column(batch.schema()->FindField(name).ValueOrDie());
    for (int64_t i = 0; i < column.length(); ++i) {
      if (column.IsNull(i)) {
        out.push_back("null");
      } else if (column.type()->id() == TypeId::kInt64 ||
                 column.type()->id() == TypeId::kTimestamp) {
        out.push_back(std::to_string(column.values<int64_t>()[i]));
      } else {
        out.push_back(std::string(column.GetView(i)));
      }
    }
  }
  return out;
}

TEST(WarcReaderTest, RecordsOfAPlainFile) {
  const std::string first = Record("warcinfo", "software: test\r\n");
  const std::string block = "HTTP/1.1 200 OK\r\n\r\n<p>\0x</p>\r\n\r\nWARC/1.0 in the body"s;
  const std::string second =
      Record("response", block,
             "WARC-Target-URI: http://example.com/a\r\nContent-Type: application/http\r\n");
  auto batches = ReadAll(first + second);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  EXPECT_EQ(Column(*batches, "record_type"), (std::vector<std::string>{"warcinfo", "response"}));
  EXPECT_EQ(Column(*batches, "target_uri"),
            (std::vector<std::string>{"null", "http://example.com/a"}));
  EXPECT_EQ(Column(*batches, "content_type"),
            (std::vector<std::string>{"null", "application/http"}));
  EXPECT_EQ(Column(*batches, "warc_version"), (std::vector<std::string>{"WARC/1.1", "WARC/1.1"}));
  // 2024-03-01T12:34:56Z in microseconds.
  EXPECT_EQ(Column(*batches, "date")[0], "1709296496000000");
  EXPECT_EQ(Column(*batches, "payload")[1], block);
  EXPECT_EQ(Column(*batches, "content_length")[1], std::to_string(block.size()));
  EXPECT_EQ(Column(*batches, "record_offset"),
            (std::vector<std::string>{"0", std::to_string(first.size())}));
  const Array& headers = (*batches)[0].column(7);
  EXPECT_EQ(headers.type()->ToString(), "list<struct<name: string, value: string>>");
}

TEST(WarcReaderTest, LineFeedsFoldedHeadersAndExtraBlankLines) {
  const std::string lf = Record("resource", "abc", "X-Folded: one\n  two\n", "\n");
  auto batches = ReadAll("\r\n" + lf + "\n\n" + Record("metadata", ""));
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  EXPECT_EQ(Column(*batches, "record_type"), (std::vector<std::string>{"resource", "metadata"}));
  EXPECT_EQ(Column(*batches, "payload"), (std::vector<std::string>{"abc", ""}));
  const Array& headers = (*batches)[0].column(7);
  const Array& values = headers.child(0).child(1);
  EXPECT_EQ(values.GetView(3), "one two");
}

TEST(WarcReaderTest, GzipMemberPerRecordAndWholeFile) {
  const std::string a = Record("request", "GET / HTTP/1.1\r\n\r\n");
  const std::string b = Record("response", std::string(3 << 20, 'x'));  // several decode chunks
  const std::string c = Record("metadata", "m: 1\r\n");
  const std::string per_record = Gzip(a) + Gzip(b) + Gzip(c) + std::string(512, '\0');
  auto batches = ReadAll(per_record);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  EXPECT_EQ(Column(*batches, "record_offset"),
            (std::vector<std::string>{"0", std::to_string(Gzip(a).size()),
                                      std::to_string(Gzip(a).size() + Gzip(b).size())}));
  EXPECT_EQ(Column(*batches, "content_length")[1], std::to_string(3 << 20));
  auto whole = ReadAll(Gzip(a + b + c));
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(Column(*whole, "record_type"),
            (std::vector<std::string>{"request", "response", "metadata"}));
  EXPECT_EQ(Column(*whole, "record_offset"), (std::vector<std::string>{"0", "0", "0"}));
}

TEST(WarcReaderTest, DamageIsNamedByOffsetOrSkipped) {
  const std::string good = Record("resource", "ok");
  struct Case {
    std::string bytes, message;
  };
  const std::vector<Case> cases = {
      {good + "HTTP/1.1 200 OK\r\n\r\n" + good,
       "WARC record at offset " + std::to_string(good.size()) + ": expected a version line"},
      {good + "WARC/1.1\r\nWARC-Type: x\r\n\r\n" + good, "the header has no Content-Length"},
      {good + "WARC/1.1\r\nContent-Length: 12ab\r\n\r\n" + good, "'12ab' is not a byte count"},
      {good + "WARC/1.1\r\nContent-Length: 99999999999\r\n\r\n" + good, "larger than 2 GiB"},
      {good + "WARC/1.1\r\nno colon here\r\nContent-Length: 1\r\n\r\nx" + good,
       "'no colon here' is not 'Name: value'"},
      {good + "WARC/1.1\r\nContent-Length: 100\r\n\r\nshort", "the file ends after 5 bytes"},
      {good + "WARC/1.1\r\nContent-Length: 1", "ends inside the record's header"},
      {good + "WARC/1.1\r\nX: " + std::string(2 << 20, 'y'), "longer than 1 MiB"},
  };
  for (const Case& c : cases) {
    auto failed = ReadAll(c.bytes);
    ASSERT_FALSE(failed.ok()) << c.message;
    EXPECT_NE(failed.status().message().find(c.message), std::string::npos)
        << failed.status().ToString();
    auto skipped = ReadAll(c.bytes, /*ignore_errors=*/true);
    ASSERT_TRUE(skipped.ok()) << skipped.status().ToString();
    // The good record before the damage is always read; the one after only when a record
    // start can be found again past the damage.
    EXPECT_GE(Column(*skipped, "record_type").size(), 1u) << c.message;
    EXPECT_EQ(Column(*skipped, "payload")[0], "ok");
  }
  // Resynchronising on the next "WARC/" line finds the good record after a bad one.
  auto skipped = ReadAll(good + "WARC/1.1\r\nWARC-Type: x\r\n\r\n" + good, true);
  EXPECT_EQ(Column(*skipped, "payload"), (std::vector<std::string>{"ok", "ok"}));
}

TEST(WarcReaderTest, CorruptAndTruncatedGzipMembers) {
  const std::string a = Gzip(Record("resource", "one")), b = Gzip(Record("resource", "two")),
                    c = Gzip(Record("resource", "three"));
  std::string corrupt = b;
  for (size_t i = 10; i < corrupt.size() - 8; ++i)
    corrupt[i] = '\xff';
  auto failed = ReadAll(a + corrupt + c);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("corrupt gzip data in the member at offset " +
                                           std::to_string(a.size())),
            std::string::npos)
      << failed.status().ToString();
  auto skipped = ReadAll(a + corrupt + c, true);
  ASSERT_TRUE(skipped.ok()) << skipped.status().ToString();
  EXPECT_EQ(Column(*skipped, "payload"), (std::vector<std::string>{"one", "three"}));

  const std::string cut = a + b + c.substr(0, c.size() / 2);
  failed = ReadAll(cut);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("is truncated"), std::string::npos);
  skipped = ReadAll(cut, true);
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(Column(*skipped, "payload"), (std::vector<std::string>{"one", "two"}));
  EXPECT_FALSE(ReadAll(a + "garbage after").ok());
}

TEST(WarcReaderTest, ProjectionLimitAndSerialization) {
  std::string bytes;
  for (int i = 0; i < 5000; ++i)
    bytes += Record("resource", std::to_string(i));
  io::ScanPushdowns pushdowns;
  pushdowns.columns = std::vector<std::string>{"payload", "record_type"};
  auto batches = ReadAll(bytes, false, pushdowns);
  ASSERT_TRUE(batches.ok());
  ASSERT_EQ(batches->size(), 2u);  // 4096 records a batch
  EXPECT_EQ((*batches)[0].schema()->field(0).name, "payload");
  EXPECT_EQ((*batches)[0].num_columns(), 2);
  EXPECT_EQ(Column(*batches, "payload")[4999], "4999");
  pushdowns.limit = 7;
  batches = ReadAll(bytes, false, pushdowns);
  EXPECT_EQ(Column(*batches, "payload").size(), 7u);

  WarcScanTask task(FileOf(bytes, "mem"), WarcReadOptions{true});
  io::ScanTaskRegistry registry;
  RegisterWarcScanTasks(&registry);
  auto bytes_of_task = task.Serialize();
  ASSERT_TRUE(bytes_of_task.ok());
  // A memory file cannot be reopened by name: the factory's error says which file.
  auto reopened = registry.at(task.kind())(*bytes_of_task);
  ASSERT_FALSE(reopened.ok());
  EXPECT_NE(reopened.status().message().find("mem"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::io::warc
