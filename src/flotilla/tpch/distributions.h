#pragma once
// The value lists of the TPC-H specification (clause 4.2.2.13): part name words, types,
// containers, segments, priorities, ship instructions and modes, nations and regions.
#include <span>
#include <string_view>

namespace flotilla::tpch {

struct NationInfo {
  std::string_view name;
  int region;
};

std::span<const std::string_view> PartNameWords();  // 92 colours, five distinct per P_NAME
std::span<const std::string_view> TypeSyllable1();  // STANDARD, SMALL, ...
std::span<const std::string_view> TypeSyllable2();  // ANODIZED, BURNISHED, ...
std::span<const std::string_view> TypeSyllable3();  // TIN, NICKEL, ...
std::span<const std::string_view> ContainerSyllable1();
std::span<const std::string_view> ContainerSyllable2();
std::span<const std::string_view> MarketSegments();
std::span<const std::string_view> OrderPriorities();
std::span<const std::string_view> ShipInstructions();
std::span<const std::string_view> ShipModes();
std::span<const NationInfo> Nations();        // nation key = index
std::span<const std::string_view> Regions();  // region key = index

}  // namespace flotilla::tpch
