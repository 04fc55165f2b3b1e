#include "flotilla/tpch/text_pool.h"

#include <algorithm>
#include <span>
#include <thread>
#include <vector>

namespace flotilla::tpch {

namespace {

struct Weighted {
  std::string_view value;
  int weight;
};

// Clause 4.2.2.14: the productions and word lists. Their weights (clause 4.2.2.15 leaves them to
// the TPC-H kit's distribution file) are the kit's, whose lists also hold the nouns packages,
// requests, accounts and deposits and the adjectives special, pending, unusual and express that
// queries look for (Q13: '%special%requests%'). In the productions N is a noun phrase, V a verb
// phrase, P a prepositional phrase, T a terminator; in a noun phrase J is an adjective, D an
// adverb; in a verb phrase X is an auxiliary.
constexpr Weighted kSentences[] = {
    {"NVT", 3}, {"NVPT", 3}, {"NVNT", 3}, {"NPVNT", 1}, {"NPVPT", 1}};
constexpr Weighted kNounPhrases[] = {{"N", 10}, {"JN", 20}, {"J,JN", 10}, {"DJN", 50}};
constexpr Weighted kVerbPhrases[] = {{"V", 30}, {"XV", 1}, {"VD", 40}, {"XVD", 1}};

constexpr Weighted kNouns[] = {
    {"packages", 40},     {"requests", 40},     {"accounts", 40},    {"deposits", 40},
    {"foxes", 20},        {"ideas", 20},        {"theodolites", 20}, {"pinto beans", 20},
    {"instructions", 20}, {"dependencies", 10}, {"excuses", 10},     {"platelets", 10},
    {"asymptotes", 10},   {"courts", 5},        {"dolphins", 5},     {"multipliers", 1},
    {"sauternes", 1},     {"warthogs", 1},      {"frets", 1},        {"dinos", 1},
    {"attainments", 1},   {"somas", 1},         {"Tiresias", 1},     {"patterns", 1},
    {"forges", 1},        {"braids", 1},        {"frays", 1},        {"warhorses", 1},
    {"dugouts", 1},       {"notornis", 1},      {"epitaphs", 1},     {"pearls", 1},
    {"tithes", 1},        {"waters", 1},        {"orbits", 1},       {"gifts", 1},
    {"sheaves", 1},       {"depths", 1},        {"sentiments", 1},   {"decoys", 1},
    {"realms", 1},        {"pains", 1},         {"grouches", 1},     {"escapades", 1},
    {"hockey players", 1}};
constexpr Weighted kVerbs[] = {
    {"sleep", 20},    {"wake", 20},    {"are", 20},   {"cajole", 20}, {"haggle", 20},
    {"nag", 10},      {"use", 10},     {"boost", 10}, {"affix", 5},   {"detect", 5},
    {"integrate", 5}, {"maintain", 1}, {"nod", 1},    {"was", 1},     {"lose", 1},
    {"sublate", 1},   {"solve", 1},    {"thrash", 1}, {"promise", 1}, {"engage", 1},
    {"hinder", 1},    {"print", 1},    {"x-ray", 1},  {"breach", 1},  {"eat", 1},
    {"grow", 1},      {"impress", 1},  {"mold", 1},   {"poach", 1},   {"serve", 1},
    {"run", 1},       {"dazzle", 1},   {"snooze", 1}, {"doze", 1},    {"unwind", 1},
    {"kindle", 1},    {"play", 1},     {"hang", 1},   {"believe", 1}, {"doubt", 1}};
constexpr Weighted kAdjectives[] = {
    {"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20}, {"furious", 1},
    {"sly", 1},      {"careful", 1},  {"blithe", 1},   {"quick", 1},    {"fluffy", 1},
    {"slow", 1},     {"quiet", 1},    {"ruthless", 1}, {"thin", 1},     {"close", 1},
    {"dogged", 1},   {"daring", 1},   {"brave", 1},    {"stealthy", 1}, {"permanent", 1},
    {"enticing", 1}, {"idle", 1},     {"busy", 1},     {"regular", 50}, {"final", 40},
    {"ironic", 40},  {"even", 30},    {"bold", 20},    {"silent", 10}};
constexpr Weighted kAdverbs[] = {
    {"sometimes", 1},  {"always", 1},     {"never", 1},      {"furiously", 50},  {"slyly", 50},
    {"carefully", 50}, {"blithely", 40},  {"quickly", 30},   {"fluffily", 20},   {"slowly", 1},
    {"quietly", 1},    {"ruthlessly", 1}, {"thinly", 1},     {"closely", 1},     {"doggedly", 1},
    {"daringly", 1},   {"bravely", 1},    {"stealthily", 1}, {"permanently", 1}, {"enticingly", 1},
    {"idly", 1},       {"busily", 1},     {"regularly", 1},  {"finally", 1},     {"ironically", 1},
    {"evenly", 1},     {"boldly", 1},     {"silently", 1}};
constexpr Weighted kPrepositions[] = {{"about", 50},
                                      {"above", 50},
                                      {"according to", 50},
                                      {"across", 50},
                                      {"after", 50},
                                      {"against", 40},
                                      {"along", 40},
                                      {"alongside of", 30},
                                      {"among", 30},
                                      {"around", 20},
                                      {"at", 10},
                                      {"atop", 1},
                                      {"before", 1},
                                      {"behind", 1},
                                      {"beneath", 1},
                                      {"beside", 1},
                                      {"besides", 1},
                                      {"between", 1},
                                      {"beyond", 1},
                                      {"by", 1},
                                      {"despite", 1},
                                      {"during", 1},
                                      {"except", 1},
                                      {"for", 1},
                                      {"from", 1},
                                      {"in place of", 1},
                                      {"inside", 1},
                                      {"instead of", 1},
                                      {"into", 1},
                                      {"near", 1},
                                      {"of", 1},
                                      {"on", 1},
                                      {"outside", 1},
                                      {"over", 1},
                                      {"past", 1},
                                      {"since", 1},
                                      {"through", 1},
                                      {"throughout", 1},
                                      {"to", 1},
                                      {"toward", 1},
                                      {"under", 1},
                                      {"until", 1},
                                      {"up", 1},
                                      {"upon", 1},
                                      {"without", 1},
                                      {"with", 1},
                                      {"within", 1}};
constexpr Weighted kAuxiliaries[] = {{"do", 1},
                                     {"may", 1},
                                     {"might", 1},
                                     {"shall", 1},
                                     {"will", 1},
                                     {"would", 1},
                                     {"can", 1},
                                     {"could", 1},
                                     {"should", 1},
                                     {"ought to", 1},
                                     {"must", 1},
                                     {"will have to", 1},
                                     {"shall have to", 1},
                                     {"could have to", 1},
                                     {"should have to", 1},
                                     {"must have to", 1},
                                     {"need to", 1},
                                     {"try to", 1}};
constexpr Weighted kTerminators[] = {{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1}};

/// A list with its cumulative weights, for picking by weight.
class Distribution {
 public:
  explicit Distribution(std::span<const Weighted> entries) : entries_(entries) {
    int total = 0;
    for (const Weighted& e : entries)
      cumulative_.push_back(total += e.weight);
  }
  std::string_view Pick(RowRandom& rng) const {
    const int64_t r = rng.Uniform(0, cumulative_.back() - 1);
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), r);
    return entries_[static_cast<size_t>(it - cumulative_.begin())].value;
  }

 private:
  std::span<const Weighted> entries_;
  std::vector<int> cumulative_;
};

struct Grammar {
  Distribution sentences{kSentences}, noun_phrases{kNounPhrases}, verb_phrases{kVerbPhrases},
      nouns{kNouns}, verbs{kVerbs}, adjectives{kAdjectives}, adverbs{kAdverbs},
      prepositions{kPrepositions}, auxiliaries{kAuxiliaries}, terminators{kTerminators};

  void Word(std::string& out, std::string_view word) const {
    if (!out.empty() && out.back() != ' ') out += ' ';
    out += word;
  }
  void NounPhrase(RowRandom& rng, std::string& out) const {
    for (char symbol : noun_phrases.Pick(rng)) {
      switch (symbol) {
        case 'N':
          Word(out, nouns.Pick(rng));
          break;
        case 'J':
          Word(out, adjectives.Pick(rng));
          break;
        case 'D':
          Word(out, adverbs.Pick(rng));
          break;
        case ',':
          out += ',';
          break;
      }
    }
  }
  void VerbPhrase(RowRandom& rng, std::string& out) const {
    for (char symbol : verb_phrases.Pick(rng)) {
      switch (symbol) {
        case 'V':
          Word(out, verbs.Pick(rng));
          break;
        case 'X':
          Word(out, auxiliaries.Pick(rng));
          break;
        case 'D':
          Word(out, adverbs.Pick(rng));
          break;
      }
    }
  }
  void Sentence(RowRandom& rng, std::string& out) const {
    for (char symbol : sentences.Pick(rng)) {
      switch (symbol) {
        case 'N':
          NounPhrase(rng, out);
          break;
        case 'V':
          VerbPhrase(rng, out);
          break;
        case 'P':
          Word(out, prepositions.Pick(rng));
          Word(out, "the");
          NounPhrase(rng, out);
          break;
        case 'T':
          out += terminators.Pick(rng);
          out += ' ';
          break;
      }
    }
  }
};

// The pool is built in fixed segments, each from its own random stream, so its text does not
// depend on how many threads build it.
constexpr int64_t kSegmentBytes = 1 << 20;
constexpr int64_t kSegments = 64;

std::string BuildSegment(const Grammar& grammar, int64_t segment) {
  RowRandom rng(Stream::kTextPool, segment);
  std::string text;
  text.reserve(kSegmentBytes + 256);
  while (static_cast<int64_t>(text.size()) < kSegmentBytes)
    grammar.Sentence(rng, text);
  text.resize(kSegmentBytes);
  return text;
}

std::string BuildPool() {
  const Grammar grammar;
  std::vector<std::string> segments(kSegments);
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 16);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int64_t s = t; s < kSegments; s += threads)
        segments[s] = BuildSegment(grammar, s);
    });
  }
  for (std::thread& w : workers)
    w.join();
  std::string pool;
  pool.reserve(kSegments * kSegmentBytes);
  for (const std::string& s : segments)
    pool += s;
  return pool;
}

}  // namespace

const TextPool& TextPool::Get() {
  static const TextPool pool(BuildPool());
  return pool;
}

}  // namespace flotilla::tpch
