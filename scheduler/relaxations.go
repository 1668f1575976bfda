package scheduler

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// The relaxations a plan reports are judged on the plan as it ends, not
// collected while placing: improvement moves (a drain, a merge, a move into
// another zone) check only what they must keep (required rules, spreads),
// so a pod placed with every preference kept can end beside a pod its
// preferred anti-affinity avoids, and a preference dropped to place a pod
// may hold again after a move. So, once the plan is final, every placed
// pod's preferences that its policy does not ignore are evaluated against
// the plan's nodes (existing nodes, and each NodeClaim as it launches: the
// zone of a claim is its launch zone) and the bound and placed pods on
// them, and exactly those that do not hold are reported, in the words
// placing uses:
//
//   - preferred pod affinity and anti-affinity terms and ScheduleAnyway
//     spread constraints, each alone, by a fresh topology tracker over the
//     final nodes (topology.Tracker.Holds: kube-scheduler's count with the
//     pod taken out, the spread minimum over the plan's domains);
//   - preferred node-affinity terms, against the node's labels;
//   - PreferNoSchedule taints of the node the pod does not tolerate.
//
// Nothing here changes the plan.

// relaxations lists, per placed pod, the preferences the final plan does
// not honour (by the policy of the plan's judge: judgedBy, else its own).
// When the plan's nodes cannot be rebuilt (a claim that would not launch),
// it falls back to what placing recorded.
func (s *solver) relaxations() []Relaxation {
	judge := s
	if s.judgedBy != nil {
		judge = s.judgedBy
	}
	broken, ok := judge.brokenOf(s, false)
	if !ok {
		return s.placingRelaxations()
	}
	var out []Relaxation
	for i, pp := range s.pending {
		if len(broken[i]) > 0 {
			out = append(out, Relaxation{Pod: pp.name, Dropped: broken[i]})
		}
	}
	return out
}

// brokenOf lists, per pod of o's plan (o.pending's order, which is s's:
// o plans the same input), the preferences of s's classes, under s's
// policy, that o's final plan does not honour, in s's relaxation order;
// nil for a pod o left unplaced. False when o's nodes cannot be rebuilt.
// With open, a spread's domains are every domain its pods could launch in
// (as placing counts them), not only those of the plan's nodes (as
// kube-scheduler will, and as the plan reports).
func (s *solver) brokenOf(o *solver, open bool) ([][]string, bool) {
	pn, ok := o.newPlanNodes()
	if !ok {
		return nil, false
	}
	hosts := o.newPlanHosts(pn)
	var j *judge
	if s.anyTopologyPreference() {
		j = s.newJudge(o, pn, hosts, open)
	}
	out := make([][]string, len(o.pending))
	for i, q := range o.pending {
		if !placedOn(q) {
			continue
		}
		h := hosts.of(q)
		if h == nil {
			return nil, false
		}
		pp := s.pending[i]
		out[i] = pp.cls.inRelaxationOrder(s.broken(pp, h, j))
	}
	return out, true
}

// placingRelaxations is what placing recorded per pod.
func (s *solver) placingRelaxations() []Relaxation {
	var out []Relaxation
	for _, pp := range s.pending {
		if placedOn(pp) && len(pp.relaxed) > 0 {
			out = append(out, Relaxation{Pod: pp.name, Dropped: pp.relaxed})
		}
	}
	return out
}

// planHosts are the plan's nodes as the judge checks pods on them: a
// host per node, whose slots keep the node's domains in the judge's
// tracker (every pod on it is recorded there, then taken out and put
// back), by the existing node and by the claim's hostname.
type planHosts struct {
	existing map[*topology.Node]*topology.Host
	claims   map[string]*topology.Host
}

func (s *solver) newPlanHosts(pn *planNodes) planHosts {
	hs := planHosts{existing: make(map[*topology.Node]*topology.Host, len(s.existing)), claims: make(map[string]*topology.Host, len(pn.nodes)-len(s.existing))}
	all := make([]topology.Host, len(pn.nodes))
	slots := make([]topology.NodeDomains, len(pn.nodes))
	for i, n := range pn.nodes {
		all[i] = topology.Host{Node: n, NodeDomains: &slots[i]}
		if i < len(s.existing) {
			hs.existing[n] = &all[i]
		} else {
			hs.claims[n.Name] = &all[i]
		}
	}
	return hs
}

// of is the host pp ends on: its existing node, or the node its claim
// launches as (nil when there is none).
func (hs planHosts) of(pp *pending) *topology.Host {
	if pp.node != nil {
		return hs.existing[pp.node.topo]
	}
	return hs.claims[pp.claim.host]
}

// judge is a topology tracker over the final plan: every class registered
// with its own topology terms (none dropped for a policy or for Karpenter's
// order), every placed pod recorded on the node it ends on.
type judge struct {
	t    *topology.Tracker
	pods map[*class]*topology.Pod
}

// pod is the class as the judge registered it; nil without a judge (no
// pod has a preferred topology term).
func (j *judge) pod(c *class) *topology.Pod {
	if j == nil {
		return nil
	}
	return j.pods[c]
}

// anyTopologyPreference reports whether some valid class has a preferred
// pod affinity or anti-affinity term or a ScheduleAnyway spread (only then
// does judging the plan need a tracker).
func (s *solver) anyTopologyPreference() bool {
	for _, c := range s.classes {
		if c.invalid != nil {
			continue
		}
		if hasTopologyPreference(c.sample) {
			return true
		}
	}
	return false
}

// hasTopologyPreference reports whether a pod carries a preferred pod
// affinity or anti-affinity term or a ScheduleAnyway spread.
func hasTopologyPreference(p *corev1.Pod) bool {
	for _, tsc := range p.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable == corev1.ScheduleAnyway {
			return true
		}
	}
	a := p.Spec.Affinity
	return a != nil && ((a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) ||
		(a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0))
}

// newJudge is a judge of o's plan (its nodes pn, its hosts) that registers
// s's classes: o is s, or a plan of the same input under another policy.
// Unless open, the domains are those of the plan's nodes.
func (s *solver) newJudge(o *solver, pn *planNodes, hosts planHosts, open bool) *judge {
	j := &judge{t: topology.New(o.schema, o.sources(), o.namespaceLabels(), o.existingPods), pods: map[*class]*topology.Pod{}}
	if s.cfg.existingFirst {
		j.t.ExistingNodesFirst()
	}
	var tps []*topology.Pod
	var specs []topology.PodSpec
	for _, c := range s.classes {
		if c.invalid != nil {
			continue
		}
		p := c.sample
		spec := topology.PodSpec{Namespace: c.namespace, Labels: p.Labels, Tolerations: p.Spec.Tolerations,
			Requirements: c.strict, Spread: p.Spec.TopologySpreadConstraints, Affinity: p.Spec.Affinity, Count: len(c.pods)}
		tp, err := j.t.Register(spec)
		if err != nil {
			continue
		}
		j.pods[c] = tp
		tps, specs = append(tps, tp), append(specs, spec)
	}
	j.t.Finish(tps, specs)
	if !open {
		j.t.CloseDomainsFrom(pn.nodes, len(o.existing))
	}
	none := func(int) bool { return false }
	for i, q := range o.pending {
		if tp := j.pods[s.pending[i].cls]; tp != nil && placedOn(q) {
			if h := hosts.of(q); h != nil {
				j.t.Record(tp, none, h)
			}
		}
	}
	return j
}

// broken lists the preferences of placed pod pp, on node h, that the final
// plan does not honour: pod affinity, then anti-affinity, node affinity,
// ScheduleAnyway spreads, PreferNoSchedule taints (each kind in the order
// the pod lists its terms); kinds the policy ignores are not judged.
func (s *solver) broken(pp *pending, h *topology.Host, j *judge) []string {
	c := pp.cls
	n := h.Node
	var out []string
	if tp := j.pod(c); tp != nil && tp.Relevant() {
		none := func(int) bool { return false }
		j.t.Unrecord(tp, none, h)
		for _, kind := range []topology.Kind{topology.Affinity, topology.AntiAffinity} {
			out = append(out, s.brokenTerms(tp, kind, h, j.t)...)
		}
		out = append(out, s.brokenNodeTerms(c, n)...)
		out = append(out, s.brokenTerms(tp, topology.Spread, h, j.t)...)
		j.t.Record(tp, none, h)
	} else {
		out = append(out, s.brokenNodeTerms(c, n)...)
	}
	if s.cfg.judgedPolicy(PreferTaints) != PreferenceIgnore {
		if _, bad := requirements.UntoleratedPreference(n.Taints, c.tolerations); bad && s.anyPreferNoSchedule {
			out = append(out, preferNoScheduleDesc)
		}
	}
	return out
}

// preferNoScheduleDesc names the PreferNoSchedule preference.
const preferNoScheduleDesc = "avoid PreferNoSchedule taints"

// brokenTerms lists the pod's preferred terms of one kind (ScheduleAnyway
// spreads for Spread) that do not hold on h, unless the policy ignores
// the kind.
func (s *solver) brokenTerms(tp *topology.Pod, kind topology.Kind, h *topology.Host, t *topology.Tracker) []string {
	if s.cfg.judgedPolicy(prefKindOf(kind)) == PreferenceIgnore {
		return nil
	}
	var out []string
	for i, term := range tp.Terms {
		if term.Kind != kind || term.Required || t.Holds(tp, i, h) {
			continue
		}
		out = append(out, termDesc(term))
	}
	return out
}

// prefKindOf is the preference kind of a preferred topology term.
func prefKindOf(k topology.Kind) PreferenceKind {
	switch k {
	case topology.Affinity:
		return PreferPodAffinity
	case topology.AntiAffinity:
		return PreferPodAntiAffinity
	}
	return PreferTopologySpread
}

// termDesc names a preferred topology term as its relaxation step does.
func termDesc(t topology.Term) string {
	if t.Kind == topology.Spread {
		return "ScheduleAnyway " + t.Describe()
	}
	return fmt.Sprintf("preferred %s (weight %d)", t.Describe(), t.Weight)
}

// brokenNodeTerms lists the class's preferred node-affinity terms (kept
// and dropped before placing) that node n's labels do not match.
func (s *solver) brokenNodeTerms(c *class, n *topology.Node) []string {
	if s.cfg.judgedPolicy(PreferNodeAffinity) == PreferenceIgnore {
		return nil
	}
	var out []string
	for _, terms := range [][]prefTerm{c.prefs, c.unkept} {
		for _, pt := range terms {
			if !pt.device && !pt.reqs.Matches(n.Labels) {
				out = append(out, pt.desc)
			}
		}
	}
	return out
}

// inRelaxationOrder sorts descriptions of the class's preferences as
// placing drops them (relaxedAt: those dropped before placing, then the
// steps); any other (a term Karpenter's order never enforces) keeps its
// place after them.
func (c *class) inRelaxationOrder(descs []string) []string {
	order := c.relaxedAt(len(c.steps))
	rank := func(d string) int {
		if i := slices.Index(order, d); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(descs, func(a, b string) int { return cmp.Compare(rank(a), rank(b)) })
	return descs
}
