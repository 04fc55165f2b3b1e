#pragma once
// Row hashing for hash joins, aggregation and shuffles. The hash is part of the wire contract
// (two processes must route equal keys to one partition), so it is defined exactly below and
// pinned by a golden test. Changing it is a breaking change.

#include <cstdint>
#include <vector>

#include "flotilla/columnar/array.h"

namespace flotilla::compute {

/// \brief One uint64 hash per row, combining all `columns` (same length, at least one).
///
/// Definition. XXH3(bytes, seed) is XXH3_64bits_withSeed from xxHash; integers below are
/// little-endian bytes.
///
///   Combine(h, v)    = XXH3(8 bytes of v, seed = h)
///   HashRows(row)    = Combine(...Combine(Combine(seed, V(col0, row)), V(col1, row))...)
///
/// V(column, row), the value hash, depends only on the logical value (not on offsets, slicing,
/// buffer layout, or dictionary encoding):
///   null (any type, including a null struct/list and a dictionary entry that is null)
///                          -> kNullHash = 0x9E3779B97F4A7C15
///   bool                   -> 0 or 1
///   integers, date32, timestamp, duration
///                          -> the value widened to 64 bits (sign-extended for signed types,
///                             so int32 5 and int64 5 agree), as uint64; not mixed further —
///                             Combine is the mixer
///   float32, float64       -> the IEEE bits of the value as a double, with -0.0 -> +0.0 and
///                             every NaN -> 0x7FF8000000000000
///   decimal128             -> XXH3(the 16 bytes, seed = 0)
///   string, binary (any offset width), fixed_size_binary
///                          -> XXH3(the value bytes, seed = 0)
///   dictionary             -> V of the dictionary value (equal to the dense column's hash)
///   list, fixed_size_list  -> XXH3(V of each element as 8 bytes, concatenated, seed = 0x4C495354)
///   struct                 -> Combine folded over V of each field, starting from 0x53545255
///
/// The fast path for fixed-width columns computes Combine(h, widened value) directly in a
/// typed loop: one 8-byte XXH3 per row and column.
Result<Array> HashRows(const std::vector<Array>& columns, uint64_t seed = 0,
                       MemoryPool* pool = DefaultMemoryPool());

/// The value hash V of each row of `array` (see HashRows), written to `out[0..length)`.
Status ValueHashes(const Array& array, uint64_t* out);

inline constexpr uint64_t kNullHash = 0x9E3779B97F4A7C15ull;

}  // namespace flotilla::compute
