package verify

import (
	"errors"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// solveRepairs bounds the solves Solve makes after the first: the first
// solveSparing of them leave out one pod per violation message, the rest
// every pod a violation names.
const (
	solveRepairs = 8
	solveSparing = 6
)

// solveCheckMaxPods bounds the pending pods of an input Solve checks: Plan
// and a solve per repair (Karpenter's diverse-5000: 0.9 s instead of
// 0.17 s, diverse-20000: 7.4 s instead of 0.9 s, and plans with 201 and 548
// pods that no binding order binds become plans whose placed pods all
// bind), so a larger input gets scheduler.Solve's plan as it is (run Plan
// on it to check it).
const solveCheckMaxPods = 20000

// Solve is scheduler.Solve with the plan checked by Plan, for a caller who
// would rather leave a pod unplaced with a reason than plan it where
// kube-scheduler will not bind it. The planner keeps its counts
// incrementally, and a count it gets wrong (rare: 3 of 2,000 random
// scenarios in the differential of tools/karpdiff) leaves a pod pending on
// its planned node. A plan that passes Plan is also bound again with its
// NodeClaims' nodes joining one at a time, the last first, when pods have
// DoNotSchedule spreads on two keys, and the input solved again with their
// domains kept when pods then stay pending (joinRepaired). When Plan finds
// pending pods placed where they would
// not bind only because of the order kube-scheduler's queue meets them,
// and exchanging alike pods (the replicas of one workload) between their
// places binds them all, the plan so exchanged is returned (reslot.go).
// When the order still fails, the input is first solved again in the ways
// that may reach an end the order binds (orderRepaired): with
// scheduler.WithSpreadDomainsKept when pods have spreads on two keys other
// than hostname (moves that kept the final counts of such spreads may have
// left an end no binding order reaches), with
// scheduler.WithNameOrderOnTies when two NodePools share a weight (a
// cheaper pool of the weight may have done so), and with both; the plan
// that passes placing the most pods, then the cheapest, is returned.
// Otherwise the input is solved
// again without some of the pods, reported as
// unplaced with the violation as their reason (code as Plan names it):
// first one pod per violation message (the last in kube-scheduler's queue
// order: a domain one pod too full names every pod in it), then every pod
// named, until the plan passes, at most solveRepairs times; the pods so
// left out are then put back where the plan still passes, and when some
// stay out and pods with spreads on two keys share the input with existing
// nodes, the input solved with those pods kept off the existing nodes
// replaces the plan when it places more pods, or as many for less
// (leftOutRepaired, readmit.go). When none of
// that passes, the first plan is returned with the pods Plan's violations
// name taken off it (trimmed), when that passes; else as the first solve
// made it, and Plan's error is not returned: the caller may run Plan to see
// it. Last, when the first plan failed Plan, the input solved without the
// improvement phase replaces the plan so made if it passes and places more
// pods, or as many for less (unimprovedIfBetter; inputs of at most
// unimprovedMaxPods pending pods). Inputs of more than solveCheckMaxPods
// pending pods are not checked.
func Solve(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, opts ...scheduler.Option) (scheduler.Result, error) {
	res, failed, err := solveRepaired(pods, nodePools, catalog, opts)
	if err != nil || !failed || len(pendingPods(pods)) > unimprovedMaxPods {
		return res, err
	}
	return unimprovedIfBetter(pods, nodePools, catalog, res, opts), nil
}

// unimprovedMaxPods bounds the pending pods of an input unimprovedIfBetter
// solves again, as the other repairs after a failed plan are bounded
// (readmitMaxPods): diverse-5000's first plan fails, and the solve without
// improvement and its checks cost about 2 s and 400 MB more there, for a plan
// that binds only in a favourable order.
const unimprovedMaxPods = 2000

// unimprovedIfBetter is the input solved again without the improvement
// phase (scheduler.WithImprovementBudget(0)), for a first plan that failed
// Plan: a move of that phase may take a claim, and the pods counted on it,
// to another zone (generated seed 42157: a zone spread's replica went with
// another workload's pods to an arm type the replica's zone does not
// offer).
// The plan so made replaces res (the repaired one) when it passes Plan (or
// does once mended), binds its pods also when the NodeClaims' nodes join
// one at a time, the last planned first (joinLeft: a plan kube-scheduler
// binds only in a favourable order is no better than one that leaves the
// pods out), and places more pods, or as many for less, or res fails Plan
// (every repair failed).
func unimprovedIfBetter(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, res scheduler.Result, opts []scheduler.Option) scheduler.Result {
	alt, err := scheduler.Solve(pods, nodePools, catalog, append(slices.Clip(opts), scheduler.WithImprovementBudget(0))...)
	if err != nil {
		return res
	}
	alt, _, ok := mended(pods, nodePools, catalog, alt, opts)
	if !ok || len(joinLeft(pods, nodePools, catalog, alt, opts)) > 0 {
		return res
	}
	if a, r := alt.Summary, res.Summary; a.Scheduled > r.Scheduled || (a.Scheduled == r.Scheduled && a.PricePerHour < r.PricePerHour) ||
		Plan(pods, nodePools, catalog, res, opts...) != nil {
		return alt
	}
	return res
}

// solveRepaired is Solve without unimprovedIfBetter; failed reports that the
// first plan failed Plan.
func solveRepaired(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, opts []scheduler.Option) (scheduler.Result, bool, error) {
	first, err := scheduler.Solve(pods, nodePools, catalog, opts...)
	if err != nil {
		return first, false, err
	}
	pending := pendingPods(pods)
	if len(pending) > solveCheckMaxPods {
		return first, false, nil
	}
	res := first
	excluded := map[string]Violation{}
	for i := range solveRepairs + 1 {
		var verr *Error
		if i == 0 {
			var ok bool
			if res, verr, ok = mended(pods, nodePools, catalog, res, opts); ok {
				return joinRepaired(pods, nodePools, catalog, res, opts), false, nil
			}
			if verr != nil && orderFailed(verr) {
				alt, aerr, aopts, ok := orderRepaired(pods, nodePools, catalog, opts)
				if ok {
					return alt, true, nil
				} else if aerr != nil {
					res, verr, opts = alt, aerr, aopts
				}
			}
		} else if err := Plan(pods, nodePools, catalog, res, opts...); err == nil {
			repaired, _ := leftOutRepaired(pods, nodePools, catalog, res, opts)
			return repaired, true, nil
		} else {
			errors.As(err, &verr)
		}
		if verr == nil || i == solveRepairs {
			return trimmed(pods, pending, nodePools, catalog, first, opts), true, nil
		}
		last := map[string]Violation{} // per message, the pod last in queue order
		added := false
		for _, v := range verr.Violations {
			p, ok := pending[v.Pod]
			if _, seen := excluded[v.Pod]; !ok || seen {
				continue
			}
			if i >= solveSparing {
				excluded[v.Pod], added = v, true
				continue
			}
			if prev, ok := last[v.Message]; !ok || queueBefore(pending[prev.Pod], p) {
				last[v.Message] = v
			}
		}
		for _, v := range last {
			excluded[v.Pod], added = v, true
		}
		if !added {
			return trimmed(pods, pending, nodePools, catalog, first, opts), true, nil
		}
		kept := slices.DeleteFunc(slices.Clone(pods), func(p *corev1.Pod) bool {
			_, out := excluded[p.Namespace+"/"+p.Name]
			return out
		})
		next, err := scheduler.Solve(kept, nodePools, catalog, opts...)
		if err != nil {
			return trimmed(pods, pending, nodePools, catalog, first, opts), true, nil
		}
		res = withExcluded(next, excluded)
	}
	return trimmed(pods, pending, nodePools, catalog, first, opts), true, nil
}

// joinRepaired returns res, a plan that passes Plan, or, when pending pods
// have DoNotSchedule spreads on two keys other than hostname and some of
// res's placed pods bind in kube-scheduler's queue order but not when the
// NodeClaims' nodes join one at a time, the last planned first (bindJoining:
// seed 59191 of tools/karpdiff, a zone and an instance-family spread each
// waiting for the other's domain to fill), the input solved again with
// scheduler.WithSpreadDomainsKept, when that plan passes Plan, binds in
// that order too and places as many pods. Nodes join in whatever order
// they launch in; such a plan may cost more (59191: $1.283 against
// $1.266, Karpenter's $2.877), and its pods bind on their planned nodes
// whatever the order. Otherwise res.
func joinRepaired(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, res scheduler.Result, opts []scheduler.Option) scheduler.Result {
	if !tiedSpreads(pods) || len(joinLeft(pods, nodePools, catalog, res, opts)) == 0 {
		return res
	}
	vopts := append(slices.Clip(opts), scheduler.WithSpreadDomainsKept())
	alt, err := scheduler.Solve(pods, nodePools, catalog, vopts...)
	if err != nil {
		return res
	}
	alt, _, ok := mended(pods, nodePools, catalog, alt, vopts)
	if !ok || alt.Summary.Scheduled < res.Summary.Scheduled || len(joinLeft(pods, nodePools, catalog, alt, vopts)) > 0 {
		return res
	}
	return alt
}

// joinLeft lists the placed pods of plan, which passes Plan, that stay
// pending when the NodeClaims' nodes join one at a time, the last planned
// first (bindJoining).
func joinLeft(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, plan scheduler.Result, opts []scheduler.Option) []string {
	v, err := newVerifier(pods, nodePools, catalog, plan, opts)
	if err != nil {
		return nil
	}
	v.joinOrder = true
	v.run()
	if len(v.out) > 0 {
		return nil
	}
	return v.joinLeft
}

// mended returns res when it passes Plan, or res with alike pods exchanged
// when only the binding order fails it and the exchange passes (reslot.go),
// and true; else res and Plan's violations (nil for another error) and
// false.
func mended(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, res scheduler.Result, opts []scheduler.Option) (scheduler.Result, *Error, bool) {
	err := Plan(pods, nodePools, catalog, res, opts...)
	if err == nil {
		return res, nil, true
	}
	var verr *Error
	if !errors.As(err, &verr) {
		return res, nil, false
	}
	if orderFailed(verr) {
		if re, ok := reslotted(pods, nodePools, catalog, res, opts); ok && Plan(pods, nodePools, catalog, re, opts...) == nil {
			return re, nil, true
		}
	}
	return res, verr, false
}

// orderRepaired solves the input again for a first plan that failed only on
// binding order, in the ways that may reach an end the order binds: with
// the domains of pods that spreads count on two keys kept
// (scheduler.WithSpreadDomainsKept), when some pods have such spreads; with
// Karpenter's order between NodePools of one weight
// (scheduler.WithNameOrderOnTies), when two NodePools share a weight; and
// with both. Of the plans that pass (mended), the one placing the most pods,
// then the cheapest, first in that order on a tie, is returned with true.
// When none passes, the first that Plan judged is returned with its
// violations and its options, for the repairs that follow; else res is
// the zero Result and the error nil.
func orderRepaired(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, opts []scheduler.Option) (scheduler.Result, *Error, []scheduler.Option, bool) {
	var variants [][]scheduler.Option
	tied, shared := tiedSpreads(pods), sharedWeight(nodePools)
	if tied {
		variants = append(variants, []scheduler.Option{scheduler.WithSpreadDomainsKept()})
	}
	if shared {
		variants = append(variants, []scheduler.Option{scheduler.WithNameOrderOnTies()})
	}
	if tied && shared {
		variants = append(variants, []scheduler.Option{scheduler.WithSpreadDomainsKept(), scheduler.WithNameOrderOnTies()})
	}
	var (
		best, failed       scheduler.Result
		ferr               *Error
		fopts              []scheduler.Option
		found, failedFound bool
	)
	for _, v := range variants {
		vopts := append(slices.Clip(opts), v...)
		res, err := scheduler.Solve(pods, nodePools, catalog, vopts...)
		if err != nil {
			continue
		}
		res, verr, ok := mended(pods, nodePools, catalog, res, vopts)
		switch {
		case ok:
			if !found || res.Summary.Scheduled > best.Summary.Scheduled ||
				(res.Summary.Scheduled == best.Summary.Scheduled && res.Summary.PricePerHour < best.Summary.PricePerHour-1e-9) {
				best, found = res, true
			}
		case verr != nil && !failedFound:
			failed, ferr, fopts, failedFound = res, verr, vopts, true
		}
	}
	if found {
		return best, nil, nil, true
	}
	return failed, ferr, fopts, false
}

// tiedOffExisting returns pods with the pending pods that have
// DoNotSchedule spreads on two keys other than hostname (tiedSpreads) kept
// off the existing nodes (their hostnames NotIn: kube.WithRequired), or
// nil when there are no such pods or no existing nodes. With spare, the first such pod of each workload (pods alike:
// namespace, labels and spec) in kube-scheduler's queue order is left as
// it is, so that an existing node may still take one of them. The
// existing nodes' pods bind first, against the existing nodes' domains
// alone; when they fill one zone and one capacity type, the NodeClaims'
// pods of two such spreads can each wait for the other's domain to fill,
// and no order binds them (property case 1125 of the scheduler's tests: 3
// of 19 replicas on an existing on-demand node left 15 of the 16 others
// pending).
func tiedOffExisting(pods []*corev1.Pod, opts []scheduler.Option, spare bool) []*corev1.Pod {
	set, err := scheduler.Resolve(opts...)
	if err != nil || len(set.Nodes) == 0 {
		return nil
	}
	var hosts []string
	for _, n := range set.Nodes {
		h := n.Labels[corev1.LabelHostname]
		if h == "" {
			h = n.Name
		}
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	hosts = slices.Compact(hosts)
	off := corev1.NodeSelectorRequirement{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpNotIn, Values: hosts}
	var tied []int
	for i, p := range pods {
		if p.Spec.NodeName == "" && tiedSpreads([]*corev1.Pod{p}) {
			tied = append(tied, i)
		}
	}
	slices.SortStableFunc(tied, func(a, b int) int { return queueCompare(pods[a], pods[b]) })
	out, changed := slices.Clone(pods), false
	spared := map[string]bool{}
	for _, i := range tied {
		p := pods[i]
		if spare {
			if k := alikeKey(&vpod{namespace: p.Namespace, pod: p}); k != "" && !spared[k] {
				spared[k] = true
				continue
			}
		}
		out[i], changed = kube.WithRequired(p, off), true
	}
	if !changed {
		return nil
	}
	return out
}

// sharedWeight reports whether two NodePools have the same weight.
func sharedWeight(nodePools []nodepool.NodePool) bool {
	seen := map[int32]bool{}
	for _, np := range nodePools {
		w := int32(0)
		if np.Spec.Weight != nil {
			w = *np.Spec.Weight
		}
		if seen[w] {
			return true
		}
		seen[w] = true
	}
	return false
}

// withExcluded adds the pods Solve left out to res as pod errors, sorted
// with the others, and counts them among its pods.
func withExcluded(res scheduler.Result, excluded map[string]Violation) scheduler.Result {
	for pod, v := range excluded {
		res.PodErrors = append(res.PodErrors, leftOut(pod, v))
	}
	slices.SortFunc(res.PodErrors, func(a, b scheduler.PodError) int { return strings.Compare(a.Pod, b.Pod) })
	res.Summary.Pods += len(excluded)
	return res
}

// pendingPods maps the pending pods of pods by namespace/name.
func pendingPods(pods []*corev1.Pod) map[string]*corev1.Pod {
	out := map[string]*corev1.Pod{}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			out[p.Namespace+"/"+p.Name] = p
		}
	}
	return out
}

// leftOut is the pod error of a planned pod left out for violation v.
func leftOut(pod string, v Violation) scheduler.PodError {
	return scheduler.PodError{
		Pod:     pod,
		Code:    v.Code,
		Reason:  leftOutPrefix + v.Message,
		Details: []scheduler.Cause{{Code: v.Code, NodePool: v.NodePool, Node: v.Node, Message: v.Message}},
	}
}

// queueBefore reports whether a comes before b in kube-scheduler's queue.
func queueBefore(a, b *corev1.Pod) bool { return queueCompare(a, b) < 0 }

// queueCompare is kube-scheduler's queue order of two pending pods.
func queueCompare(a, b *corev1.Pod) int {
	return kube.QueueOrder(a, b, a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
}

// trimRounds bounds the rounds of trimmed.
const trimRounds = 4

// trimmed returns res with the pending pods Plan's violations name taken
// off their NodeClaims and nodes and reported unplaced with the violation
// (the last resort of Solve: a pod kube-scheduler would leave pending on
// its planned node is worse than one unplaced with a reason), when the plan
// so trimmed passes Plan; taking pods off may leave another's counts short,
// so it runs a few rounds. A NodeClaim left without pods is dropped, the
// others keep their offering (their pods still fit) with their requests
// lowered, and the lower bound is computed again for the pods left. When
// res passes, or the trimmed plan does not, res is returned.
func trimmed(pods []*corev1.Pod, pending map[string]*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, res scheduler.Result, opts []scheduler.Option) scheduler.Result {
	cur, trimmedAny := res, false
	for range trimRounds {
		err := Plan(pods, nodePools, catalog, cur, opts...)
		if err == nil {
			if !trimmedAny {
				return res
			}
			if repaired, changed := leftOutRepaired(pods, nodePools, catalog, cur, opts); changed {
				return repaired // its lower bound computed
			}
			lb, err := scheduler.PriceLowerBound(pods, nodePools, catalog, cur, opts...)
			if err != nil {
				return res
			}
			cur.Summary.PriceLowerBound = lb
			return cur
		}
		var verr *Error
		if !errors.As(err, &verr) {
			return res
		}
		placed := map[string]bool{}
		for _, nc := range cur.NodeClaims {
			for _, p := range nc.Pods {
				placed[p] = true
			}
		}
		for _, e := range cur.ExistingNodes {
			for _, p := range e.Pods {
				placed[p] = true
			}
		}
		drop := map[string]Violation{} // a pod taken off earlier is placed no more
		for _, v := range verr.Violations {
			if _, dup := drop[v.Pod]; !dup && placed[v.Pod] && pending[v.Pod] != nil {
				drop[v.Pod] = v
			}
		}
		if len(drop) == 0 {
			return res
		}
		cur, trimmedAny = without(cur, drop, pending), true
	}
	return res
}

// without returns res with the pods of drop taken off (see trimmed), each
// a pod error with its violation.
func without(res scheduler.Result, drop map[string]Violation, pending map[string]*corev1.Pod) scheduler.Result {
	keep := func(names []string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { _, out := drop[n]; return out })
	}
	out := res
	out.NodeClaims = nil
	out.Summary.PricePerHour = 0
	for _, nc := range res.NodeClaims {
		left := keep(nc.Pods)
		if len(left) == 0 {
			continue
		}
		if len(left) < len(nc.Pods) {
			reqs := nc.Requests.DeepCopy()
			for _, n := range nc.Pods {
				if _, out := drop[n]; !out {
					continue
				}
				for name, q := range podrequests.OfPod(pending[n]) {
					if r, ok := reqs[name]; ok {
						r.Sub(q)
						reqs[name] = r
					}
				}
			}
			nc.Pods, nc.Requests = left, reqs
		}
		out.NodeClaims = append(out.NodeClaims, nc)
		out.Summary.PricePerHour += nc.Price
	}
	out.Summary.PricePerHour = math.Round(out.Summary.PricePerHour*1e9) / 1e9
	out.Summary.NodeClaims = len(out.NodeClaims)
	out.ExistingNodes = nil
	for _, e := range res.ExistingNodes {
		if e.Pods = keep(e.Pods); len(e.Pods) > 0 {
			out.ExistingNodes = append(out.ExistingNodes, e)
		}
	}
	if out.ExistingNodes == nil {
		out.ExistingNodes = []scheduler.NodePlacement{}
	}
	out.Relaxations = slices.DeleteFunc(slices.Clone(res.Relaxations), func(r scheduler.Relaxation) bool { _, gone := drop[r.Pod]; return gone })
	out.PodErrors = slices.Clone(res.PodErrors)
	for pod, v := range drop {
		out.PodErrors = append(out.PodErrors, leftOut(pod, v))
	}
	slices.SortFunc(out.PodErrors, func(a, b scheduler.PodError) int { return strings.Compare(a.Pod, b.Pod) })
	out.Summary.Scheduled -= len(drop)
	return out
}
