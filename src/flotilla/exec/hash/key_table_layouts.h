#pragma once
// The two storage layouts of KeyTable (see key_table.h): which one a key fits, and their
// factories. Not part of the public contract.

#include <memory>
#include <vector>

#include "flotilla/exec/hash/key_columns.h"
#include "flotilla/exec/hash/key_table.h"

namespace flotilla::exec::key_table_internal {

// Fixed-width keys of up to this many 8-byte words are stored in the slots themselves.
inline constexpr int kMaxFixedWords = 4;

/// A table whose normalized keys take `words` (1 to kMaxFixedWords) 8-byte words in the slots.
Result<std::unique_ptr<KeyTable>> MakeFixedKeyTable(int words, std::vector<TypePtr> key_types,
                                                    bool nulls_equal, MemoryPool* pool,
                                                    std::vector<Column> columns);

/// A table that serializes its keys into rows in an arena (any key columns).
Result<std::unique_ptr<KeyTable>> MakeRowKeyTable(std::vector<TypePtr> key_types, bool nulls_equal,
                                                  MemoryPool* pool, std::vector<Column> columns);

}  // namespace flotilla::exec::key_table_internal
