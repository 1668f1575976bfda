package topology

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// labelIndex lists, for each label (key and value), the existing pods that
// carry it, by index, in increasing order. A selector with an In or Equals
// requirement can only pick pods that carry one of its values, so
// Tracker.selected checks those rather than every existing pod: the same
// answer, in the same order.
type labelIndex map[labelKV][]int32

type labelKV struct{ key, value string }

func newLabelIndex(existing []ExistingPod) labelIndex {
	idx := labelIndex{}
	for i := range existing {
		for k, v := range existing[i].Labels {
			kv := labelKV{k, v}
			idx[kv] = append(idx[kv], int32(i))
		}
	}
	return idx
}

// candidates returns, in increasing order, the existing pods that carry a
// value of the selector's In or Equals requirement that names the fewest
// of them; false when the selector has no such requirement (every pod is
// a candidate). The slice may be the index's own: callers only read it.
func (idx labelIndex) candidates(sel labels.Selector) ([]int32, bool) {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return nil, false
	}
	best, found := -1, false
	var bestReq labels.Requirement
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
		default:
			continue
		}
		n := 0
		for v := range r.Values() {
			n += len(idx[labelKV{r.Key(), v}])
		}
		if !found || n < best {
			best, bestReq, found = n, r, true
		}
	}
	if !found {
		return nil, false
	}
	values := bestReq.Values().UnsortedList()
	if len(values) == 1 {
		return idx[labelKV{bestReq.Key(), values[0]}], true
	}
	// A pod has one value per key: the lists are disjoint.
	out := make([]int32, 0, best)
	for _, v := range values {
		out = append(out, idx[labelKV{bestReq.Key(), v}]...)
	}
	slices.Sort(out)
	return out, true
}

// indexScans is how many selectors a Matches checks against every
// existing pod before it indexes their labels (a solve with few topology
// groups never pays for the index).
const indexScans = 2

// candidates returns the existing pods that may match sel (see
// labelIndex.candidates), indexing existing once enough selectors were
// checked (m.mu not held).
func (m *Matches) candidates(existing []ExistingPod, sel labels.Selector) ([]int32, bool) {
	m.mu.Lock()
	if m.index == nil {
		m.scans++
		if m.scans <= indexScans {
			m.mu.Unlock()
			return nil, false
		}
		m.index = newLabelIndex(existing)
	}
	idx := m.index
	m.mu.Unlock()
	return idx.candidates(sel)
}

// candidatesOf is m.candidates, false for a nil m.
func (m *Matches) candidatesOf(existing []ExistingPod, sel labels.Selector) ([]int32, bool) {
	if m == nil {
		return nil, false
	}
	return m.candidates(existing, sel)
}
