package topology

import "github.com/nodeplan/nodeplan/requirements"

// Inverse-only anti-affinity. A required anti-affinity term of a pod bound
// to an existing node keeps the pods it selects out of that node's domain;
// when no pending pod owns the same term, nothing ever reads where those
// pods are counted: the group's owners are all placed already, and only a
// new owner would check the pods it counts. Under LeaveInverseOpen, a
// pending pod that such groups alone count on a key, with no rule of its
// own there, does not pin its NodeClaim to one domain of the key: the
// claim stays open on every domain the owners leave (openPin), as
// Karpenter's NodeClaim does, and its cheapest offering decides the domain
// when it launches (a capacity reservation in another zone can then hold
// it). Its pods are not counted in such groups while their claim is
// planned.

// LeaveInverseOpen makes the tracker leave NodeClaims open on keys where
// only inverse-only groups count their pods (see above). Call it before
// Finish.
func (t *Tracker) LeaveInverseOpen() { t.inverseOpen = true }

// HasInverseOnly reports whether some pending pod is counted by an
// anti-affinity group only existing pods own, on a key other than hostname
// (Finish computes it, whether or not LeaveInverseOpen was called).
func (t *Tracker) HasInverseOnly() bool { return t.anyInverseOnly }

// markInverseOnly marks the required anti-affinity groups, on a key other
// than hostname, that no pending pod owns a term of and some pending pod is
// counted by (under LeaveInverseOpen; it notes whether there are any in
// every case).
func (t *Tracker) markInverseOnly(pods []*Pod) {
	owned := map[*group]bool{}
	for _, p := range pods {
		for _, tm := range p.Terms {
			owned[tm.g] = true
		}
	}
	for _, p := range pods {
		for _, g := range p.matched {
			if g.kind == AntiAffinity && g.required && !owned[g] && g.ks.key != requirements.LabelHostname {
				t.anyInverseOnly = true
				g.inverseOnly = t.inverseOpen
			}
		}
	}
}

// inverseOnlyKey reports whether only inverse-only groups count the pod on
// key (at least one) and no term of its own is on it.
func (p *Pod) inverseOnlyKey(key string) bool {
	return p.countedOnlyBy(key, func(g *group) bool { return g.inverseOnly })
}
