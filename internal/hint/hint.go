// Package hint finds the word a person most likely meant: the edit
// distance behind "did you mean" hints for misspelled label keys
// (requirements) and unknown fields (nodepool, manifests).
//
// Flow: hint sits on nothing but the standard library.
package hint

// Distance is the Levenshtein distance of a and b (insertions, deletions and
// substitutions of bytes), or limit when it is at least limit: a caller
// that only cares about close words stops early.
func Distance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
