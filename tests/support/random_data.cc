#include "tests/support/random_data.h"

#include <random>
#include <string>

#include "flotilla/columnar/builder.h"

namespace flotilla::testing {
namespace {

class Generator {
 public:
  Generator(uint64_t seed, const RandomOptions& options) : rng_(seed), options_(options) {}

  Status Fill(ArrayBuilder* builder, int64_t length, bool allow_nulls = true) {
    for (int64_t i = 0; i < length; ++i) {
      if (allow_nulls && Chance(options_.null_probability)) {
        FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
      } else {
        FLOTILLA_RETURN_NOT_OK(AppendOne(builder));
      }
    }
    return Status::OK();
  }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  uint64_t Bits() {
    uint64_t v = rng_();
    if (options_.distinct_values > 0) v %= static_cast<uint64_t>(options_.distinct_values);
    return v;
  }
  std::string RandomText() {
    static const char* kPieces[] = {"a", "b", "flotilla", " ", "é", "ß", "日本", "🚀", "x", "0"};
    std::string s;
    uint64_t seed = Bits();
    std::mt19937_64 local(seed);
    int n = static_cast<int>(local() % (options_.max_string_length + 1));
    for (int i = 0; i < n; ++i)
      s += kPieces[local() % 10];
    return s;
  }

  Status AppendOne(ArrayBuilder* b) {
    const DataType& t = *b->type();
    switch (t.id()) {
      case TypeId::kNull:
        return b->AppendNull();
      case TypeId::kBool:
        return static_cast<BooleanBuilder*>(b)->Append(Bits() & 1);
      case TypeId::kInt8:
        return static_cast<Int8Builder*>(b)->Append(static_cast<int8_t>(Bits()));
      case TypeId::kInt16:
        return static_cast<Int16Builder*>(b)->Append(static_cast<int16_t>(Bits()));
      case TypeId::kInt32:
        return static_cast<Int32Builder*>(b)->Append(static_cast<int32_t>(Bits()));
      case TypeId::kInt64:
        return static_cast<Int64Builder*>(b)->Append(static_cast<int64_t>(Bits()));
      case TypeId::kUInt8:
        return static_cast<UInt8Builder*>(b)->Append(static_cast<uint8_t>(Bits()));
      case TypeId::kUInt16:
        return static_cast<UInt16Builder*>(b)->Append(static_cast<uint16_t>(Bits()));
      case TypeId::kUInt32:
        return static_cast<UInt32Builder*>(b)->Append(static_cast<uint32_t>(Bits()));
      case TypeId::kUInt64:
        return static_cast<UInt64Builder*>(b)->Append(Bits());
      case TypeId::kFloat32:
        return static_cast<FloatBuilder*>(b)->Append(
            static_cast<float>(static_cast<int64_t>(Bits() % 2000001) - 1000000) / 64.0f);
      case TypeId::kFloat64:
        return static_cast<DoubleBuilder*>(b)->Append(
            static_cast<double>(static_cast<int64_t>(Bits() % 20000001) - 10000000) / 1024.0);
      case TypeId::kDate32:
        return static_cast<Int32Builder*>(b)->Append(static_cast<int32_t>(Bits() % 40000) - 10000);
      case TypeId::kTimestamp:
      case TypeId::kDuration:
        return static_cast<Int64Builder*>(b)->Append(static_cast<int64_t>(Bits() % (1ull << 52)) -
                                                     (1ll << 51));
      case TypeId::kTime64: {  // within the day
        const uint64_t day = t.unit() == TimeUnit::kNano ? 86400000000000ull : 86400000000ull;
        return static_cast<Int64Builder*>(b)->Append(static_cast<int64_t>(Bits() % day));
      }
      case TypeId::kDecimal128: {
        // Values within the type's precision.
        Int128 limit = 1;
        for (int i = 0; i < t.precision(); ++i)
          limit *= 10;
        Int128 v = (static_cast<Int128>(Bits()) << 64 | rng_()) % limit;
        if (Bits() & 1) v = -v;
        return static_cast<FixedSizeBinaryBuilder*>(b)->AppendDecimal(v);
      }
      case TypeId::kFixedSizeBinary: {
        std::string s(static_cast<size_t>(t.byte_width()), '\0');
        uint64_t v = Bits();
        for (auto& c : s) {
          c = static_cast<char>(v & 0xFF);
          v = v * 6364136223846793005ull + 1442695040888963407ull;
        }
        return static_cast<FixedSizeBinaryBuilder*>(b)->Append(s);
      }
      case TypeId::kString:
      case TypeId::kBinary:
        return static_cast<StringBuilder*>(b)->Append(RandomText());
      case TypeId::kLargeString:
      case TypeId::kLargeBinary:
        return static_cast<LargeStringBuilder*>(b)->Append(RandomText());
      case TypeId::kList: {
        auto* lb = static_cast<ListBuilder*>(b);
        FLOTILLA_RETURN_NOT_OK(lb->Append());
        return Fill(lb->value_builder(),
                    static_cast<int64_t>(rng_() % (options_.max_list_length + 1)));
      }
      case TypeId::kFixedSizeList: {
        auto* lb = static_cast<FixedSizeListBuilder*>(b);
        FLOTILLA_RETURN_NOT_OK(lb->Append());
        return Fill(lb->value_builder(), t.fixed_size());
      }
      case TypeId::kStruct: {
        auto* sb = static_cast<StructBuilder*>(b);
        FLOTILLA_RETURN_NOT_OK(sb->Append());
        for (int i = 0; i < sb->num_children(); ++i)
          FLOTILLA_RETURN_NOT_OK(Fill(sb->field_builder(i), 1));
        return Status::OK();
      }
      case TypeId::kDictionary: {
        // A small vocabulary so that the dictionary really repeats values.
        static const char* kWords[] = {"red",    "green", "blue",          "",
                                       "Zürich", "東京",  "a longer value"};
        return static_cast<DictionaryBuilder*>(b)->Append(kWords[rng_() % 7]);
      }
    }
    return Status::NotImplemented(t.ToString());
  }

  std::mt19937_64 rng_;
  RandomOptions options_;
};

}  // namespace

Array RandomArray(const TypePtr& type, int64_t length, uint64_t seed,
                  const RandomOptions& options) {
  auto builder = MakeBuilder(type).ValueOrDie();
  Generator gen(seed, options);
  gen.Fill(builder.get(), length).Check();
  return builder->Finish().ValueOrDie();
}

RecordBatch RandomBatchOfAllTypes(int64_t length, uint64_t seed, const RandomOptions& options) {
  std::vector<std::pair<std::string, Array>> cols;
  auto types = AllTypesForTesting();
  for (size_t i = 0; i < types.size(); ++i) {
    cols.emplace_back("c" + std::to_string(i),
                      RandomArray(types[i], length, seed * 1000 + i, options));
  }
  return RecordBatch::FromColumns(std::move(cols)).ValueOrDie();
}

}  // namespace flotilla::testing
