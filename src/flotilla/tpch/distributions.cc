#include "flotilla/tpch/distributions.h"

namespace flotilla::tpch {

namespace {

constexpr std::string_view kColors[] = {
    "almond",   "antique",   "aquamarine", "azure",      "beige",     "bisque",    "black",
    "blanched", "blue",      "blush",      "brown",      "burlywood", "burnished", "chartreuse",
    "chiffon",  "chocolate", "coral",      "cornflower", "cornsilk",  "cream",     "cyan",
    "dark",     "deep",      "dim",        "dodger",     "drab",      "firebrick", "floral",
    "forest",   "frosted",   "gainsboro",  "ghost",      "goldenrod", "green",     "grey",
    "honeydew", "hot",       "indian",     "ivory",      "khaki",     "lace",      "lavender",
    "lawn",     "lemon",     "light",      "lime",       "linen",     "magenta",   "maroon",
    "medium",   "metallic",  "midnight",   "mint",       "misty",     "moccasin",  "navajo",
    "navy",     "olive",     "orange",     "orchid",     "pale",      "papaya",    "peach",
    "peru",     "pink",      "plum",       "powder",     "puff",      "purple",    "red",
    "rose",     "rosy",      "royal",      "saddle",     "salmon",    "sandy",     "seashell",
    "sienna",   "sky",       "slate",      "smoke",      "snow",      "spring",    "steel",
    "tan",      "thistle",   "tomato",     "turquoise",  "violet",    "wheat",     "white",
    "yellow"};
static_assert(std::size(kColors) == 92);

constexpr std::string_view kType1[] = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
constexpr std::string_view kType2[] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
constexpr std::string_view kType3[] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
constexpr std::string_view kContainer1[] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
constexpr std::string_view kContainer2[] = {"CASE", "BOX",  "BAG", "JAR",
                                            "PKG",  "PACK", "CAN", "DRUM"};
constexpr std::string_view kSegments[] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY",
                                          "HOUSEHOLD"};
constexpr std::string_view kPriorities[] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED",
                                            "5-LOW"};
constexpr std::string_view kInstructions[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                              "TAKE BACK RETURN"};
constexpr std::string_view kModes[] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};

constexpr NationInfo kNations[] = {
    {"ALGERIA", 0},      {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1},
    {"EGYPT", 4},        {"ETHIOPIA", 0},  {"FRANCE", 3}, {"GERMANY", 3},
    {"INDIA", 2},        {"INDONESIA", 2}, {"IRAN", 4},   {"IRAQ", 4},
    {"JAPAN", 2},        {"JORDAN", 4},    {"KENYA", 0},  {"MOROCCO", 0},
    {"MOZAMBIQUE", 0},   {"PERU", 1},      {"CHINA", 2},  {"ROMANIA", 3},
    {"SAUDI ARABIA", 4}, {"VIETNAM", 2},   {"RUSSIA", 3}, {"UNITED KINGDOM", 3},
    {"UNITED STATES", 1}};
static_assert(std::size(kNations) == 25);

constexpr std::string_view kRegions[] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};

}  // namespace

std::span<const std::string_view> PartNameWords() {
  return kColors;
}
std::span<const std::string_view> TypeSyllable1() {
  return kType1;
}
std::span<const std::string_view> TypeSyllable2() {
  return kType2;
}
std::span<const std::string_view> TypeSyllable3() {
  return kType3;
}
std::span<const std::string_view> ContainerSyllable1() {
  return kContainer1;
}
std::span<const std::string_view> ContainerSyllable2() {
  return kContainer2;
}
std::span<const std::string_view> MarketSegments() {
  return kSegments;
}
std::span<const std::string_view> OrderPriorities() {
  return kPriorities;
}
std::span<const std::string_view> ShipInstructions() {
  return kInstructions;
}
std::span<const std::string_view> ShipModes() {
  return kModes;
}
std::span<const NationInfo> Nations() {
  return kNations;
}
std::span<const std::string_view> Regions() {
  return kRegions;
}

}  // namespace flotilla::tpch
