package topology

import (
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// SoftSpreadPoolDomains makes the tracker take a ScheduleAnyway spread's
// domains as Karpenter does: every value of the key that some source
// offers and the pod's own requirements on that key allow, whether or not
// the pod's other requirements (an instance type, a capacity type) could
// ever launch there. A domain the pod cannot reach then holds the minimum
// at zero, the spread fails once the skew is reached, and the plan
// relaxes the pod's preferences in the order Karpenter does. A plan that
// relaxes as Karpenter does asks for it, so that its price is Karpenter's;
// every other plan counts only the domains the pod can reach.
func (t *Tracker) SoftSpreadPoolDomains() { t.poolDomains = true }

// SoftDomainsFrom makes, under SoftSpreadPoolDomains, a ScheduleAnyway
// spread's minimum run over the domains alt allows on the spread's key
// (nil: every eligible domain, the default). Karpenter counts a spread's
// domains from the requirements of the pod as it is being tried: with
// several required node-affinity terms, the term it is on, not every
// term (a pod whose first term allows one zone packs there, where the
// union of its terms would hold the minimum at zero in a zone only a later
// term reaches). A caller sets it around the tries of one requirement
// alternative and clears it after; alt is read, not copied, until then.
func (t *Tracker) SoftDomainsFrom(alt *requirements.Requirements) { t.softAlt = alt }

// softEligible is the domains a soft spread term's minimum runs over:
// term.eligible, narrowed under SoftDomainsFrom to those the current
// alternative allows on the key.
func (t *Tracker) softEligible(term *Term) []int32 {
	if t.softAlt == nil || !t.poolDomains || term.Required || !t.softAlt.Has(term.Key) {
		return term.eligible
	}
	r := t.softAlt.Get(term.Key)
	ks := term.g.ks
	t.softScratch = t.softScratch[:0]
	for _, d := range term.eligible {
		if r.Has(ks.values[d]) {
			t.softScratch = append(t.softScratch, d)
		}
	}
	return t.softScratch
}

// PickRequiredDomains makes Karpenter's pick (karpenterPick) narrow a
// required spread's domains on a NodeClaim too, under
// SoftSpreadPoolDomains, while on. Karpenter picks a least-count domain
// for a DoNotSchedule spread the same way, and when the NodeClaim has no
// instance type that fits there the pod fails and relaxes its next
// preference (a preferred architecture, say) rather than taking the
// domain where its preferred types are. A caller sets it for the attempts
// that leave the pod preferences to relax, and clears it for the last
// (where failing would leave the pod unplaced, not relaxed).
func (t *Tracker) PickRequiredDomains(on bool) { t.pickRequired = on }

// karpenterPick narrows the candidate domains of a soft spread term on a
// NodeClaim, under SoftSpreadPoolDomains, to Karpenter's choice. Karpenter
// takes one domain of least count among those the term's minimum runs over
// (every value a source offers) that the NodeClaim's requirements allow
// and the skew admits, whichever comes first among equals, and the claim
// fails when no instance type of it is in that domain. Where most such
// domains have no type that fits (a spread over instance sizes, of which
// the pod's other requirements leave one), Karpenter relaxes the spread:
// no candidate is left. A required spread's term (PickRequiredDomains)
// fails when any of them has no type that fits: Karpenter's pick among
// equals is its map's order, so such a pod relaxes its next preference in
// some of its runs, and the plan made so is Karpenter's cheaper outcome.
// Else the candidates are the least-count ones.
func (t *Tracker) karpenterPick(term *Term, cands []int32, h *Host, m, self int32) []int32 {
	g := term.g
	r := h.Requirements.Get(g.ks.key)
	least, tied := int32(math.MaxInt32), 0
	eligible := t.softEligible(term)
	for _, d := range eligible {
		c := g.get(d) + self
		if c-m > g.maxSkew || !r.Has(g.ks.values[d]) {
			continue
		}
		switch {
		case c < least:
			least, tied = c, 1
		case c == least:
			tied++
		}
	}
	if tied == 0 {
		return cands
	}
	cands = keep(cands, func(d int32) bool { return g.get(d)+self == least && slices.Contains(eligible, d) })
	if 2*len(cands) < tied || (term.Required && len(cands) < tied) {
		return cands[:0]
	}
	return cands
}

// domainSpec is the spec whose requirements choose term's eligible
// domains: spec, or under SoftSpreadPoolDomains for a soft spread, spec
// with each requirement alternative cut to the term's key.
func (t *Tracker) domainSpec(spec PodSpec, tm Term) PodSpec {
	if !t.poolDomains || tm.Required || len(spec.Requirements) == 0 {
		return spec
	}
	cut := spec
	cut.Requirements = make([]requirements.Requirements, len(spec.Requirements))
	for i, alt := range spec.Requirements {
		if alt.Has(tm.Key) {
			cut.Requirements[i] = requirements.Requirements{}.Add(alt.Get(tm.Key))
		}
	}
	return cut
}
