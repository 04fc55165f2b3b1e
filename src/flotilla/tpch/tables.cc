#include "flotilla/tpch/tables.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "flotilla/tpch/columns.h"
#include "flotilla/tpch/distributions.h"
#include "flotilla/tpch/random.h"
#include "flotilla/tpch/text_pool.h"

namespace flotilla::tpch {

namespace {

// Dates of clause 4.2.2.12, as days since 1970-01-01.
const int32_t kStartDate = DaysFromCivil(1992, 1, 1);
const int32_t kCurrentDate = DaysFromCivil(1995, 6, 17);
const int32_t kEndDate = DaysFromCivil(1998, 12, 31);

TypePtr Money() {
  return decimal128(15, 2);
}

Field Required(std::string name, TypePtr type) {
  return Field{std::move(name), std::move(type), false};
}

template <typename T>
std::string_view Pick(RowRandom& rng, std::span<const T> values) {
  return values[static_cast<size_t>(rng.Uniform(0, static_cast<int64_t>(values.size()) - 1))];
}

/// "Supplier#000000042": the prefix and the key padded to nine digits.
void AppendNumbered(StringColumn& column, std::string_view prefix, int64_t key) {
  char digits[24];
  int n = 0;
  for (int64_t k = key; k > 0 || n < 9; k /= 10)
    digits[n++] = static_cast<char>('0' + k % 10);
  column.AppendPiece(prefix);
  char out[24];
  for (int i = 0; i < n; ++i)
    out[i] = digits[n - 1 - i];
  column.AppendPiece(std::string_view(out, static_cast<size_t>(n)));
  column.EndRow();
}

/// Phone numbers of clause 4.2.2.9: country code (nation key + 10), then 3, 3 and 4 digits.
void AppendPhone(StringColumn& column, RowRandom& rng, int64_t nation) {
  const int64_t parts[] = {nation + 10, rng.Uniform(100, 999), rng.Uniform(100, 999),
                           rng.Uniform(1000, 9999)};
  char out[16];
  int n = 0;
  for (int p = 0; p < 4; ++p) {
    if (p > 0) out[n++] = '-';
    const int width = p == 3 ? 4 : p == 0 ? 2 : 3;
    for (int d = width - 1; d >= 0; --d) {
      int64_t v = parts[p];
      for (int i = 0; i < d; ++i)
        v /= 10;
      out[n++] = static_cast<char>('0' + v % 10);
    }
  }
  column.Append(std::string_view(out, static_cast<size_t>(n)));
}

/// A random v-string (clause 4.2.2.7): length uniform in [min, max] of a 64-symbol alphabet.
void AppendVString(StringColumn& column, RowRandom& rng, int min_length, int max_length) {
  static constexpr char kAlphabet[] =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";
  static_assert(sizeof(kAlphabet) - 1 == 64);
  const int64_t length = rng.Uniform(min_length, max_length);
  char out[64];
  for (int64_t i = 0; i < length; ++i)
    out[i] = kAlphabet[rng.Next() >> 58];
  column.Append(std::string_view(out, static_cast<size_t>(length)));
}

void AppendText(StringColumn& column, RowRandom& rng, int min_length, int max_length) {
  column.Append(TextPool::Get().Random(rng, min_length, max_length));
}

/// Money in cents, uniform in [lo, hi] cents.
Int128 Cents(RowRandom& rng, int64_t lo, int64_t hi) {
  return rng.Uniform(lo, hi);
}

/// P_RETAILPRICE in cents (clause 4.2.3): a function of the key, so line items can price parts.
int64_t RetailPriceCents(int64_t partkey) {
  return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

/// The supplier of a part's i-th partsupp row (i in 0..3), clause 4.2.3.
int64_t PartSupplier(int64_t partkey, int64_t i, int64_t suppliers) {
  return (partkey + i * (suppliers / 4 + (partkey - 1) / suppliers)) % suppliers + 1;
}

/// O_ORDERKEY of order index i: only the first 8 of each 32 keys are used (clause 4.2.3).
int64_t OrderKey(int64_t index) {
  return index / 8 * 32 + index % 8 + 1;
}

/// Builds a batch of `schema` from finished columns.
template <typename... Columns>
Result<RecordBatch> Batch(Table table, const Columns&... columns) {
  std::vector<Array> arrays;
  Status status;
  auto add = [&](const auto& column) {
    if (!status.ok()) return;
    auto array = column.Finish();
    if (!array.ok()) {
      status = array.status();
      return;
    }
    arrays.push_back(std::move(*array));
  };
  (add(columns), ...);
  FLOTILLA_RETURN_NOT_OK(status);
  return RecordBatch::Make(TableSchema(table), std::move(arrays));
}

Result<RecordBatch> Regions(int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  FixedColumn<int64_t> key(int64(), n);
  StringColumn name(n, n * 8), comment(n, n * 80);
  for (int64_t r = begin; r < end; ++r) {
    RowRandom rng(Stream::kRegion, r);
    key.Append(r);
    name.Append(tpch::Regions()[static_cast<size_t>(r)]);
    AppendText(comment, rng, 31, 115);
  }
  return Batch(Table::kRegion, key, name, comment);
}

Result<RecordBatch> Nations(int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  FixedColumn<int64_t> key(int64(), n), region(int64(), n);
  StringColumn name(n, n * 8), comment(n, n * 80);
  for (int64_t r = begin; r < end; ++r) {
    RowRandom rng(Stream::kNation, r);
    const NationInfo& nation = tpch::Nations()[static_cast<size_t>(r)];
    key.Append(r);
    name.Append(nation.name);
    region.Append(nation.region);
    AppendText(comment, rng, 31, 114);
  }
  return Batch(Table::kNation, key, name, region, comment);
}

/// S_COMMENT: SF * 5 suppliers hold "Customer ... Complaints" and as many "Customer ...
/// Recommends" (clause 4.2.3). One of each is placed in every block of 2000 supplier keys.
void AppendSupplierComment(StringColumn& column, RowRandom& rng, int64_t suppkey) {
  constexpr int64_t kBlock = 2000;
  const int64_t block = (suppkey - 1) / kBlock;
  RowRandom pick(Stream::kSupplierComment, block);
  const int64_t complaints = block * kBlock + 1 + pick.Uniform(0, kBlock - 1);
  int64_t recommends = block * kBlock + 1 + pick.Uniform(0, kBlock - 2);
  if (recommends >= complaints) ++recommends;
  std::string_view text = TextPool::Get().Random(rng, 25, 100);
  if (suppkey != complaints && suppkey != recommends) {
    column.Append(text);
    return;
  }
  // "Customer " + filler + "Complaints|Recommends" overwrites the text at a random offset.
  const std::string_view tail = suppkey == complaints ? "Complaints" : "Recommends";
  constexpr std::string_view head = "Customer ";
  const int64_t room = static_cast<int64_t>(text.size() - head.size() - tail.size());
  const int64_t filler = rng.Uniform(0, room);
  const int64_t offset = rng.Uniform(0, room - filler);
  std::string comment(text);
  comment.replace(static_cast<size_t>(offset), head.size(), head);
  comment.replace(static_cast<size_t>(offset) + head.size() + static_cast<size_t>(filler),
                  tail.size(), tail);
  column.Append(comment);
}

/// The columns suppliers and customers share (clause 4.2.3): the key, "Prefix#000000042", an
/// address, a nation, a phone number of that nation and an account balance.
struct PartyColumns {
  explicit PartyColumns(int64_t n)
      : key(int64(), n),
        nation(int64(), n),
        balance(Money(), n),
        name(n, n * 18),
        address(n, n * 25),
        phone(n, n * 15) {}

  void Append(RowRandom& rng, std::string_view prefix, int64_t party_key) {
    key.Append(party_key);
    AppendNumbered(name, prefix, party_key);
    AppendVString(address, rng, 10, 40);
    const int64_t nation_key = rng.Uniform(0, 24);
    nation.Append(nation_key);
    AppendPhone(phone, rng, nation_key);
    balance.Append(Cents(rng, -99999, 999999));
  }

  FixedColumn<int64_t> key, nation;
  FixedColumn<Int128> balance;
  StringColumn name, address, phone;
};

Result<RecordBatch> Suppliers(int64_t begin, int64_t end) {
  PartyColumns party(end - begin);
  StringColumn comment(end - begin, (end - begin) * 63);
  for (int64_t r = begin; r < end; ++r) {
    RowRandom rng(Stream::kSupplier, r);
    party.Append(rng, "Supplier#", r + 1);
    AppendSupplierComment(comment, rng, r + 1);
  }
  return Batch(Table::kSupplier, party.key, party.name, party.address, party.nation, party.phone,
               party.balance, comment);
}

Result<RecordBatch> Parts(int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  FixedColumn<int64_t> key(int64(), n);
  FixedColumn<int32_t> size(int32(), n);
  FixedColumn<Int128> price(Money(), n);
  StringColumn name(n, n * 33), mfgr(n, n * 14), brand(n, n * 8), type(n, n * 21),
      container(n, n * 8), comment(n, n * 14);
  const auto words = PartNameWords();
  for (int64_t r = begin; r < end; ++r) {
    RowRandom rng(Stream::kPart, r);
    const int64_t partkey = r + 1;
    key.Append(partkey);
    std::array<int64_t, 5> picked{};
    for (int w = 0; w < 5; ++w) {
      bool repeated;
      do {
        picked[w] = rng.Uniform(0, static_cast<int64_t>(words.size()) - 1);
        repeated = false;
        for (int v = 0; v < w; ++v)
          repeated |= picked[v] == picked[w];
      } while (repeated);
      if (w > 0) name.AppendPiece(" ");
      name.AppendPiece(words[static_cast<size_t>(picked[w])]);
    }
    name.EndRow();
    const int64_t m = rng.Uniform(1, 5);
    const char manufacturer[] = {static_cast<char>('0' + m)};
    mfgr.AppendPiece("Manufacturer#");
    mfgr.AppendPiece(std::string_view(manufacturer, 1));
    mfgr.EndRow();
    const char brand_digits[] = {static_cast<char>('0' + m),
                                 static_cast<char>('0' + rng.Uniform(1, 5))};
    brand.AppendPiece("Brand#");
    brand.AppendPiece(std::string_view(brand_digits, 2));
    brand.EndRow();
    type.AppendPiece(Pick(rng, TypeSyllable1()));
    type.AppendPiece(" ");
    type.AppendPiece(Pick(rng, TypeSyllable2()));
    type.AppendPiece(" ");
    type.AppendPiece(Pick(rng, TypeSyllable3()));
    type.EndRow();
    size.Append(static_cast<int32_t>(rng.Uniform(1, 50)));
    container.AppendPiece(Pick(rng, ContainerSyllable1()));
    container.AppendPiece(" ");
    container.AppendPiece(Pick(rng, ContainerSyllable2()));
    container.EndRow();
    price.Append(RetailPriceCents(partkey));
    AppendText(comment, rng, 5, 22);
  }
  return Batch(Table::kPart, key, name, mfgr, brand, type, size, container, price, comment);
}

Result<RecordBatch> PartSupps(const Scale& scale, int64_t begin, int64_t end) {
  const int64_t n = (end - begin) * 4;
  FixedColumn<int64_t> part(int64(), n), supplier(int64(), n);
  FixedColumn<int32_t> available(int32(), n);
  FixedColumn<Int128> cost(Money(), n);
  StringColumn comment(n, n * 124);
  for (int64_t p = begin; p < end; ++p) {
    RowRandom rng(Stream::kPartSupp, p);
    const int64_t partkey = p + 1;
    for (int64_t i = 0; i < 4; ++i) {
      part.Append(partkey);
      supplier.Append(PartSupplier(partkey, i, scale.suppliers));
      available.Append(static_cast<int32_t>(rng.Uniform(1, 9999)));
      cost.Append(Cents(rng, 100, 100000));
      AppendText(comment, rng, 49, 198);
    }
  }
  return Batch(Table::kPartSupp, part, supplier, available, cost, comment);
}

Result<RecordBatch> Customers(int64_t begin, int64_t end) {
  PartyColumns party(end - begin);
  StringColumn segment(end - begin, (end - begin) * 10), comment(end - begin, (end - begin) * 73);
  for (int64_t r = begin; r < end; ++r) {
    RowRandom rng(Stream::kCustomer, r);
    party.Append(rng, "Customer#", r + 1);
    segment.Append(Pick(rng, MarketSegments()));
    AppendText(comment, rng, 29, 116);
  }
  return Batch(Table::kCustomer, party.key, party.name, party.address, party.nation, party.phone,
               party.balance, segment, comment);
}

/// The values of one line item that its order needs too (clause 4.2.3).
struct Line {
  int64_t partkey, suppkey, quantity, discount, tax;  // discount and tax in hundredths
  int64_t extended_cents;
  int32_t ship, commit, receipt;
};

/// One order's own random values, then its lines; each line draws from its own stream so the
/// orders and lineitem tables can be generated apart and agree.
struct Order {
  int64_t custkey;
  int32_t date;
  int lines;
};

Order DrawOrder(RowRandom& rng, const Scale& scale) {
  Order order;
  // Customer keys divisible by 3 get no orders: draw from the others directly.
  const int64_t eligible = scale.customers - scale.customers / 3;
  const int64_t pick = rng.Uniform(0, eligible - 1);
  order.custkey = pick / 2 * 3 + pick % 2 + 1;
  order.date = static_cast<int32_t>(rng.Uniform(kStartDate, kEndDate - 151));
  order.lines = static_cast<int>(rng.Uniform(1, 7));
  return order;
}

Line DrawLine(RowRandom& rng, const Scale& scale, int32_t order_date) {
  Line line;
  line.partkey = rng.Uniform(1, scale.parts);
  line.suppkey = PartSupplier(line.partkey, rng.Uniform(0, 3), scale.suppliers);
  line.quantity = rng.Uniform(1, 50);
  line.discount = rng.Uniform(0, 10);
  line.tax = rng.Uniform(0, 8);
  line.extended_cents = line.quantity * RetailPriceCents(line.partkey);
  line.ship = order_date + static_cast<int32_t>(rng.Uniform(1, 121));
  line.commit = order_date + static_cast<int32_t>(rng.Uniform(30, 90));
  line.receipt = line.ship + static_cast<int32_t>(rng.Uniform(1, 30));
  return line;
}

RowRandom LineRandom(int64_t order_index, int line_number) {
  return RowRandom(Stream::kOrder, ~(order_index * 8 + line_number));
}

Result<RecordBatch> Orders(const Scale& scale, int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  FixedColumn<int64_t> key(int64(), n), customer(int64(), n);
  FixedColumn<Int128> total(Money(), n);
  FixedColumn<int32_t> date(date32(), n), ship_priority(int32(), n);
  StringColumn status(n, n), priority(n, n * 9), clerk(n, n * 15), comment(n, n * 49);
  for (int64_t o = begin; o < end; ++o) {
    RowRandom rng(Stream::kOrder, o);
    const Order order = DrawOrder(rng, scale);
    key.Append(OrderKey(o));
    customer.Append(order.custkey);
    Int128 total_cents = 0;
    int shipped = 0;
    for (int l = 1; l <= order.lines; ++l) {
      RowRandom line_rng = LineRandom(o, l);
      const Line line = DrawLine(line_rng, scale, order.date);
      // extendedprice * (1 + tax) * (1 - discount), rounded to cents.
      const Int128 scaled = Int128{line.extended_cents} * (100 + line.tax) * (100 - line.discount);
      total_cents += (scaled + 5000) / 10000;
      shipped += line.ship <= kCurrentDate;
    }
    status.Append(shipped == order.lines ? "F" : shipped == 0 ? "O" : "P");
    total.Append(total_cents);
    date.Append(order.date);
    priority.Append(Pick(rng, OrderPriorities()));
    AppendNumbered(clerk, "Clerk#", rng.Uniform(1, std::max<int64_t>(1, scale.suppliers / 10)));
    ship_priority.Append(0);
    AppendText(comment, rng, 19, 78);
  }
  return Batch(Table::kOrders, key, customer, status, total, date, priority, clerk, ship_priority,
               comment);
}

Result<RecordBatch> Lineitems(const Scale& scale, int64_t begin, int64_t end) {
  const int64_t n = (end - begin) * 4;
  FixedColumn<int64_t> order_key(int64(), n), part(int64(), n), supplier(int64(), n);
  FixedColumn<int32_t> number(int32(), n), ship(date32(), n), commit(date32(), n),
      receipt(date32(), n);
  FixedColumn<Int128> quantity(Money(), n), extended(Money(), n), discount(Money(), n),
      tax(Money(), n);
  StringColumn flag(n, n), status(n, n), instruct(n, n * 12), mode(n, n * 5), comment(n, n * 27);
  for (int64_t o = begin; o < end; ++o) {
    RowRandom rng(Stream::kOrder, o);
    const Order order = DrawOrder(rng, scale);
    for (int l = 1; l <= order.lines; ++l) {
      RowRandom line_rng = LineRandom(o, l);
      const Line line = DrawLine(line_rng, scale, order.date);
      order_key.Append(OrderKey(o));
      part.Append(line.partkey);
      supplier.Append(line.suppkey);
      number.Append(l);
      quantity.Append(Int128{line.quantity} * 100);
      extended.Append(line.extended_cents);
      discount.Append(line.discount);
      tax.Append(line.tax);
      if (line.receipt <= kCurrentDate) {
        flag.Append(line_rng.Uniform(0, 1) == 0 ? "R" : "A");
      } else {
        flag.Append("N");
      }
      status.Append(line.ship > kCurrentDate ? "O" : "F");
      ship.Append(line.ship);
      commit.Append(line.commit);
      receipt.Append(line.receipt);
      instruct.Append(Pick(line_rng, ShipInstructions()));
      mode.Append(Pick(line_rng, ShipModes()));
      AppendText(comment, line_rng, 10, 43);
    }
  }
  return Batch(Table::kLineitem, order_key, part, supplier, number, quantity, extended, discount,
               tax, flag, status, ship, commit, receipt, instruct, mode, comment);
}

SchemaPtr MakeSchema(std::vector<Field> fields) {
  return std::make_shared<Schema>(std::move(fields));
}

}  // namespace

const char* TableName(Table table) {
  switch (table) {
    case Table::kRegion:
      return "region";
    case Table::kNation:
      return "nation";
    case Table::kSupplier:
      return "supplier";
    case Table::kPart:
      return "part";
    case Table::kPartSupp:
      return "partsupp";
    case Table::kCustomer:
      return "customer";
    case Table::kOrders:
      return "orders";
    case Table::kLineitem:
      return "lineitem";
  }
  return "?";
}

SchemaPtr TableSchema(Table table) {
  auto id = [](std::string name) { return Required(std::move(name), int64()); };
  auto text = [](std::string name) { return Required(std::move(name), utf8()); };
  auto money = [](std::string name) { return Required(std::move(name), Money()); };
  auto day = [](std::string name) { return Required(std::move(name), date32()); };
  auto integer = [](std::string name) { return Required(std::move(name), int32()); };
  switch (table) {
    case Table::kRegion:
      return MakeSchema({id("r_regionkey"), text("r_name"), text("r_comment")});
    case Table::kNation:
      return MakeSchema({id("n_nationkey"), text("n_name"), id("n_regionkey"), text("n_comment")});
    case Table::kSupplier:
      return MakeSchema({id("s_suppkey"), text("s_name"), text("s_address"), id("s_nationkey"),
                         text("s_phone"), money("s_acctbal"), text("s_comment")});
    case Table::kPart:
      return MakeSchema({id("p_partkey"), text("p_name"), text("p_mfgr"), text("p_brand"),
                         text("p_type"), integer("p_size"), text("p_container"),
                         money("p_retailprice"), text("p_comment")});
    case Table::kPartSupp:
      return MakeSchema({id("ps_partkey"), id("ps_suppkey"), integer("ps_availqty"),
                         money("ps_supplycost"), text("ps_comment")});
    case Table::kCustomer:
      return MakeSchema({id("c_custkey"), text("c_name"), text("c_address"), id("c_nationkey"),
                         text("c_phone"), money("c_acctbal"), text("c_mktsegment"),
                         text("c_comment")});
    case Table::kOrders:
      return MakeSchema({id("o_orderkey"), id("o_custkey"), text("o_orderstatus"),
                         money("o_totalprice"), day("o_orderdate"), text("o_orderpriority"),
                         text("o_clerk"), integer("o_shippriority"), text("o_comment")});
    case Table::kLineitem:
      return MakeSchema(
          {id("l_orderkey"), id("l_partkey"), id("l_suppkey"), integer("l_linenumber"),
           money("l_quantity"), money("l_extendedprice"), money("l_discount"), money("l_tax"),
           text("l_returnflag"), text("l_linestatus"), day("l_shipdate"), day("l_commitdate"),
           day("l_receiptdate"), text("l_shipinstruct"), text("l_shipmode"), text("l_comment")});
  }
  return nullptr;
}

Result<Scale> Scale::Of(double factor) {
  if (!(factor > 0 && factor <= 100000)) {
    return Status::Invalid(fmt::format("the scale factor must be in (0, 100000], got {}", factor));
  }
  auto rows = [&](double base) { return std::max<int64_t>(1, std::llround(base * factor)); };
  Scale scale;
  scale.factor = factor;
  scale.suppliers = rows(10000);
  scale.parts = rows(200000);
  scale.customers = std::max<int64_t>(3, rows(150000));
  scale.orders = rows(1500000);
  return scale;
}

int64_t TableUnits(Table table, const Scale& scale) {
  switch (table) {
    case Table::kRegion:
      return 5;
    case Table::kNation:
      return 25;
    case Table::kSupplier:
      return scale.suppliers;
    case Table::kPart:
    case Table::kPartSupp:
      return scale.parts;
    case Table::kCustomer:
      return scale.customers;
    case Table::kOrders:
    case Table::kLineitem:
      return scale.orders;
  }
  return 0;
}

Result<RecordBatch> GenerateRows(Table table, const Scale& scale, int64_t begin, int64_t end) {
  if (begin < 0 || end < begin || end > TableUnits(table, scale)) {
    return Status::Invalid(
        fmt::format("rows [{}, {}) are outside table {}", begin, end, TableName(table)));
  }
  switch (table) {
    case Table::kRegion:
      return Regions(begin, end);
    case Table::kNation:
      return Nations(begin, end);
    case Table::kSupplier:
      return Suppliers(begin, end);
    case Table::kPart:
      return Parts(begin, end);
    case Table::kPartSupp:
      return PartSupps(scale, begin, end);
    case Table::kCustomer:
      return Customers(begin, end);
    case Table::kOrders:
      return Orders(scale, begin, end);
    case Table::kLineitem:
      return Lineitems(scale, begin, end);
  }
  return Status::Invalid("unknown table");
}

}  // namespace flotilla::tpch
