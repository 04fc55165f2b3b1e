#pragma once
// The pseudo-text of TPC-H comments (specification clause 4.2.2.14): sentences generated from a
// small weighted grammar fill one fixed pool, and every comment is a substring of it at a random
// offset with a random length.
#include <cstdint>
#include <string>
#include <string_view>

#include "flotilla/tpch/random.h"

namespace flotilla::tpch {

class TextPool {
 public:
  /// The process-wide pool, built on first use (on several threads) and the same in every run.
  static const TextPool& Get();

  /// A substring of the pool of a length uniform in [min_length, max_length].
  std::string_view Random(RowRandom& rng, int min_length, int max_length) const {
    const int64_t length = rng.Uniform(min_length, max_length);
    const int64_t offset = rng.Uniform(0, static_cast<int64_t>(text_.size()) - length);
    return std::string_view(text_).substr(static_cast<size_t>(offset), static_cast<size_t>(length));
  }

  std::string_view text() const { return text_; }

 private:
  explicit TextPool(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

}  // namespace flotilla::tpch
