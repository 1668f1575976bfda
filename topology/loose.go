package topology

import (
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// A loose group is a pod anti-affinity group on a key other than hostname
// that only preferred terms own: kube-scheduler never filters a node by it,
// it only steers its owners' scoring. Under LeaveSoftTargetsOpen, a pod
// that such groups count, and that no rule of its own and no other group
// ties to the key, does not pin its NodeClaim to a domain of the key: a soft rule of another pod must not
// decide where this one's node goes (later pods that need one domain can
// still join the claim, as in Karpenter). While the claim stays open the
// pod counts in every domain it could still take, so an owner placed later
// never keeps its preference in a domain the claim may launch in.
//
// The tracker remembers, per loose group and NodeClaim, the domains it
// counted the claim's pods in, so that taking a pod away removes exactly
// what was added whatever the claim's requirements have become since;
// every record, unrecord and Rehost of the claim counts them again in the
// domains the claim can take now.

// looseEntry is what a loose group counts of one NodeClaim: n pods, each in
// every domain of doms; under KeepLooseCounts, each pod in the domains of
// its own entry of each (the first joined first).
type looseEntry struct {
	n    int32
	doms []int32
	each [][]int32
}

// LeaveSoftTargetsOpen makes the tracker leave NodeClaims open on keys where
// only loose groups count a pod (above), and on keys where a pod's only
// rules are preferred anti-affinity terms (softOwnerKey). Call it before
// Finish; without it every claim is pinned, as the package documentation
// says.
func (t *Tracker) LeaveSoftTargetsOpen() { t.leaveOpen = true }

// KeepLooseCounts makes the tracker, under LeaveSoftTargetsOpen, count a
// pod that loose groups count in the domains its NodeClaim could take when
// the pod joined it, and not again when the claim narrows later (Rehost
// then does nothing), as Karpenter records a pod once, when it adds it:
// a pod on a claim open over zones a and b stays in both for the
// anti-affinity preferences of the pods placed after it, even once a
// later pod's spread pinned the claim to a, and those pods relax them.
// A pod leaving the claim takes away the domains of the one that joined
// last.
func (t *Tracker) KeepLooseCounts() { t.staleLoose = true }

// markLoose marks the loose groups and, on every key one of them counts,
// makes sure each value a source offers is a known domain (an open claim
// is counted in the known values its requirements allow). A spread group
// only ScheduleAnyway terms own is loose too, in every plan: a NodeClaim
// stays open on its key only for a pod whose own rules there are relaxed
// (relaxOpenKey), and the group counts such a pod in every domain its
// claim may take, as it counts a pinned claim's pods in its one domain.
func (t *Tracker) markLoose() {
	for _, g := range t.groups {
		soft := !g.required && g.ks.key != requirements.LabelHostname
		if !soft || (g.kind != Spread && (g.kind != AntiAffinity || !t.leaveOpen)) {
			continue
		}
		g.loose, g.entries = true, map[string]*looseEntry{}
		t.looseGroups = append(t.looseGroups, g)
		for i, s := range t.sources {
			if s.Existing {
				if v, ok := t.sourceLabels(i)[g.ks.key]; ok {
					g.ks.intern(v)
				}
				continue
			}
			if s.Values == nil {
				continue
			}
			for _, v := range s.Values(g.ks.key, requirements.Requirements{}) {
				g.ks.intern(v)
			}
		}
	}
}

// looseAnti reports whether g is a loose anti-affinity group (the claims
// of the pods only such groups count stay open: looseKey, softOwnerKey).
func (g *group) looseAnti() bool { return g.loose && g.kind == AntiAffinity }

// looseKey reports whether the pod's NodeClaim stays open on key: only
// loose groups count the pod there, and no term of its own is on it.
func (p *Pod) looseKey(key string) bool {
	return p.countedOnlyBy(key, (*group).looseAnti)
}

// relaxOpenKey reports whether a NodeClaim may stay open on key for the
// pod once its rules there are relaxed (CheckScope, with none of them
// active): key is not hostname, every term of the pod on it is a
// preference, and only loose groups count the pod there. Pinning the
// claim for a preference the pod no longer keeps could leave it no
// instance type, or too few for a NodePool's minValues (a spread over a
// catalog's size label, in zones where each size has fewer types than the
// minValues asks).
func (p *Pod) relaxOpenKey(key string) bool {
	return p.prefersOnly(key, func(Term) bool { return true }) && p.countedOnlyWhere(key, func(g *group) bool { return g.loose })
}

// activeOn reports whether a term of the pod on key is active.
func (p *Pod) activeOn(active Active, key string) bool {
	for i, t := range p.Terms {
		if t.Key == key && active(i) {
			return true
		}
	}
	return false
}

// skipsKey reports whether a check of the pod on host h leaves its i-th
// key alone: only loose anti-affinity groups count the pod there, or,
// under OpenRelaxed, its rules there are all relaxed preferences on a
// NodeClaim (relaxOpenKey).
func (t *Tracker) skipsKey(p *Pod, i int, active Active, h *Host) bool {
	return p.loose[i] || (t.openRelaxed && p.relaxOpen[i] && h.Node == nil && !p.activeOn(active, p.keys[i]))
}

// OpenRelaxed turns on (or off) leaving a NodeClaim open on the keys where
// a pod's rules are all relaxed preferences and only loose groups count it
// (relaxOpenKey); off, the claim is pinned there as on any key. The
// scheduler turns it on for a pod's last try, once every preference it
// may relax is relaxed and the pod still has no place.
func (t *Tracker) OpenRelaxed(on bool) { t.openRelaxed = on }

// RelaxOpens reports whether some key of the pod may be left open under
// OpenRelaxed.
func (p *Pod) RelaxOpens() bool { return slices.Contains(p.relaxOpen, true) }

// countedOnlyBy reports whether key is not hostname, no term of the pod is
// on it, and the groups that count the pod on it are at least one and all
// of the kind only reports.
func (p *Pod) countedOnlyBy(key string, only func(*group) bool) bool {
	if key == requirements.LabelHostname || slices.ContainsFunc(p.Terms, func(t Term) bool { return t.Key == key }) {
		return false
	}
	counted := false
	for _, g := range p.matched {
		if g.ks.key != key {
			continue
		}
		if !only(g) {
			return false
		}
		counted = true
	}
	return counted
}

// looseDomains returns the domains a NodeClaim may still take on ks, as a
// new slice in index order: the known values its requirements allow (none
// for a custom label nobody declared, which the node will not have).
func (t *Tracker) looseDomains(ks *keyState, h *Host) []int32 {
	r := h.Requirements.Get(ks.key)
	if r.IsAny() && !t.schema.IsWellKnown(ks.key) {
		return nil
	}
	var out []int32
	for i, v := range ks.values {
		if r.Has(v) {
			out = append(out, int32(i))
		}
	}
	return out
}

// looseDoms are the domains loose group g counts a pod of NodeClaim h in:
// those h may still take (looseDomains), or for a spread group the one h
// is decided in when it is (by its requirements or, alone, by its
// instance types and offerings).
func (t *Tracker) looseDoms(g *group, h *Host) []int32 {
	if g.kind == Spread {
		if d, ok := t.domainOf(g.ks, h); ok {
			return []int32{d}
		}
	}
	return t.looseDomains(g.ks, h)
}

// countLoose adds the pod on NodeClaim h to loose group g (or takes it
// away), after counting the claim's pods already there again in the
// domains h can take now.
func (t *Tracker) countLoose(g *group, h *Host, add bool) {
	e := g.entries[h.Hostname]
	if e == nil {
		if !add {
			return
		}
		e = &looseEntry{}
		g.entries[h.Hostname] = e
	}
	if t.staleLoose {
		t.countStale(g, e, h, add)
		return
	}
	t.reloose(g, e, t.looseDoms(g, h))
	if !add {
		if e.n == 0 {
			return
		}
		t.shiftLoose(g, e.doms, -1)
		if e.n--; e.n == 0 {
			delete(g.entries, h.Hostname)
		}
		return
	}
	t.shiftLoose(g, e.doms, 1)
	e.n++
}

// countStale is countLoose under KeepLooseCounts: a pod joining h counts
// in the domains h can take now, a pod leaving takes away those of the
// last pod that joined.
func (t *Tracker) countStale(g *group, e *looseEntry, h *Host, add bool) {
	if add {
		doms := t.looseDoms(g, h)
		e.each = append(e.each, doms)
		t.shiftLoose(g, doms, 1)
		return
	}
	if len(e.each) == 0 {
		return
	}
	last := len(e.each) - 1
	t.shiftLoose(g, e.each[last], -1)
	if e.each = e.each[:last]; last == 0 {
		delete(g.entries, h.Hostname)
	}
}

// reloose moves the entry's pods to doms.
func (t *Tracker) reloose(g *group, e *looseEntry, doms []int32) {
	if slices.Equal(e.doms, doms) {
		return
	}
	for range e.n {
		t.shiftLoose(g, e.doms, -1)
		t.shiftLoose(g, doms, 1)
	}
	e.doms = doms
}

// shiftLoose adds one pod to (by > 0) or takes one from every domain of
// doms in g.
func (t *Tracker) shiftLoose(g *group, doms []int32, by int) {
	for _, d := range doms {
		if by > 0 {
			g.add(d)
		} else if !g.remove(d) {
			continue
		}
		t.tally(g, d, false, by > 0)
	}
}

// Rehost counts the pods of NodeClaim h that loose groups count again in
// the domains h can take now. Call it when a claim's requirements change
// while it holds pods.
func (t *Tracker) Rehost(h *Host) {
	if t.staleLoose {
		return
	}
	for _, g := range t.looseGroups {
		if e := g.entries[h.Hostname]; e != nil {
			t.reloose(g, e, t.looseDoms(g, h))
		}
	}
}

// softOwnerKey reports whether the pod's rules on key are all preferred
// anti-affinity terms (at least one) and only loose groups count it there:
// as in Karpenter, which checks such a preference only against the pods
// placed before, its NodeClaim may take any domain the terms allow when it
// is placed rather than one chosen now.
func (p *Pod) softOwnerKey(key string) bool {
	return p.prefersOnly(key, func(t Term) bool { return t.Kind == AntiAffinity }) && p.countedOnlyWhere(key, (*group).looseAnti)
}

// prefersOnly reports whether key is not hostname and the pod has terms on
// it, all preferences that kind accepts.
func (p *Pod) prefersOnly(key string, kind func(Term) bool) bool {
	if key == requirements.LabelHostname {
		return false
	}
	owns := false
	for _, t := range p.Terms {
		if t.Key != key {
			continue
		}
		if t.Required || !kind(t) {
			return false
		}
		owns = true
	}
	return owns
}

// countedOnlyWhere reports whether every group that counts the pod on key
// is one only accepts.
func (p *Pod) countedOnlyWhere(key string, only func(*group) bool) bool {
	return !slices.ContainsFunc(p.matched, func(g *group) bool { return g.ks.key == key && !only(g) })
}

// openPin is the requirement that keeps a NodeClaim open on every domain
// of cands where an instance type holds the pod (rank), in value order.
func (t *Tracker) openPin(ks *keyState, cands []int32, pins []requirements.Requirement, rank Ranker) (requirements.Requirement, bool) {
	var vals []string
	for _, d := range cands {
		if rank == nil || !math.IsInf(rank(pins, ks.key, ks.values[d]), 1) {
			vals = append(vals, ks.values[d])
		}
	}
	slices.Sort(vals)
	return requirements.In(ks.key, vals...), len(vals) > 0
}
