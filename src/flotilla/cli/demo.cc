#include <fmt/core.h>

#include <chrono>
#include <cstdio>

#include "flotilla/cli/commands.h"
#include "flotilla/columnar/builder.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::cli {
namespace {

// A small orders table touching the main types: integers, strings, decimals, dates,
// timestamps, dictionary-encoded strings, lists and nulls.
Result<RecordBatch> MakeOrders(int64_t rows) {
  Int64Builder id(int64());
  StringBuilder customer(utf8());
  FixedSizeBinaryBuilder amount(decimal128(15, 2));
  Int32Builder order_date(date32());
  Int64Builder shipped_at(timestamp(TimeUnit::kMicro, "UTC"));
  DictionaryBuilder status(dictionary(int8(), utf8()));
  ListBuilder tags(list(utf8()), std::make_unique<StringBuilder>(utf8()));
  static const char* kCustomers[] = {"Ada Lovelace", "Grace Hopper", "Edsger Dijkstra",
                                     "Barbara Liskov", "東京 Trading Co."};
  static const char* kStatus[] = {"open", "shipped", "returned"};
  static const char* kTags[] = {"gift", "express", "fragile"};
  for (int64_t i = 0; i < rows; ++i) {
    FLOTILLA_RETURN_NOT_OK(id.Append(1000 + i));
    FLOTILLA_RETURN_NOT_OK(customer.Append(kCustomers[(i * 7) % 5]));
    FLOTILLA_RETURN_NOT_OK(amount.AppendDecimal(static_cast<Int128>((i * 7919) % 100000 + 99)));
    FLOTILLA_RETURN_NOT_OK(order_date.Append(19723 + static_cast<int32_t>(i % 366)));  // 2024
    if (i % 3 == 0) {
      FLOTILLA_RETURN_NOT_OK(shipped_at.AppendNull());
    } else {
      FLOTILLA_RETURN_NOT_OK(
          shipped_at.Append((19723 + i % 366 + 2) * 86400000000LL + (i % 24) * 3600000000LL));
    }
    FLOTILLA_RETURN_NOT_OK(status.Append(kStatus[i % 3]));
    FLOTILLA_RETURN_NOT_OK(tags.Append());
    for (int64_t t = 0; t < i % 3; ++t) {
      FLOTILLA_RETURN_NOT_OK(
          static_cast<StringBuilder*>(tags.value_builder())->Append(kTags[(i + t) % 3]));
    }
  }
  std::vector<std::pair<std::string, Array>> cols;
  FLOTILLA_ASSIGN_OR_RETURN(Array a0, id.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array a1, customer.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array a2, amount.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array a3, order_date.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array a4, shipped_at.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array a5, status.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array a6, tags.Finish());
  return RecordBatch::FromColumns({{"order_id", a0},
                                   {"customer", a1},
                                   {"amount", a2},
                                   {"order_date", a3},
                                   {"shipped_at", a4},
                                   {"status", a5},
                                   {"tags", a6}});
}

Status Demo(const std::string& dir, const TablePrintOptions& table) {
  using Clock = std::chrono::steady_clock;
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch orders, MakeOrders(100000));
  std::string path = dir + "/flotilla-demo-orders.arrow";
  ipc::WriteOptions options;
  options.compression = ipc::Compression::kZstd;
  auto t0 = Clock::now();
  // Two batches, the second a zero-copy slice, to show batching and slicing.
  FLOTILLA_RETURN_NOT_OK(ipc::WriteFile(
      path, orders.schema(), {orders.Slice(0, 60000), orders.Slice(60000, 40000)}, options));
  auto t1 = Clock::now();
  SchemaPtr schema;
  FLOTILLA_ASSIGN_OR_RETURN(auto batches, ipc::ReadFile(path, &schema));
  auto t2 = Clock::now();
  int64_t rows = 0;
  for (const auto& b : batches)
    rows += b.num_rows();
  if (rows != orders.num_rows() || !batches[0].Equals(orders.Slice(0, batches[0].num_rows()))) {
    return Status::Internal("the demo file did not read back identically");
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  long size = 0;
  if (f != nullptr) {
    std::fseek(f, 0, SEEK_END);
    size = std::ftell(f);
    std::fclose(f);
  }
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  fmt::print(
      "Wrote {} rows to {} ({} bytes, Arrow IPC file, zstd) in {:.1f} ms; "
      "read back in {:.1f} ms, identical.\n\n",
      orders.num_rows(), path, size, ms(t1 - t0), ms(t2 - t1));
  fmt::print("{}", FormatTable(*schema, batches, table));
  std::remove(path.c_str());
  return Status::OK();
}

}  // namespace

int RunDemo(const std::string& dir, const TablePrintOptions& table) {
  Status st = Demo(dir, table);
  if (!st.ok()) {
    fmt::print(stderr, "flotilla: {}\n", st.ToString());
    return 1;
  }
  return 0;
}

}  // namespace flotilla::cli
