// A short, bounded fuzzing burst without libFuzzer, for `make test`: links with one fuzz target
// (fuzz/*_fuzz.cc) into a plain executable of the build (the sanitizer build included), runs
// every seed of the target's corpus, then mutates seeds for a few seconds — bit flips, bytes set
// to edge values, inserted, deleted and duplicated ranges, integers at edges, splices of two
// seeds, truncation — calling the target on each. Deterministic for a given --seed, so a failure
// reproduces; the input that crashed is written to `fuzz-burst-crash.bin` in the working
// directory. `make fuzz` runs the same targets under libFuzzer for minutes.
//
//   TARGET_burst CORPUS_DIR [--seconds S] [--seed N]
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

// The input being run, for the crash handlers (written with write(2) only).
const uint8_t* g_current = nullptr;
size_t g_current_size = 0;

void WriteCurrent() {
  if (g_current == nullptr) return;
  const int fd = ::creat("fuzz-burst-crash.bin", 0644);
  if (fd < 0) return;
  size_t done = 0;
  while (done < g_current_size) {
    const ssize_t n = ::write(fd, g_current + done, g_current_size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  static const char kMessage[] = "fuzz burst: the crashing input is in fuzz-burst-crash.bin\n";
  (void)!::write(2, kMessage, sizeof(kMessage) - 1);
}

void OnSignal(int sig) {
  WriteCurrent();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void Run(const Bytes& input) {
  g_current = input.data();
  g_current_size = input.size();
  LLVMFuzzerTestOneInput(input.data(), input.size());
}

class Mutator {
 public:
  Mutator(uint64_t seed, const std::vector<Bytes>& seeds, size_t max_size)
      : rng_(seed), seeds_(seeds), max_size_(max_size) {}

  Bytes Next() {
    Bytes out = seeds_[Below(seeds_.size())];
    const int steps = 1 + static_cast<int>(Below(4));
    for (int s = 0; s < steps; ++s)
      Mutate(&out);
    if (out.size() > max_size_) out.resize(max_size_);
    return out;
  }

 private:
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng_() % n); }

  void Mutate(Bytes* b) {
    static const uint8_t kEdgeBytes[] = {0x00, 0x01, 0x7f, 0x80, 0xff, '"', ',',
                                         '\n', '\\', '{',  '[',  '-',  '0', '9'};
    static const int64_t kEdgeInts[] = {0,         1,         -1,        127,    128,
                                        255,       256,       32767,     65535,  INT32_MAX,
                                        INT32_MIN, INT64_MAX, INT64_MIN, 1 << 24};
    switch (Below(b->empty() ? 2 : 9)) {
      case 0: {  // insert random bytes
        const size_t at = Below(b->size() + 1), n = 1 + Below(8);
        for (size_t i = 0; i < n; ++i)
          b->insert(b->begin() + static_cast<long>(at), static_cast<uint8_t>(rng_()));
        return;
      }
      case 1: {  // splice: a piece of another seed
        const Bytes& other = seeds_[Below(seeds_.size())];
        if (other.empty()) return;
        const size_t from = Below(other.size()), n = 1 + Below(other.size() - from);
        const size_t at = Below(b->size() + 1);
        b->insert(b->begin() + static_cast<long>(at), other.begin() + static_cast<long>(from),
                  other.begin() + static_cast<long>(from + n));
        return;
      }
      case 2:  // flip a bit
        (*b)[Below(b->size())] ^= static_cast<uint8_t>(1u << Below(8));
        return;
      case 3:  // an edge byte
        (*b)[Below(b->size())] = kEdgeBytes[Below(sizeof(kEdgeBytes))];
        return;
      case 4: {  // an edge integer over 1, 2, 4 or 8 bytes
        const size_t width = size_t{1} << Below(4);
        if (b->size() < width) return;
        const int64_t v = kEdgeInts[Below(std::size(kEdgeInts))];
        std::memcpy(b->data() + Below(b->size() - width + 1), &v, width);
        return;
      }
      case 5: {  // delete a range
        const size_t at = Below(b->size()), n = 1 + Below(std::min<size_t>(b->size() - at, 16));
        b->erase(b->begin() + static_cast<long>(at), b->begin() + static_cast<long>(at + n));
        return;
      }
      case 6: {  // duplicate a range
        const size_t at = Below(b->size()), n = 1 + Below(std::min<size_t>(b->size() - at, 64));
        Bytes piece(b->begin() + static_cast<long>(at), b->begin() + static_cast<long>(at + n));
        b->insert(b->begin() + static_cast<long>(Below(b->size() + 1)), piece.begin(), piece.end());
        return;
      }
      case 7:  // truncate
        b->resize(Below(b->size() + 1));
        return;
      default:  // a random byte
        (*b)[Below(b->size())] = static_cast<uint8_t>(rng_());
        return;
    }
  }

  std::mt19937_64 rng_;
  const std::vector<Bytes>& seeds_;
  size_t max_size_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR [--seconds S] [--seed N]\n";
    return 2;
  }
  double seconds = 3;
  uint64_t seed = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--seconds") {
      seconds = std::atof(argv[i + 1]);
    } else if (flag == "--seed") {
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    } else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(argv[1]))
    if (e.is_regular_file()) paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  std::vector<Bytes> seeds;
  size_t largest = 0;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    largest = std::max(largest, seeds.back().size());
  }
  if (seeds.empty()) {
    std::cerr << "no seeds in " << argv[1] << "\n";
    return 2;
  }
  for (int sig : {SIGSEGV, SIGABRT, SIGILL, SIGFPE, SIGBUS})
    ::signal(sig, OnSignal);
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_set_death_callback(WriteCurrent);
#endif
  for (const Bytes& s : seeds)
    Run(s);
  Mutator mutator(seed, seeds, std::max<size_t>(4096, 2 * largest));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int64_t runs = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    Run(mutator.Next());
    ++runs;
  }
  std::cout << argv[0] << ": " << seeds.size() << " seeds, " << runs << " mutated inputs in "
            << seconds << " s (seed " << seed << "), no crash\n";
  return 0;
}
