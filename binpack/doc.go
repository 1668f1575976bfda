// Package binpack holds the arithmetic of packing: resource vectors (cpu in
// millicores, everything else in base units, one fixed-size array per
// request so comparisons never allocate), instance-type sets as bitsets, and
// a catalog prepared for the hot path: Tables (per-label bitsets so a
// requirement set filters 1,000+ instance types in a few word operations,
// offerings as small integers, price orders), built once and immutable, and
// an Index per solve that reads them and memoises its own answers
// (per-filter price orders, so the cheapest type that holds a load is a
// scan of a sorted list).
//
// Flow: binpack sits on requirements and instancetypes; scheduler uses it.
// It knows nothing of pods, NodePools or topology, and relaxes nothing.
package binpack
