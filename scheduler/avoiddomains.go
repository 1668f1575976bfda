package scheduler

import (
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// Domains a spread's own pods can never enter. A DoNotSchedule spread with
// nodeAffinityPolicy Ignore counts every node that has its key, also the
// nodes the pod's own node selector keeps it off: a node of such a domain
// holds none of the spread's pods, so the global minimum is zero and the
// pods may fill the domains they can enter only up to maxSkew. A plan that
// launches such a node for other pods (an on-demand node, where the
// spread's pods select spot) costs the spread all but maxSkew of its pods,
// and the plan cannot move it out while planning: every value a NodePool
// offers is a domain until the nodes are known. The same holds under
// nodeAffinityPolicy Honor when the pods select nothing on the key but
// can only use NodePools (taints, requirements, instance types) that
// offer some of its values: a node of another NodePool in another zone is
// a domain their spread counts and they cannot fill.
//
// So when the plan leaves pods of such a class unplaced, Solve also plans
// the same input with every new NodeClaim held to the values the class's
// pods can take on that key (what their node selector allows under
// Ignore, else what the NodePools they can use offer them; each NodePool's
// requirements narrowed, a pool left with none launches nothing), provided
// no existing node is outside them (its domain is there whatever the plan
// launches). That plan is kept only when it places more pods. A plan that
// placed every pod it could, some under a later node-affinity term that
// reaches more domains than the first, is planned again the same way with
// the first term's domains (firstTermDomains), and that plan is kept when
// it places the same pods for less.

// orDomainsAvoided returns, in place of best, the plan with new NodeClaims
// kept out of the domains an unplaced class's spread cannot enter, or out
// of those only a later node-affinity term reaches (above), when it places
// more pods, or (the latter) the same pods for less; else best. Both are
// tried when both apply, the first term's domains after the other (30068:
// the domains a class with pods left could enter held every NodeClaim to
// one zone and placed 116 pods where best placed 166; the first term's
// domains of another class, whose later terms had sent 16 of its pods to a
// zone only they reached, place 170, Karpenter 169).
func (best *solver) orDomainsAvoided(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods || cfg.domainsAvoided {
		return best, nil
	}
	avoid, first := best.domainsToAvoid(), best.firstTermDomains()
	for _, try := range []struct {
		narrow  []nodepool.NodeSelectorRequirementWithMinValues
		cheaper bool
	}{{avoid, false}, {first, true}} {
		if len(try.narrow) == 0 {
			continue
		}
		v, err := best.domainsAvoided(pods, nodePools, catalog, cfg, try.narrow)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		n, bn := v.finalPlaced(), best.finalPlaced()
		if n > bn || (try.cheaper && n == bn && samePlaced(best, v) && v.planPrice() < best.planPrice()-priceEps) {
			best = v
		}
	}
	return best, nil
}

// domainsAvoided is the finished plan with every NodePool's new NodeClaims
// held to narrow; nil when the narrowed NodePools are invalid.
func (best *solver) domainsAvoided(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config, narrow []nodepool.NodeSelectorRequirementWithMinValues) (*solver, error) {
	pools := make([]nodepool.NodePool, len(nodePools))
	for i, np := range nodePools {
		np = np.DeepCopy()
		for _, r := range narrow {
			// A custom label the NodePool does not declare is on none of its
			// nodes (no domain of the key): narrowing it there would declare
			// the label, and pods that require a value of it could then come.
			if best.poolGivesKey(np.Name, r.Key) {
				np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, r)
			}
		}
		pools[i] = np
	}
	c := cfg.replanOf(best)
	c.domainsAvoided = true
	c.shared = newExistingShare(c.memo) // the pools differ from the shared ones
	v, err := finishedOf(pods, pools, catalog, c)
	if err != nil {
		// The narrowed pools are not the caller's input: a pool they make
		// invalid (past the requirement cap) only means no such plan.
		return nil, nil
	}
	return v, nil
}

// firstTermDomains is domainsToAvoid for a plan that placed every pod it
// could, but some under a later node-affinity term whose reach on a
// spread's key is wider than the first term's: each such class's pods
// spread (DoNotSchedule, nodeAffinityPolicy Honor) over the domains any of
// its terms reaches, while kube-scheduler's minimum runs over the nodes the
// plan launches that pass one of the terms. Held to the first term's
// domains, every new NodeClaim is in one of them, those are the spread's
// only domains, and the pods may all take the first term (Karpenter tries
// the terms in order with the domains of the term it tries): 24 pods on
// m4.16xlarge in one zone instead of p5.48xlarge in three, which only the
// second term reaches. The plan made so is kept only when it places the
// same pods for less (or more pods). Nil when no class is so.
func (s *solver) firstTermDomains() []nodepool.NodeSelectorRequirementWithMinValues {
	// What the plan spent of the NodePools' limits is not spent in the plan
	// made with the narrowed pools: a NodePool the plan used up still
	// reaches its domains (30068: the 16 pods a later term sent to the only
	// NodePool offering a third zone used up its memory limit, and the
	// domains of their spread then looked reachable under the first term
	// alone).
	limited := make([]bool, len(s.pools))
	for i, p := range s.pools {
		limited[i], p.limited = p.limited, false
	}
	defer func() {
		for i, p := range s.pools {
			p.limited = limited[i]
		}
	}()
	byKey := narrowing{}
	for _, c := range s.classes {
		if c.invalid != nil || len(c.alts) < 2 || !slices.ContainsFunc(c.pods, func(pp *pending) bool { return placedOn(pp) && pp.att.alt != 0 }) {
			continue
		}
		for _, sc := range c.topoSpec.Spread {
			if sc.WhenUnsatisfiable != corev1.DoNotSchedule || (sc.NodeAffinityPolicy != nil && *sc.NodeAffinityPolicy == corev1.NodeInclusionPolicyIgnore) {
				continue
			}
			key := s.schema.Normalize(sc.TopologyKey)
			if key == requirements.LabelHostname {
				continue
			}
			first, ok := s.reachableUnder(c, key, func(alt int) bool { return alt == 0 })
			if !ok {
				continue
			}
			all, ok := s.reachable(c, key)
			if !ok || all.Len() <= first.Len() || !s.offersBeyond(key, first) || s.existingBeyond(key, first) {
				continue
			}
			byKey.add(key, first)
		}
	}
	return byKey.nodePoolRequirements()
}

// domainsToAvoid is the requirement per key, in key order, that holds new
// NodeClaims to the values every class with pods left unplaced and a
// DoNotSchedule spread on the key can take there (under
// nodeAffinityPolicy Ignore the one requirement on the key all of the
// class's node-affinity alternatives share, In or NotIn, when there is
// one; else the values the NodePools it can use offer it, reachable),
// where a NodePool offers another value and no existing node has one; nil
// when there is none.
func (s *solver) domainsToAvoid() []nodepool.NodeSelectorRequirementWithMinValues {
	byKey := narrowing{}
	for _, c := range s.classes {
		if c.invalid != nil || len(c.pods) == 0 || allPlaced(c.pods) {
			continue
		}
		for _, sc := range c.topoSpec.Spread {
			if sc.WhenUnsatisfiable != corev1.DoNotSchedule {
				continue
			}
			key := s.schema.Normalize(sc.TopologyKey)
			if key == requirements.LabelHostname {
				continue
			}
			ignore := sc.NodeAffinityPolicy != nil && *sc.NodeAffinityPolicy == corev1.NodeInclusionPolicyIgnore
			r, ok := requirements.Requirement{}, false
			if ignore {
				r, ok = sharedRequirement(c.topoSpec.Requirements, key)
			}
			if !ok {
				r, ok = s.reachable(c, key)
			}
			if !ok || !s.offersBeyond(key, r) || s.existingBeyond(key, r) {
				continue
			}
			byKey.add(key, r)
		}
	}
	return byKey.nodePoolRequirements()
}

// narrowing is, per key, the requirement new NodeClaims are held to: the
// intersection of those added (one that would leave none is not added).
type narrowing map[string]requirements.Requirement

func (n narrowing) add(key string, r requirements.Requirement) {
	if prev, seen := n[key]; seen {
		if r = prev.Intersect(r); r.IsEmpty() {
			return
		}
	}
	n[key] = r
}

// nodePoolRequirements is the narrowing as NodePool requirements (In, or
// NotIn for one that excludes values), in key order.
func (n narrowing) nodePoolRequirements() []nodepool.NodeSelectorRequirementWithMinValues {
	var out []nodepool.NodeSelectorRequirementWithMinValues
	for _, key := range slices.Sorted(maps.Keys(n)) {
		r := n[key]
		op := corev1.NodeSelectorOpIn
		if !r.IsFinite() {
			op = corev1.NodeSelectorOpNotIn
		}
		out = append(out, nodepool.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: slices.Clone(r.Values())})
	}
	return out
}

// poolGivesKey reports whether nodes of the NodePool named name may carry
// key: it is well-known, an instance-type label, or the NodePool declares
// it.
func (s *solver) poolGivesKey(name, key string) bool {
	if s.schema.IsWellKnown(key) || s.idx.IsLabelKey(key) {
		return true
	}
	for _, p := range s.pools {
		if p.tmpl.Name == name {
			return p.reqs.Has(key)
		}
	}
	return false
}

// reachable is the requirement In the values of key the class's pods can
// take on a new NodeClaim: over the NodePools whose taints they tolerate
// and each requirement alternative compatible with the pool that some
// instance type holds the pod under, the values its types and offerings
// leave for key. False when the values are not known or there are none.
// Nodes of the other values launched for other pods are domains the
// class's spread counts (its node filter passes them when the pods select
// nothing on key) and can never fill.
func (s *solver) reachable(c *class, key string) (requirements.Requirement, bool) {
	return s.reachableUnder(c, key, func(int) bool { return true })
}

// reachableUnder is reachable over the requirement alternatives use keeps.
func (s *solver) reachableUnder(c *class, key string, use func(alt int) bool) (requirements.Requirement, bool) {
	set := map[string]bool{}
	last := len(c.steps)
	var zero binpack.Vec
	for _, p := range s.pools {
		if p.types.IsEmpty() || !s.poolTolerated(c, p, last) {
			continue
		}
		for alt := range c.alts {
			if !use(alt) {
				continue
			}
			a, ok := s.newAttempt(c, alt, last, true)
			if !ok {
				continue
			}
			id := s.reqs.compat(p.reqID, a.reqID)
			if id < 0 {
				continue
			}
			if _, _, _, fits := s.cheapestFit(c.ports, p, id, c.requests, &zero, 0, math.Inf(1), nil); !fits {
				continue
			}
			vs := s.reqs.info(id).DomainValues(key)
			if len(vs) == 0 {
				return requirements.Requirement{}, false
			}
			for _, v := range vs {
				set[v] = true
			}
		}
	}
	if len(set) == 0 {
		return requirements.Requirement{}, false
	}
	return requirements.In(key, slices.Sorted(maps.Keys(set))...), true
}

// sharedRequirement is the requirement on key that every alternative of
// alts has, when it is a plain In or NotIn of values (no bounds, no
// Exists), and all alternatives have the same one.
func sharedRequirement(alts []requirements.Requirements, key string) (requirements.Requirement, bool) {
	if len(alts) == 0 {
		return requirements.Requirement{}, false
	}
	var r requirements.Requirement
	for i, alt := range alts {
		if !alt.Has(key) {
			return requirements.Requirement{}, false
		}
		a := alt.Get(key)
		switch a.Operator() {
		case requirements.OpIn, requirements.OpNotIn:
		default:
			return requirements.Requirement{}, false
		}
		if _, _, _, bounded := a.Bounds(); bounded {
			return requirements.Requirement{}, false
		}
		if i == 0 {
			r = a
		} else if a.Operator() != r.Operator() || !slices.Equal(a.Values(), r.Values()) {
			return requirements.Requirement{}, false
		}
	}
	return r, true
}

// offersBeyond reports whether a NodePool may launch a node whose value of
// key r does not allow.
func (s *solver) offersBeyond(key string, r requirements.Requirement) bool {
	for _, p := range s.pools {
		pr := p.reqs.Get(key)
		if pr.IsEmpty() || p.types.IsEmpty() {
			continue
		}
		if !pr.IsFinite() {
			if r.IsFinite() {
				return true
			}
			// Both exclude values: beyond unless the pool excludes every
			// value r does.
			if slices.ContainsFunc(r.Values(), pr.Has) {
				return true
			}
			continue
		}
		if slices.ContainsFunc(pr.Values(), func(v string) bool { return !r.Has(v) }) {
			return true
		}
	}
	return false
}

// existingBeyond reports whether an existing node has a value of key that
// r does not allow.
func (s *solver) existingBeyond(key string, r requirements.Requirement) bool {
	for _, n := range s.existing {
		if v, ok := n.labels[key]; ok && !r.Has(v) {
			return true
		}
	}
	return false
}
