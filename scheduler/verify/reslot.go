package verify

import (
	"encoding/json"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// A plan says which pod goes on which node, but pods alike in everything
// kube-scheduler reads (namespace, labels, spec, priority: the replicas of
// one workload) are interchangeable: the plan's final state is the same
// whichever of them takes which of their places. What is not the same is
// the order in which kube-scheduler's queue meets those places. Two
// spreads of maxSkew 1 on zone and capacity type reach final counts
// (2, 2, 3 zones; 3 on-demand, 4 spot) only in the orders that alternate
// between the capacity types while keeping the zones level, and a plan
// that gives the queue's first pods the places of one zone leaves its last
// pod pending although every count holds at the end. reslot binds the
// placed pods in the queue's order as checkSpreadOrder does, but lets each
// pod take any place left of its alike pods where its spreads pass now:
// the one whose domains have the most places left to fill (the counts
// furthest from their final value), its own first on a tie. When every pod
// binds so, the plan with those pods renamed binds as it is.

// reslotted returns res with the placed pods of alike groups exchanged so
// that binding in kube-scheduler's queue order binds them all, and whether
// such an exchange was found (false also when res binds as it is, or has
// another violation than the binding order).
func reslotted(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, res scheduler.Result, opts []scheduler.Option) (scheduler.Result, bool) {
	v, err := newVerifier(pods, nodePools, catalog, res, opts)
	if err != nil {
		return res, false
	}
	v.wantSlots = true
	v.run()
	if len(v.rename) == 0 {
		return res, false
	}
	return res.WithPodsRenamed(v.rename), true
}

// alikeKey identifies what kube-scheduler reads of a pod; "" for a pod
// that keeps its place (one with a required pod affinity, which binds only
// beside pods bound before it, so its place's turn matters beyond the
// spreads).
func alikeKey(p *vpod) string {
	if a := p.pod.Spec.Affinity; a != nil && a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
		return ""
	}
	b, err := json.Marshal(struct {
		NS     string
		Labels map[string]string
		Spec   corev1.PodSpec
	}{p.namespace, p.pod.Labels, p.pod.Spec})
	if err != nil {
		return ""
	}
	return string(b)
}

// reslot finds the exchange (see above) for the placed pods of queue,
// already in queue order, and returns it as a renaming (a place's pod in
// the plan → the pod that takes it), or nil when the greedy binding leaves
// a pod.
func (v *verifier) reslot(w *vworld, queue []*vpod, checks map[*vpod][]orderCheck, groups map[*vspread]*orderGroup) map[string]string {
	order := map[*vnode]int{}
	for i, n := range w.nodes {
		order[n] = i
	}
	// The groups afresh, with the counts they reach (their order does not
	// matter: a place's score is a sum over them).
	grps := make([]*orderGroup, 0, len(groups))
	for _, grp := range groups {
		grps = append(grps, grp)
	}
	counts := make([]map[string]int, len(grps))
	final := make([]map[string]int, len(grps))
	counting := func(i int, p *vpod, n *vnode) bool {
		grp := grps[i]
		return grp.g.eligible[n] && p.namespace == grp.ns && grp.sel.Matches(podLabels(p))
	}
	for i, grp := range grps {
		counts[i] = boundCounts(w, grp.g, grp.ns, grp.sel, grp.key)
		final[i] = map[string]int{}
		for d, c := range counts[i] {
			final[i][d] = c
		}
		for _, p := range queue {
			if counting(i, p, p.host) {
				final[i][p.host.labels[grp.key]]++
			}
		}
		grp.counts = counts[i] // passesNow reads them
	}
	// The places of each alike group.
	key := map[*vpod]string{}
	slots := map[string]map[*vnode]int{}
	members := map[string][]*vpod{}
	for _, p := range queue {
		k := alikeKey(p)
		key[p] = k
		if k == "" {
			continue
		}
		if slots[k] == nil {
			slots[k] = map[*vnode]int{}
		}
		slots[k][p.host]++
		members[k] = append(members[k], p)
	}
	at := map[*vpod]*vnode{}
	bind := func(p *vpod, n *vnode) {
		at[p] = n
		for i, grp := range grps {
			if counting(i, p, n) {
				counts[i][n.labels[grp.key]]++
			}
		}
	}
	score := func(p *vpod, n *vnode) int {
		s := 0
		for i, grp := range grps {
			if counting(i, p, n) {
				d := n.labels[grp.key]
				s += final[i][d] - counts[i][d]
			}
		}
		return s
	}
	left := queue
	for progress := true; progress && len(left) > 0; {
		progress = false
		var next []*vpod
		for _, p := range left {
			k := key[p]
			if k == "" || len(members[k]) < 2 {
				if !passesOn(p, p.host, checks[p]) {
					next = append(next, p)
					continue
				}
				bind(p, p.host)
				progress = true
				continue
			}
			var best *vnode
			bestScore := 0
			for n, c := range slots[k] {
				if c == 0 || !passesOn(p, n, checks[p]) {
					continue
				}
				s := score(p, n)
				if best == nil || s > bestScore || s == bestScore && better(n, best, p.host, order) {
					best, bestScore = n, s
				}
			}
			if best == nil {
				next = append(next, p)
				continue
			}
			slots[k][best]--
			bind(p, best)
			progress = true
		}
		left = next
	}
	if len(left) > 0 {
		return nil
	}
	rename := map[string]string{}
	for _, ms := range members {
		if len(ms) < 2 {
			continue
		}
		was := map[*vnode][]string{}
		now := map[*vnode][]string{}
		for _, p := range ms {
			was[p.host] = append(was[p.host], p.name)
			now[at[p]] = append(now[at[p]], p.name)
		}
		for n, olds := range was {
			news := now[n]
			slices.Sort(olds)
			slices.Sort(news)
			for i := range olds {
				if olds[i] != news[i] {
					rename[olds[i]] = news[i]
				}
			}
		}
	}
	return rename
}

// better breaks a tie between two places of a pod: its own place first,
// then the node first in the plan.
func better(a, b, own *vnode, order map[*vnode]int) bool {
	if (a == own) != (b == own) {
		return a == own
	}
	return order[a] < order[b]
}

// passesOn is passesNow with the pod on n.
func passesOn(p *vpod, n *vnode, checks []orderCheck) bool {
	host := p.host
	p.host = n
	ok := passesNow(p, checks, false)
	p.host = host
	return ok
}
