package disruption

import (
	"slices"
	"strings"
)

// The bound pods a selector picks (selected) are asked for by every
// simulation whose pods have topology terms, and the model changes by a
// command at a time: a few nodes gain or lose pods, some go, some come.
// selState keeps, per compiled selector, the nodes holding a pod it picks
// (in name order, the order of m.nodes), and brings the list up to the
// model's version by re-reading only the nodes the commands since then
// changed, rather than every node of the cluster. The pods listed are what
// a scan of every node gives, in the same order.
type selState struct {
	byKey map[string]*selNodes
	// changes logs, in order, each node whose pods changed, that came
	// or that went, with the model version it changed at.
	changes []nodeChange
	// mark is relevant's generation (pod.relMark, node.relMark).
	mark int
}

// selNodes are the nodes with a pod one selector picks, with those pods,
// as of version.
type selNodes struct {
	version int
	entries []selEntry
}

// selEntry is one node and the pods of it a selector picks.
type selEntry struct {
	n    *node
	pods []*pod
}

type nodeChange struct {
	version int
	n       *node
}

// noteChange logs that n's pods changed, or that n came or went, during
// the command that ends the current version.
func (m *model) noteChange(n *node) {
	if n == nil {
		return
	}
	m.sels.changes = append(m.sels.changes, nodeChange{version: m.version, n: n})
}

// selNodesOf returns the nodes holding a pod the compiled selector key
// picks, in name order, each with those pods (m.mu held; shared: callers
// read it).
func (m *model) selNodesOf(key string) []selEntry {
	e := m.sels.byKey[key]
	if e == nil {
		e = &selNodes{version: m.version}
		for _, n := range m.nodes {
			if sel := m.nodeSel(n, key); len(sel) > 0 {
				e.entries = append(e.entries, selEntry{n, sel})
			}
		}
		if m.sels.byKey == nil {
			m.sels.byKey = map[string]*selNodes{}
		}
		m.sels.byKey[key] = e
		return e.entries
	}
	if e.version == m.version {
		return e.entries
	}
	changed := map[*node]bool{}
	for _, n := range m.changedSince(e.version) {
		changed[n] = true
	}
	entries := slices.DeleteFunc(slices.Clone(e.entries), func(x selEntry) bool { return changed[x.n] })
	for n := range changed {
		if m.byName[n.name] != n {
			continue
		}
		sel := m.nodeSel(n, key)
		if len(sel) == 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(entries, n.name, func(a selEntry, name string) int { return strings.Compare(a.n.name, name) })
		entries = slices.Insert(entries, i, selEntry{n, sel})
	}
	e.entries, e.version = entries, m.version
	return entries
}

// nodeSel returns the pods of n the compiled selector key picks (memoised
// on the node while its pods stay).
func (m *model) nodeSel(n *node, key string) []*pod {
	if sel, ok := n.sel[key]; ok {
		return sel
	}
	c := m.compiled[key]
	var sel []*pod
	for _, p := range n.pods {
		if c.selects(p) {
			sel = append(sel, p)
		}
	}
	if n.sel == nil {
		n.sel = map[string][]*pod{}
	}
	n.sel[key] = sel
	return sel
}

// changedSince lists the nodes logged at version or later (what changed
// since a memo made at version), a node once per time it changed.
func (m *model) changedSince(version int) []*node {
	from, _ := slices.BinarySearchFunc(m.sels.changes, version, func(c nodeChange, v int) int { return c.version - v })
	out := make([]*node, 0, len(m.sels.changes)-from)
	for _, c := range m.sels.changes[from:] {
		out = append(out, c.n)
	}
	return out
}
