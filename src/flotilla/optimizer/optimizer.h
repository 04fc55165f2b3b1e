#pragma once
// The optimizer: rewrites a plan into an equivalent one that reads and computes less. Rules, in
// the order they run:
//
//  0. constant folding (constant_folding.cc): constant subexpressions become values, boolean
//     identities simplify, always-true filters go and always-false ones become empty sources;
//  1. filter pushdown (filter_pushdown.cc): conditions move below projections, sorts, unions,
//     aggregations (on group keys) and into both sides of joins; a cross join with an equality
//     between its sides becomes a hash join (equi-key extraction); conditions that reach a scan
//     become its filter, which prunes row groups and pages by statistics;
//  2. aggregate input reduction (aggregate_reduction.cc): an aggregate grouped by a join's keys
//     aggregates only rows whose keys the join's other side has (a semi join with the smallest
//     part of that side carrying the keys: decorrelated subqueries such as TPC-H Q17 and Q20);
//  3. semi join pushdown (semi_join_pushdown.cc): a semi or anti join moves into the input of an
//     inner join below it whose columns its keys read;
//  4. join ordering (join_order.cc): a region of three or more inner/cross-joined inputs is
//     rebuilt by greedy operator ordering: the two connected parts whose join is estimated
//     smallest are joined next, so trees may be bushy (filters are pushed again afterwards);
//  5. limit pushdown (limit_pushdown.cc): sort + limit becomes top-N; a limit passes through
//     projections and reaches a scan as a hint;
//  6. join sides (join_sides.cc): an inner hash join builds on its smaller input (estimated
//     from file metadata);
//  7. projection pushdown (projection_pushdown.cc): every node keeps only the columns someone
//     above reads, down to the columns a scan decodes;
//  8. shared subexpressions (shared_subexpressions.cc): an expression repeated across an
//     aggregate's arguments is computed once by a projection below it;
//  9. projection simplification (simplify_projections.cc): identity projections go, renames of
//     an aggregation's outputs become its names, stacked projections merge.
#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::optimizer {

/// The optimized plan; the same schema (names and types) as `plan`.
Result<exec::PlanPtr> Optimize(const exec::PlanPtr& plan);

// The rules one by one (each keeps the schema).
Result<exec::PlanPtr> FoldConstants(const exec::PlanPtr& plan);
Result<exec::PlanPtr> PushDownFilters(const exec::PlanPtr& plan);
/// Aggregates grouped by a join's keys aggregate only the rows whose keys the other side of the
/// join has (a semi join with the smallest part of it that carries the keys).
Result<exec::PlanPtr> ReduceAggregateInputs(const exec::PlanPtr& plan);
Result<exec::PlanPtr> PushDownSemiJoins(const exec::PlanPtr& plan);
Result<exec::PlanPtr> ReorderJoins(const exec::PlanPtr& plan);
Result<exec::PlanPtr> PushDownLimits(const exec::PlanPtr& plan);
Result<exec::PlanPtr> ChooseJoinSides(const exec::PlanPtr& plan);
Result<exec::PlanPtr> PushDownProjections(const exec::PlanPtr& plan);
/// A subexpression written in several aggregate arguments is computed once, below them.
Result<exec::PlanPtr> ShareSubexpressions(const exec::PlanPtr& plan);
Result<exec::PlanPtr> SimplifyProjections(const exec::PlanPtr& plan);

}  // namespace flotilla::optimizer
