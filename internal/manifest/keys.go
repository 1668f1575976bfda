package manifest

import (
	"maps"
	"slices"
)

func sortedKeys[K ~string, V any](m map[K]V) []string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, string(k))
	}
	return out
}
