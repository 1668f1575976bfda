package topology

import "github.com/nodeplan/nodeplan/requirements"

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
