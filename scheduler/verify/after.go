package verify

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
)

// A pod with a required pod affinity cannot bind before a pod its terms
// select is bound in its domain: kube-scheduler leaves it pending and tries
// it again once others bind. waits holds, for each placed pending pod whose
// required affinity does not select itself and that no pod bound before
// the plan satisfies, the plan's pods that can: those that match every
// term and share the pod's domain on every term's key. It binds after one
// of them; when there is only one, after that one, whatever the order, so
// that pod's spreads never count it (spreadCounts) — a pod that requires
// the node of the single replica of a spread Deployment does not push
// that replica's zone past its skew. after is the inverse of the waits of
// one pod: per pod, those that bind only after it.
func (v *verifier) affinityWaits(w *vworld) (waits, after map[*vpod][]*vpod) {
	waits, after = map[*vpod][]*vpod{}, map[*vpod][]*vpod{}
	for _, p := range v.pending {
		if p.host == nil {
			continue
		}
		a := p.pod.Spec.Affinity
		if a == nil || a.PodAffinity == nil || len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 0 {
			continue
		}
		var terms []vterm
		for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			vt, err := v.affinityTerm(t, p)
			if err != nil {
				terms = nil
				break // reported by checkPodAffinity
			}
			terms = append(terms, vt)
		}
		if len(terms) == 0 || !slices.ContainsFunc(terms, func(t vterm) bool { return !t.matches(p) }) {
			continue // a self-affine pod may start its domain
		}
		var with []*vpod
		bound := false
		for _, q := range w.pickedBy(terms[0]) {
			if q == p || slices.ContainsFunc(terms, func(t vterm) bool { return !t.matches(q) || !sameDomain(p, q, t.key) }) {
				continue
			}
			bound = bound || q.bound
			with = append(with, q)
		}
		if len(with) > 0 && !bound {
			waits[p] = with
			if len(with) == 1 {
				after[with[0]] = append(after[with[0]], p)
			}
		}
	}
	return waits, after
}

// sameDomain reports whether p's and q's nodes have one value of key.
func sameDomain(p, q *vpod, key string) bool {
	a, ok := p.host.labels[key]
	b, okb := q.host.labels[key]
	return ok && okb && a == b
}

// spreadCounts is the group's counts as kube-scheduler sees them when p
// binds: the pods that can only bind after p (waits) are not there yet.
// It returns the group's own counts, least domain and count when there
// are none.
func (w *vworld) spreadCounts(p *vpod, g *vspread, sel labels.Selector, key string) (map[string]int, map[string]bool, string, int) {
	var counts map[string]int
	for _, q := range w.after[p] {
		if g.eligible[q.host] && (q.host.claim == nil || !g.existingOnly) && q.namespace == p.namespace && sel.Matches(podLabels(q)) {
			if counts == nil {
				counts = maps.Clone(g.counts)
			}
			counts[q.host.labels[key]]--
		}
	}
	if counts == nil {
		return g.counts, g.domains, g.minDom, g.minCount
	}
	least := &vspread{counts: counts, domains: g.domains}
	leastLoaded(least)
	return counts, g.domains, least.minDom, least.minCount
}
