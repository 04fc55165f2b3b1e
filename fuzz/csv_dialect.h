#pragma once
// The CSV fuzz target's first byte: which dialect the rest of the input is read in. Shared with
// the seed corpus test (src/flotilla/io/fuzz_corpus_test.cc), which reads the seeds as the
// target does.
#include <cstdint>

#include "flotilla/io/csv/options.h"

namespace flotilla::fuzz {

inline io::csv::CsvReadOptions CsvDialect(uint8_t byte) {
  io::csv::CsvReadOptions options;
  options.parse.delimiter = "\t,;|"[byte & 3];
  options.parse.escape = (byte & 4) ? '\\' : '\0';
  options.parse.has_header = (byte & 8) == 0;
  options.parse.quote = (byte & 16) ? '\0' : '"';
  options.sample_rows = 50;
  return options;
}

}  // namespace flotilla::fuzz
