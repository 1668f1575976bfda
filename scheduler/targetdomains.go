package scheduler

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// Targets in the domain their followers select. A follower whose required
// pod affinity on a key other than hostname names a target, and whose own
// node requirements hold that key to a few values (a nodeSelector on one
// zone), can only go where a target pod runs in one of those values. The
// targets are placed first, each in the domain cheapest for it or the one
// its own spread leaves (two replicas spread over zones take the first two
// zones), with nothing pointing them at the followers' values: the
// followers then find no target pod in a domain they can enter (7307: both
// replicas in us-east-1a and -1b, the followers select us-east-1c).
//
// So when the finished plan leaves such followers unplaced, Solve also
// plans the same input with the targets given one more preference: a
// preferred node-affinity term, the lightest of all, for the values their
// followers select. The plan honours it while it can (the first replica
// goes to us-east-1c, the second where the spread sends it); finished too,
// that plan replaces the first only when it places more pods. The term is
// the plan's own device: it is never reported as relaxed (relaxations are
// judged on the pods' own rules).

// orTargetsToFollowerDomains returns, in place of best, the plan of the
// same input with the targets of best's unplaced followers preferring the
// followers' domains (above), when it places more pods; else best.
func (best *solver) orTargetsToFollowerDomains(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods {
		return best, nil
	}
	want := best.followerDomains()
	if len(want) == 0 {
		return best, nil
	}
	c := cfg.replanOf(best)
	c.targetDomains = want
	return best.orFinishedReplan(pods, nodePools, catalog, c)
}

// followerDomains maps the first pod of each target class to the
// requirement of the values its unplaced followers select on the key of
// their required pod affinity to it (the union of their In values; a
// target named by followers on several keys keeps the first key, in class
// order), and, where such a target has a required pod affinity on that key
// itself, its own targets too; nil when there is none.
func (s *solver) followerDomains() map[string]requirements.Requirement {
	var out map[string]requirements.Requirement
	s.eachUnplacedFollower(func(c *class, key string, t *class) {
		if key == requirements.LabelHostname {
			return
		}
		r, ok := sharedRequirement(c.alts, key)
		if !ok || !r.IsFinite() {
			return
		}
		if out == nil {
			out = map[string]requirements.Requirement{}
		}
		addFollowerDomain(out, t, key, r)
	})
	return out
}

// eachUnplacedFollower calls f for each class c with unplaced pods, each
// required pod-affinity term of c (key: its topology key, normalised) and
// each target class with pods that the term selects, in class, term and
// target order.
func (s *solver) eachUnplacedFollower(f func(c *class, key string, t *class)) {
	for _, c := range s.classes {
		if c.invalid != nil || len(c.targets) == 0 || allPlaced(c.pods) || c.sample.Spec.Affinity == nil || c.sample.Spec.Affinity.PodAffinity == nil {
			continue
		}
		for _, term := range c.sample.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if term.LabelSelector == nil {
				continue
			}
			sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
			if err != nil {
				continue
			}
			key := s.schema.Normalize(term.TopologyKey)
			for _, t := range c.targets {
				if t.invalid == nil && len(t.pods) > 0 && sel.Matches(labels.Set(t.labels)) {
					f(c, key, t)
				}
			}
		}
	}
}

// addFollowerDomain adds r's values on key to t's entry, and to the entries
// of t's own targets when t has a required pod affinity on key.
func addFollowerDomain(out map[string]requirements.Requirement, t *class, key string, r requirements.Requirement) {
	name := t.pods[0].name
	if prev, ok := out[name]; ok {
		if prev.Key() != key {
			return
		}
		vals := append(slices.Clone(prev.Values()), r.Values()...)
		slices.Sort(vals)
		vals = slices.Compact(vals)
		if slices.Equal(vals, prev.Values()) {
			return // seen: no new value (also ends cycles)
		}
		r = requirements.In(key, vals...)
	}
	out[name] = r
	if requiredAffinityOn(t.sample, key) {
		for _, u := range t.targets {
			if u.invalid == nil && len(u.pods) > 0 {
				addFollowerDomain(out, u, key, r)
			}
		}
	}
}

// followerDomainTerm is the preferred node-affinity term config.targetDomains
// gives class c (the lightest of its terms), if any.
func (s *solver) followerDomainTerm(c *class) (prefTerm, bool) {
	if len(s.cfg.targetDomains) == 0 || len(c.pods) == 0 {
		return prefTerm{}, false
	}
	r, ok := s.cfg.targetDomains[c.pods[0].name]
	if !ok {
		return prefTerm{}, false
	}
	reqs := requirements.NewRequirements(r)
	return prefTerm{weight: 1, reqs: reqs, desc: fmt.Sprintf("followers' domain: %s", reqs), device: true}, true
}

// Targets on a node their followers can use. A follower whose required pod
// affinity on the hostname names a target must run on a target's node, so
// that node must also meet the follower's own node requirements and hold
// it beside the target (13473: the followers select the one instance type
// with 7,600 GB of local NVMe; the targets, small pods with no rule of
// their own, went to the cheapest claims, and no follower could join them,
// though the plan launched a node of that type for other pods; 17093: the
// followers ask for a GPU, the targets filled claims of types without one).
// When the finished plan leaves such followers unplaced, Solve also plans
// with each of their target classes preferring, as its lightest term, the
// follower's node requirements and the instance types that hold a pod of
// both, outside the NodePools whose taints or requirements the follower
// fails (35249: the targets tolerate a tainted NodePool of the highest
// weight that offers those types too, and went there); that plan,
// finished, replaces the first only when it places more pods. As with the
// domains above, the term is the plan's own device.

// orTargetsToFollowerNodes returns, in place of best, the plan of the same
// input with the targets of best's unplaced hostname followers preferring
// nodes those followers can use (above), when it places more pods; else
// best.
func (best *solver) orTargetsToFollowerNodes(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods {
		return best, nil
	}
	want := best.followerNodes()
	if len(want) == 0 {
		return best, nil
	}
	c := cfg.replanOf(best)
	c.targetNodes = want
	return best.orFinishedReplan(pods, nodePools, catalog, c)
}

// followerNodes maps the first pod of each target class of an unplaced
// follower with a required pod affinity on the hostname to the nodes that
// follower can share with it (followerNodeReqs; the first follower in class
// order wins); nil when there is none. A follower with several requirement
// alternatives is left alone.
func (s *solver) followerNodes() map[string]requirements.Requirements {
	var out map[string]requirements.Requirements
	s.eachUnplacedFollower(func(c *class, key string, t *class) {
		if key != requirements.LabelHostname || t == c || len(c.alts) != 1 {
			return
		}
		if _, ok := out[t.pods[0].name]; ok {
			return
		}
		if reqs, ok := s.followerNodeReqs(c, t); ok {
			if out == nil {
				out = map[string]requirements.Requirements{}
			}
			out[t.pods[0].name] = reqs
		}
	})
	return out
}

// followerNodeReqs is what a node must meet to hold a pod of follower c
// beside a pod of target t: c's node requirements (hostname left out) and
// the instance types, of NodePools both tolerate and c's requirements fit,
// that meet them and hold the two pods' requests together, outside the
// NodePools the target may use where no such type is. False when no
// type does, or when the term would narrow nothing (c has no requirement
// and every type that holds t holds both).
func (s *solver) followerNodeReqs(c, t *class) (requirements.Requirements, bool) {
	reqs := c.alts[0].Without(requirements.LabelHostname)
	matching := s.idx.Filter(reqs)
	need := c.requests.Add(t.requests)
	var names, others []string
	narrows := reqs.Len() > 0
	for _, p := range s.pools {
		if !s.poolTolerated(t, p, len(t.steps)) {
			continue
		}
		followerOK := s.poolTolerated(c, p, len(c.steps)) && p.reqs.Compatible(reqs, s.schema) == nil
		some := false
		p.types.Each(func(i int) bool {
			if !t.requests.Fits(p.usable[i]) {
				return true
			}
			if !followerOK || !matching.Has(i) || !need.Fits(p.usable[i]) {
				narrows = true
				return true
			}
			names, some = append(names, s.idx.Type(i).Name), true
			return true
		})
		if !some {
			others = append(others, p.tmpl.Name)
		}
	}
	if len(names) == 0 || !narrows {
		return requirements.Requirements{}, false
	}
	slices.Sort(names)
	names = slices.Compact(names) // a type of several NodePools
	term := requirements.NewRequirements(requirements.In(requirements.LabelInstanceType, names...))
	if len(others) > 0 {
		// The same type in a NodePool the follower does not tolerate (or
		// whose requirements it fails) holds no follower. NotIn, so that
		// an existing node of no NodePool still meets the term.
		term = term.Intersect(requirements.NewRequirements(requirements.NotIn(requirements.LabelNodePool, others...)))
	}
	return reqs.Intersect(term), true
}

// followerNodeTerm is the preferred node-affinity term config.targetNodes
// gives class c (the lightest of its terms), if any.
func (s *solver) followerNodeTerm(c *class) (prefTerm, bool) {
	if len(s.cfg.targetNodes) == 0 || len(c.pods) == 0 {
		return prefTerm{}, false
	}
	reqs, ok := s.cfg.targetNodes[c.pods[0].name]
	if !ok {
		return prefTerm{}, false
	}
	return prefTerm{weight: 1, reqs: reqs, desc: fmt.Sprintf("followers' nodes: %s", reqs), device: true}, true
}
