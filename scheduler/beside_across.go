package scheduler

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// Placing a pod beside a target moved to another domain. A pod whose
// required pod affinity on hostname selects other pods can only join a
// node that holds one of them; when they all sit in one zone (the cheapest,
// or the one a preferred affinity of theirs gathered them in) and the pod's
// other required rules refuse that zone (anti-affinity among its replicas
// on zone, a zone spread), it stays unplaced although one target moved to a
// new NodeClaim in another zone would take it: thirty pods in zone a, nine
// pods that each need one of them beside them and no replica in their zone.
// The target moves to the new NodeClaim under the first relaxation level
// that lets it go there (a preference that tied it to its zone is dropped
// and reported): a soft rule never costs a pod.
//
// The move runs in the last phase, on the plan Solve keeps, for the pods
// it left unplaced: a target moved while planning would take a domain from
// pods placed after it (a pod whose anti-affinity keeps it out of the
// target's new zone), and the plans compared would no longer be those of
// the phases before. It only ever adds pods.

// placeAcross places, in queue order, the pods left unplaced beside a
// target moved to another domain (placeBesideAcross); when it placed any,
// the plan is improved and settled again, as after the retry of planning.
func (s *solver) placeAcross() {
	placed := false
	for _, pp := range s.queue() {
		if pp.claim == nil && pp.node == nil && pp.cls.invalid == nil && len(pp.cls.targets) > 0 && s.placeBesideAcross(pp) {
			placed = true
		}
	}
	if placed {
		s.improve()
		s.unstrand()
		s.settle()
	}
}

// placeBesideAcross places pp, left unplaced, beside one of the targets of
// its required pod affinity on hostname, moved to a new NodeClaim in
// another domain of a key pp's other required topology rules read. It keeps
// the move only when pp was placed, every pod left on the target's former
// claim still meets its required topology rules, and every rule of others
// that counts the target outside hostname still holds; else everything
// goes back.
func (s *solver) placeBesideAcross(pp *pending) bool {
	keys := acrossKeys(pp.cls)
	if len(keys) == 0 {
		return false
	}
	tried := 0
	for _, t := range pp.cls.targets {
		if !besideOnly(pp.cls, t) {
			continue
		}
		for _, q := range t.pods {
			if q.claim == nil {
				continue // on an existing node, or not placed
			}
			if tried >= besideTries {
				return false
			}
			tried++
			for _, key := range keys {
				if s.moveTargetAcross(pp, q, key) {
					return true
				}
			}
		}
	}
	return false
}

// besideOnly reports whether a required pod-affinity term of class c on
// hostname selects the pods of class t (in c's namespace, or one the term
// lists; a namespace selector is not followed): c's pods can only run
// beside one of them.
func besideOnly(c, t *class) bool {
	a := c.sample.Spec.Affinity
	if a == nil || a.PodAffinity == nil {
		return false
	}
	for _, term := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != requirements.LabelHostname || term.LabelSelector == nil || term.NamespaceSelector != nil {
			continue
		}
		if (len(term.Namespaces) == 0 && t.namespace != c.namespace) || (len(term.Namespaces) > 0 && !slices.Contains(term.Namespaces, t.namespace)) {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err == nil && sel.Matches(labels.Set(t.labels)) {
			return true
		}
	}
	return false
}

// acrossKeys lists the keys other than hostname on which the class owns a
// required topology rule, sorted: the domains a moved target may open for
// it.
func acrossKeys(c *class) []string {
	if c.topo == nil {
		return nil
	}
	var keys []string
	for _, t := range c.topo.Terms {
		if t.Required && t.Key != requirements.LabelHostname && !slices.Contains(keys, t.Key) {
			keys = append(keys, t.Key)
		}
	}
	slices.Sort(keys)
	return keys
}

// acrossMove is a target's candidate new claim in one domain: the attempt
// (its relaxation level, its requirements narrowed to the domain) and the
// evaluation of the new claim.
type acrossMove struct {
	value string
	a     attempt
	ev    evaluation
}

// moveTargetAcross moves target q from its claim to a new one in a domain
// of key other than its own that pp may join, cheapest first, and places
// pp; it undoes each move that does not place pp or breaks a rule.
func (s *solver) moveTargetAcross(pp, q *pending, key string) bool {
	cands := s.acrossMoves(pp, q, key)
	if len(cands) == 0 {
		return false
	}
	src := q.claim
	att, relaxed := q.att, q.relaxed
	for _, m := range cands {
		base, _ := s.newAttempt(q.cls, att.alt, att.level, false)
		host := s.hostOf(q)
		s.topo.Unrecord(q.cls.topo, base.active, &host)
		s.detach(q)
		s.commit(q, m.a, m.ev)
		q.relaxed = q.cls.relaxedAt(m.a.level)
		if s.place(pp) {
			if s.claimHolds(src) && s.leftHold(q) {
				return true
			}
			s.takeOff(pp)
		}
		s.moveBack(q, src)
		q.att, q.relaxed = att, relaxed
	}
	return false
}

// acrossMoves evaluates, for each domain of key that q's claim is not
// pinned to, a new claim for q there under the lowest relaxation level (from
// q's own) that admits one, keeps those pp could join (admitsBeside), and
// returns them cheapest first, ties by value. Nothing changes: q is taken
// out of the counts only while it is evaluated.
func (s *solver) acrossMoves(pp, q *pending, key string) []acrossMove {
	c := q.cls
	cur := s.reqs.info(q.claim.reqID).reqs.Get(key)
	values := s.topo.Values(key)
	if len(values) == 0 {
		return nil
	}
	base, ok := s.newAttempt(c, q.att.alt, q.att.level, false)
	if !ok {
		return nil
	}
	host := s.hostOf(q)
	if c.topo != nil {
		s.topo.Unrecord(c.topo, base.active, &host)
		defer s.topo.Record(c.topo, base.active, &host)
	}
	var out []acrossMove
	for _, v := range values {
		if vs := cur.Values(); len(vs) == 1 && vs[0] == v && cur.RequiresPresent() {
			continue // q is there already
		}
		if m, ok := s.acrossMove(q, key, v); ok && s.admitsBeside(pp, q, m) {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(x, y acrossMove) int {
		return cmp.Or(cmp.Compare(x.ev.price, y.ev.price), cmp.Compare(x.value, y.value))
	})
	return out
}

// acrossMove evaluates a new claim for q pinned to key=value, at q's
// relaxation level or the first higher one that admits it.
func (s *solver) acrossMove(q *pending, key, value string) (acrossMove, bool) {
	c := q.cls
	pin := s.reqs.intern(requirements.NewRequirements(requirements.In(key, value)), nil)
	for level := max(q.att.level, c.nWhile); level <= len(c.steps); level++ {
		a, ok := s.newAttempt(c, q.att.alt, level, true)
		if !ok {
			continue
		}
		if a.reqID = s.reqs.and(a.reqID, pin); a.reqID < 0 {
			continue // the pod's requirements at this level exclude the domain
		}
		for _, p := range s.pools {
			if !s.poolTolerated(c, p, level) {
				continue
			}
			if ev, ok := s.evalNew(a, p); ok {
				return acrossMove{value: value, a: a, ev: ev}, true
			}
		}
	}
	return acrossMove{}, false
}

// admitsBeside reports whether pp could join q on the new claim of move m,
// as far as can be told before q moves (the move is made, and undone, only
// then): some requirement alternative of pp, its preferences relaxed, is
// compatible with the claim's requirements, q and pp fit its largest type
// together, and pp's topology rules on every key but hostname allow the
// claim's domain.
func (s *solver) admitsBeside(pp, q *pending, m acrossMove) bool {
	c := pp.cls
	need := q.cls.requests.Add(c.requests)
	for alt := range c.alts {
		a, ok := s.newAttempt(c, alt, len(c.steps), true)
		if !ok {
			continue
		}
		id := s.reqs.compat(m.ev.reqID, a.reqID)
		if id < 0 {
			continue
		}
		info := s.reqs.info(id)
		info.typeSet(s)
		if !need.Fits(info.maxUsable) {
			continue
		}
		host := topology.Host{Hostname: newHost, Requirements: info.reqs, Taints: m.ev.pool.tmpl.Taints, Domains: info}
		if _, v := s.topo.CheckScope(c.topo, a.active, &host, s.ranker(id, c), topology.ExceptHostname); v == nil {
			return true
		}
	}
	return false
}

// leftHold reports whether the rules of others that count q outside
// hostname still hold once q left its domain: every spread that counts q,
// and every placed pod's required pod affinity on a key other than
// hostname (q may have been the match that pod joined).
func (s *solver) leftHold(q *pending) bool {
	if q.cls.topo == nil || !q.cls.topo.Relevant() {
		return true
	}
	if !s.topo.SpreadHolds(q.cls.topo) {
		return false
	}
	for _, o := range s.pending {
		if o.cls.topo != nil && (o.claim != nil || o.node != nil) && followsAcross(o.cls) && s.topologyBreaks(o) {
			return false
		}
	}
	return true
}

// followsAcross reports whether the class has a required pod affinity on a
// key other than hostname.
func followsAcross(c *class) bool {
	return slices.ContainsFunc(c.topo.Terms, func(t topology.Term) bool {
		return t.Kind == topology.Affinity && t.Required && t.Key != requirements.LabelHostname
	})
}
