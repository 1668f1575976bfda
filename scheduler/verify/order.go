package verify

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/scheduler"
)

// The final plan's spread counts can be right while no order in which
// kube-scheduler meets the pods reaches them: kube-scheduler checks a
// pod's DoNotSchedule spreads when it binds it, against the pods bound so
// far. Two spreads of maxSkew 1 on different keys (zone and capacity type)
// whose domains the plan's nodes tie together admit their final counts in
// a few orders only. checkSpreadOrder binds the placed pending pods in
// kube-scheduler's queue order (higher priority first, then the earlier
// created, then by name with runs of digits compared by value, as a
// workload's replicas are created), each to its planned node when its
// spreads pass against the bound pods and the pods bound before it; a pod
// that does not pass is tried again after others bound, until no more
// binds. The pods planned on existing nodes go first, against the
// existing nodes' domains: kube-scheduler binds them as soon as they fit,
// before any NodeClaim's node joins (seed 42378: nine pods a spread counts
// bound there first left two of its carriers pending). A pod left is a
// TopologySpread violation: it would stay pending on its node.

// orderGroup is a spread group as the binding goes: the counts of the pods
// bound so far, and what the group counts (its owner's namespace and
// selector, its eligible nodes and domains).
type orderGroup struct {
	g      *vspread
	ns     string
	sel    labels.Selector
	key    string
	counts map[string]int
	// earlyDoms are the domains of the eligible existing nodes (early).
	earlyDoms map[string]bool
}

// orderCheck is one DoNotSchedule constraint of a pod, with its group.
type orderCheck struct {
	c   corev1.TopologySpreadConstraint
	grp *orderGroup
}

func (v *verifier) checkSpreadOrder(w *vworld, failed map[string]bool) {
	groups, checks, queue := v.orderGroups(w)
	if len(checks) == 0 {
		return
	}
	left := bindInOrder(queue, checks, groups, w.waits)
	if v.wantSlots && len(left) > 0 && !slices.ContainsFunc(left, func(p *vpod) bool { return failed[p.name] }) {
		v.rename = v.reslot(w, queue, checks, groups)
	}
	if v.joinOrder && len(left) == 0 && len(failed) == 0 {
		groups, checks, queue = v.orderGroups(w)
		for _, p := range bindJoining(queue, checks, groups, w.waits, w.nodes[len(v.nodes):]) {
			v.joinLeft = append(v.joinLeft, p.name)
		}
	}
	for _, p := range left {
		if failed[p.name] {
			continue // the final counts already fail
		}
		at := Violation{Pod: p.name, NodeClaim: claimName(p.host), Node: nodeName(p.host)}
		if len(checks[p]) == 0 {
			v.report(with(at, scheduler.ReasonPodAffinity, "binding the placed pods in kube-scheduler's queue order leaves pending every pod the pod's required affinity needs in its domain"))
			continue
		}
		v.report(with(at, scheduler.ReasonTopologySpread, orderMessage))
	}
}

// orderGroups returns the spread groups of the placed pending pods'
// DoNotSchedule constraints, with the counts of the pods bound before the
// plan, each pod's checks, and the placed pods in kube-scheduler's queue
// order.
func (v *verifier) orderGroups(w *vworld) (map[*vspread]*orderGroup, map[*vpod][]orderCheck, []*vpod) {
	groups := map[*vspread]*orderGroup{}
	checks := map[*vpod][]orderCheck{}
	var queue []*vpod
	for _, p := range v.pending {
		if p.host == nil {
			continue
		}
		queue = append(queue, p)
		for _, c := range p.pod.Spec.TopologySpreadConstraints {
			key := v.schema.Normalize(c.TopologyKey)
			sel, err := selectorOf(c.LabelSelector, p, c.MatchLabelKeys, nil)
			if c.WhenUnsatisfiable != corev1.DoNotSchedule || err != nil {
				continue
			}
			g := v.spreadGroup(w, p, c, key, sel)
			grp := groups[g]
			if grp == nil {
				grp = &orderGroup{g: g, ns: p.namespace, sel: sel, key: key, counts: boundCounts(w, g, p.namespace, sel, key)}
				groups[g] = grp
			}
			checks[p] = append(checks[p], orderCheck{c, grp})
		}
	}
	slices.SortStableFunc(queue, queueOrder)
	return groups, checks, queue
}

// orderMessage is the violation of a pod the binding order leaves.
const orderMessage = "spread: the final counts hold, but binding the placed pods in kube-scheduler's queue order (priority, creation, name), those on existing nodes first, leaves the pod pending on its node"

// orderFailed reports whether some violation of err is the binding order's.
func orderFailed(err *Error) bool {
	return slices.ContainsFunc(err.Violations, func(v Violation) bool { return v.Message == orderMessage })
}

// tiedSpreads reports whether some pending pod has DoNotSchedule spreads on
// two keys other than hostname (scheduler.WithSpreadDomainsKept).
func tiedSpreads(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			continue
		}
		key := ""
		for _, c := range p.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != corev1.DoNotSchedule || c.TopologyKey == corev1.LabelHostname {
				continue
			}
			if key != "" && key != c.TopologyKey {
				return true
			}
			key = c.TopologyKey
		}
	}
	return false
}

// boundCounts is the group's counts with only the pods bound before the
// plan (the placed pending pods not yet).
func boundCounts(w *vworld, g *vspread, ns string, sel labels.Selector, key string) map[string]int {
	counts := map[string]int{}
	for n := range g.eligible {
		for _, q := range n.pods {
			if q.bound && q.namespace == ns && sel.Matches(podLabels(q)) {
				counts[n.labels[key]]++
			}
		}
	}
	return counts
}

// bindInOrder binds the queue's pods in passes until a pass binds none,
// and returns the pods left. A pod with waits binds once one of them has.
// The pods planned on existing nodes go first, against the existing
// nodes' domains alone: kube-scheduler binds them as soon as they fit,
// before a NodeClaim's node joins. Then every pod left, against all the
// plan's domains.
func bindInOrder(queue []*vpod, checks map[*vpod][]orderCheck, groups map[*vspread]*orderGroup, waits map[*vpod][]*vpod) []*vpod {
	b := binder{checks: checks, groups: groups, waits: waits, bound: map[*vpod]bool{}}
	var first []*vpod
	for _, p := range queue {
		if p.host.bindsEarly() {
			first = append(first, p)
		}
	}
	if len(first) > 0 && len(first) < len(queue) {
		b.pass(first, nil, (*orderGroup).early)
		queue = slices.DeleteFunc(slices.Clone(queue), func(p *vpod) bool { return b.bound[p] })
	}
	return b.pass(queue, nil, func(grp *orderGroup) map[string]bool { return grp.g.domains })
}

// binder binds placed pods as kube-scheduler would, counting them in the
// spread groups as they bind.
type binder struct {
	checks map[*vpod][]orderCheck
	groups map[*vspread]*orderGroup
	waits  map[*vpod][]*vpod
	bound  map[*vpod]bool
}

// pass binds the queue's pods in passes until a pass binds none, and
// returns the pods left: a pod binds when its node is ready (nil: every
// node), one of its waits has bound, and its spreads pass over the
// domains domainsOf gives each group.
func (b *binder) pass(queue []*vpod, ready func(*vpod) bool, domainsOf func(*orderGroup) map[string]bool) []*vpod {
	for progress := true; progress && len(queue) > 0; {
		progress = false
		var next []*vpod
		for _, p := range queue {
			if (ready != nil && !ready(p)) ||
				b.waiting(p) ||
				!passesOver(p, b.checks[p], domainsOf) {
				next = append(next, p)
				continue
			}
			progress, b.bound[p] = true, true
			for _, grp := range b.groups {
				if grp.g.eligible[p.host] && p.namespace == grp.ns && grp.sel.Matches(podLabels(p)) {
					grp.counts[p.host.labels[grp.key]]++
				}
			}
		}
		queue = next
	}
	return queue
}

// waiting reports whether p waits for pods (its required affinity) none of
// which has bound yet.
func (b *binder) waiting(p *vpod) bool {
	with, ok := b.waits[p]
	return ok && !slices.ContainsFunc(with, func(q *vpod) bool { return b.bound[q] })
}

// bindJoining binds the queue's pods as bindInOrder does, but with the
// NodeClaims' nodes (claims, in plan order) joining one at a time, the
// last planned first, as nodes may join in any order: a pod binds once
// its node is there and its spreads pass against the pods bound so far
// over the domains of the nodes there (the existing nodes' from the
// start), and the pods left are tried again after each join. It returns
// the pods left once every node has joined: a plan that leaves some binds
// only when its nodes join in a favourable order (two spreads on
// different keys can each wait for the other's domain to fill).
func bindJoining(queue []*vpod, checks map[*vpod][]orderCheck, groups map[*vspread]*orderGroup, waits map[*vpod][]*vpod, claims []*vnode) []*vpod {
	b := binder{checks: checks, groups: groups, waits: waits, bound: map[*vpod]bool{}}
	there := map[*vnode]bool{}
	doms := map[*orderGroup]map[string]bool{}
	for _, grp := range groups {
		doms[grp] = maps.Clone(grp.early())
	}
	ready := func(p *vpod) bool { return p.host.claim == nil || there[p.host] }
	domainsOf := func(grp *orderGroup) map[string]bool { return doms[grp] }
	queue = b.pass(queue, ready, domainsOf)
	for i := len(claims) - 1; i >= 0; i-- {
		n := claims[i]
		there[n] = true
		for _, grp := range groups {
			if grp.g.eligible[n] {
				doms[grp][n.labels[grp.key]] = true
			}
		}
		queue = b.pass(queue, ready, domainsOf)
	}
	return queue
}

// passesNow reports whether every DoNotSchedule spread of p passes on its
// node against the counts bound so far (kube-scheduler's filter: the
// domain's count, plus one when the pod matches its own selector, minus
// the least count over the eligible domains, 0 when fewer than minDomains,
// is at most maxSkew). With early, the domains are those of the existing
// nodes alone (the NodeClaims' nodes have not joined yet).
func passesNow(p *vpod, checks []orderCheck, early bool) bool {
	return passesOver(p, checks, func(grp *orderGroup) map[string]bool {
		if early {
			return grp.early()
		}
		return grp.g.domains
	})
}

// passesOver is passesNow with the domains of each group given.
func passesOver(p *vpod, checks []orderCheck, domainsOf func(*orderGroup) map[string]bool) bool {
	for _, ch := range checks {
		grp := ch.grp
		dom, ok := p.host.labels[grp.key]
		if !ok {
			return false
		}
		own := grp.counts[dom]
		if grp.sel.Matches(podLabels(p)) {
			own++
		}
		domains := domainsOf(grp)
		least := -1
		for d := range domains {
			if c := grp.counts[d]; least < 0 || c < least {
				least = c
			}
		}
		if least < 0 || (ch.c.MinDomains != nil && len(domains) < int(*ch.c.MinDomains)) {
			least = 0
		}
		if own-least > int(ch.c.MaxSkew) {
			return false
		}
	}
	return true
}

// early returns the domains of the group's eligible existing nodes.
func (grp *orderGroup) early() map[string]bool {
	if grp.earlyDoms == nil {
		grp.earlyDoms = map[string]bool{}
		for n := range grp.g.eligible {
			if n.claim == nil {
				grp.earlyDoms[n.labels[grp.key]] = true
			}
		}
	}
	return grp.earlyDoms
}

// queueOrder is kube-scheduler's queue order of two placed pending pods.
func queueOrder(a, b *vpod) int { return kube.QueueOrder(a.pod, b.pod, a.name, b.name) }
