package disruption

import (
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// A pod with a required zone spread that leaves a node of zone z can land
// in another zone z' only when the spread allows it, and a spread that was
// even keeps it in z. Let c(d) be the active pods the spread's selector
// picks in zone d, the leaving nodes' included, when every leaving node is
// in z, another node of z stays (z stays a domain), and the pod is picked
// by its own selector. Take any order in which the moved pods bind, and the
// first pod of the spread bound outside z, in z': until then no picked pod
// entered a zone other than z and none left one (so z' counts at least
// c(z')), and z counts at most c(z) − 1 (the pod itself has not come back),
// so the least count of any domain is at most c(z) − 1. The spread allows
// z' only when c(z') + 1 − min ≤ maxSkew, so only when
// c(z') ≤ c(z) + maxSkew − 2. A zone beyond that takes no pod of the
// spread, first or later. NodeClaims are nodes of a zone too: the same
// holds for them.
//
// The counts are those Solve's view gives (active pods; no node filter:
// the pod has no node selector or required node affinity, or its spread
// ignores them, and taints are not honoured). A spread with matchLabelKeys,
// or a selector that picks a pod on a node being deleted, restricts
// nothing.

// spreadZone is the zone every leaving node is in when another node of it
// stays ("" when none: no restriction).
func (m *model) spreadZone(cands []*candidate, leaving map[*node]bool) string {
	if len(cands) == 0 {
		return ""
	}
	z := cands[0].n.zone
	for _, c := range cands {
		if c.n.zone != z {
			return ""
		}
	}
	if z == "" {
		return ""
	}
	if m.zoneNodes(z) > m.leavingIn(leaving) {
		return z
	}
	return ""
}

// zoneNodes counts the nodes of zone z not being deleted (m.mu held).
func (m *model) zoneNodes(z string) int {
	m.zoneCountsAt()
	if m.zoneCount.nodes == nil {
		m.zoneCount.nodes = map[string]int{}
		for _, n := range m.nodes {
			if !n.deleting {
				m.zoneCount.nodes[n.zone]++
			}
		}
	}
	return m.zoneCount.nodes[z]
}

// leavingIn counts the leaving nodes not being deleted.
func (m *model) leavingIn(leaving map[*node]bool) int {
	k := 0
	for n, gone := range leaving {
		if gone && !n.deleting {
			k++
		}
	}
	return k
}

// zoneCheck is what a ruling made with blocked zones read: the zones a
// selector's counts blocked for a maxSkew. The ruling holds while they stay
// blocked (blocking more only takes more room away).
type zoneCheck struct {
	key     string
	z       string
	skew    int
	blocked []string
	// nodes are the nodes z must keep (not being deleted) to stay a
	// domain once the ruling's nodes leave.
	nodes int
}

// holds: the zones are still blocked at the model's version (m.mu held).
func (c zoneCheck) holds(m *model) bool {
	if m.zoneNodes(c.z) < c.nodes {
		return false
	}
	counts, ok := m.zoneCounts(c.key)
	if !ok {
		return false
	}
	for _, d := range c.blocked {
		if counts[d] <= counts[c.z]+c.skew-2 {
			return false
		}
	}
	return true
}

// blockedZones returns the zones, other than z, p cannot land in after
// leaving z (sorted; nil: none), and appends what it read to checks
// (nodes: what z must keep, see zoneCheck).
func (m *model) blockedZones(p *pod, z string, nodes int, checks *[]zoneCheck) []string {
	var out []string
	for _, sp := range m.zoneSpreads(p) {
		counts, ok := m.zoneCounts(sp.key)
		if !ok {
			continue
		}
		var blocked []string
		for d, n := range counts {
			if d != z && n > counts[z]+sp.skew-2 {
				blocked = append(blocked, d)
			}
		}
		if len(blocked) > 0 {
			slices.Sort(blocked)
			*checks = append(*checks, zoneCheck{key: sp.key, z: z, skew: sp.skew, blocked: blocked, nodes: nodes})
			out = append(out, blocked...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// zoneSpread is a required zone spread of a pod the argument above reads:
// its compiled selector and maxSkew.
type zoneSpread struct {
	key  string
	skew int
}

// zoneSpreads are p's required zone spreads whose counts spreadzones.go
// can read: DoNotSchedule on the zone, no matchLabelKeys, the pod picked
// by its own selector, every node counted (no node filter honoured, taints
// not honoured). Read once per pod (its spec is never written, and
// compile's keys hold for the plan). m.mu held.
func (m *model) zoneSpreads(p *pod) []zoneSpread {
	if !p.zoneSpreadsKnown {
		p.zoneSpreads, p.zoneSpreadsKnown = m.readZoneSpreads(p), true
	}
	return p.zoneSpreads
}

func (m *model) readZoneSpreads(p *pod) []zoneSpread {
	spec := &p.obj.Spec
	filtered := nodeFiltered(spec)
	var out []zoneSpread
	for i := range spec.TopologySpreadConstraints {
		c := &spec.TopologySpreadConstraints[i]
		if c.WhenUnsatisfiable != corev1.DoNotSchedule || c.TopologyKey != requirements.LabelTopologyZone ||
			c.LabelSelector == nil || len(c.MatchLabelKeys) > 0 || c.MaxSkew < 1 ||
			(c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor) ||
			(filtered && (c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor)) {
			continue
		}
		key, ok := m.compile(podSelector{namespaces: []string{p.ns}, sel: c.LabelSelector})
		if !ok || !m.compiled[key].selects(p) {
			continue
		}
		out = append(out, zoneSpread{key: key, skew: int(c.MaxSkew)})
	}
	return out
}

// skewChange is a move packState logged, to undo.
type skewChange struct {
	key, zone string
	delta     int
}

// of returns the counts of a selector (nil: not counted).
func (sk *packState) of(key string) map[string]int {
	if c, ok := sk.counts[key]; ok {
		return c
	}
	base, ok := sk.m.zoneCounts(key)
	var c map[string]int
	if ok {
		c = maps.Clone(base)
	}
	sk.counts[key] = c
	return c
}

// move counts p in or out of a zone for each of its spreads.
func (sk *packState) move(p *pod, zone string, delta int) {
	for _, sp := range sk.m.zoneSpreads(p) {
		if c := sk.of(sp.key); c != nil && zone != "" {
			c[zone] += delta
			sk.log = append(sk.log, skewChange{sp.key, zone, delta})
		}
	}
}

// undo takes back the moves after the log's mark.
func (sk *packState) undo(mark int) {
	for i := len(sk.log) - 1; i >= mark; i-- {
		ch := sk.log[i]
		sk.counts[ch.key][ch.zone] -= ch.delta
	}
	sk.log = sk.log[:mark]
}

// allows: p placed in zone keeps every spread's skew within its maxSkew
// (the least count over the zones counted).
func (sk *packState) allows(p *pod, zone string) bool {
	for _, sp := range sk.m.zoneSpreads(p) {
		c := sk.of(sp.key)
		if c == nil || zone == "" {
			continue
		}
		least := math.MaxInt
		for _, n := range c {
			least = min(least, n)
		}
		if c[zone]+1-least > sp.skew {
			return false
		}
	}
	return true
}

// zoneCounts counts, per zone, the active pods the compiled selector key
// picks on the nodes not being deleted (ok false: one is on a node being
// deleted). m.mu held.
func (m *model) zoneCounts(key string) (map[string]int, bool) {
	m.zoneCountsAt()
	if counts, seen := m.zoneCount.byKey[key]; seen {
		return counts, counts != nil
	}
	counts, ok := m.countZones(key)
	m.zoneCount.byKey[key] = counts
	return counts, ok
}

// zoneCountsAt drops the memo of an older model version.
func (m *model) zoneCountsAt() {
	if m.zoneCount.version != m.version || m.zoneCount.byKey == nil {
		m.zoneCount = zoneCountState{version: m.version, byKey: map[string]map[string]int{}}
	}
}

// zoneCountState memoises, at one model version, zoneCounts (by key; nil
// counts: not ok) and zoneNodes (nodes).
type zoneCountState struct {
	version int
	byKey   map[string]map[string]int
	nodes   map[string]int
	// movedOnly, once movedKnown, is model.movedOnly's answer.
	movedOnly, movedKnown bool
}

func (m *model) countZones(key string) (map[string]int, bool) {
	counts := map[string]int{}
	for _, e := range m.selNodesOf(key) {
		for _, q := range e.pods {
			if !q.active() {
				continue
			}
			if e.n.deleting {
				return nil, false
			}
			if e.n.zone != "" {
				counts[e.n.zone]++
			}
		}
	}
	return counts, true
}

// zoneClassRoom is classRoom for p's class without the nodes of the
// blocked zones.
func (m *model) zoneClassRoom(rs *roomState, p *pod, blocked []string) (*classRoom, string) {
	key := p.classKey() + "\x00zones\x00" + strings.Join(blocked, ",")
	if cr := rs.classes[key]; cr != nil {
		return cr, key
	}
	all := m.classRoom(rs, p)
	cr := &classRoom{total: make(vec, len(all.total)), admits: make([]bool, len(rs.nodes))}
	for _, i := range all.admitted {
		if slices.Contains(blocked, rs.nodes[i].zone) {
			continue
		}
		cr.admitted = append(cr.admitted, i)
		cr.admits[i] = true
		cr.total.addPositive(rs.rooms[i])
	}
	rs.classes[key] = cr
	return cr, key
}
