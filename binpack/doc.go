// Package binpack holds the arithmetic of packing: resource vectors (cpu in
// millicores, everything else in base units, one fixed-size array per
// request so comparisons never allocate), instance-type sets as bitsets, and
// an Index of a catalog prepared for the hot path: per-label bitsets so a
// requirement set filters 1,000+ instance types in a few word operations,
// offerings as small integers, and per-filter price orders so the cheapest
// type that holds a load is a scan of a sorted list.
//
// Flow: binpack sits on requirements and instancetypes; scheduler uses it.
// It knows nothing of pods, NodePools or topology, and relaxes nothing.
package binpack
