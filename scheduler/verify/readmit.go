package verify

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// A pod Solve left out (leftOut) was planned where kube-scheduler would
// leave it pending, and the plan solved again without it may well have
// room for it elsewhere: the solve that left it out moved the other pods,
// and the order they bind in with them. Two DoNotSchedule spreads on zone
// and capacity type, an existing on-demand node in one zone taking two of
// five replicas: once those two bind, the NodeClaims' pods wait on each
// other (the zone's spread needs the on-demand NodeClaim first, the
// capacity type's the spot one) and no order binds them; solved without
// one of them, the existing node takes one, and the left-out replica binds
// on the on-demand NodeClaim, which had room
// (testdata/verify/left-out-readmitted). readmitted puts each left-out pod, in
// kube-scheduler's queue order, on the first host of the plan where the
// plan still passes Plan: the existing nodes and the NodeClaims holding a
// pod alike (same namespace, labels and spec) first, then the others, in
// plan order. A NodeClaim keeps its offering and options (Plan checks that
// every option still has room), its requests raised by the pod's.

// leftOutRepaired returns res, a plan that passes Plan, with the pods it
// left out put back (readmitted); when some stay out and pods have tied
// spreads beside existing nodes (tiedOffExisting), the input solved again
// with those pods kept off the existing nodes, with and without
// scheduler.WithSpreadDomainsKept, replaces it when that plan passes and
// places more pods, or as many for less. changed: the plan returned is
// another, its lower bound computed again for the pods as given.
func leftOutRepaired(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, res scheduler.Result, opts []scheduler.Option) (out scheduler.Result, changed bool) {
	out, changed = readmitted(pods, nodePools, catalog, res, opts)
	for _, spare := range []bool{true, false} {
		if spare && !slices.ContainsFunc(out.PodErrors, isLeftOut) {
			break // every pod went back
		}
		off := tiedOffExisting(pods, opts, spare)
		if off == nil {
			continue
		}
		for _, v := range [][]scheduler.Option{nil, {scheduler.WithSpreadDomainsKept()}} {
			vopts := append(slices.Clip(opts), v...)
			alt, err := scheduler.Solve(off, nodePools, catalog, vopts...)
			if err != nil {
				continue
			}
			if alt, _, ok := mended(pods, nodePools, catalog, alt, vopts); ok && (alt.Summary.Scheduled > out.Summary.Scheduled ||
				(alt.Summary.Scheduled == out.Summary.Scheduled && alt.Summary.PricePerHour < out.Summary.PricePerHour-1e-9)) {
				out, changed = alt, true
			}
		}
	}
	if !changed {
		return res, false
	}
	// The bound of the pods placed, as given (not of the narrowed ones).
	lb, err := scheduler.PriceLowerBound(pods, nodePools, catalog, out, opts...)
	if err != nil {
		return res, false
	}
	out.Summary.PriceLowerBound = lb
	return out, true
}

// isLeftOut: the pod error is one of a pod leftOut.
func isLeftOut(e scheduler.PodError) bool { return strings.HasPrefix(e.Reason, leftOutPrefix) }

// readmitted runs Plan at most readmitPlanPods / pending pods times, and
// between readmitMinPlans and readmitMaxPlans (a Plan takes about a
// millisecond per 2 pending pods), and not at all on inputs of more than
// readmitMaxPods pending pods (r31 seed 59703: the pod left out binds on
// the 54th host tried of 69).
const (
	readmitPlanPods = 24000
	readmitMinPlans = 48
	readmitMaxPlans = 256
	readmitMaxPods  = 2000
)

// leftOutPrefix starts the reason of a pod leftOut.
const leftOutPrefix = "planned, kube-scheduler would leave it pending there, so left out: "

// readmitted returns res, which passes Plan, with the pods it left out put
// back where the plan still passes (see above), and whether any went back
// (its lower bound is then the caller's to compute again).
func readmitted(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, res scheduler.Result, opts []scheduler.Option) (scheduler.Result, bool) {
	pending := pendingPods(pods)
	var left []*corev1.Pod
	for _, e := range res.PodErrors {
		if p := pending[e.Pod]; p != nil && isLeftOut(e) {
			left = append(left, p)
		}
	}
	if len(left) == 0 || len(pending) > readmitMaxPods {
		return res, false
	}
	slices.SortStableFunc(left, queueCompare)
	keys := map[*corev1.Pod]string{} // alikeKey by pod, made once
	keyOf := func(p *corev1.Pod) string {
		k, ok := keys[p]
		if !ok {
			k = alikeKey(&vpod{namespace: p.Namespace, pod: p})
			keys[p] = k
		}
		return k
	}
	cur, budget, changed := res, min(max(readmitPlanPods/len(pending), readmitMinPlans), readmitMaxPlans), false
	failed := map[string]bool{} // alike keys of pods no host took
	for _, p := range left {
		key := keyOf(p)
		if key != "" && failed[key] {
			continue // the plan has not changed for it since
		}
		name, placed := p.Namespace+"/"+p.Name, false
		for _, h := range readmitHosts(cur, key, func(n string) string {
			if q := pending[n]; q != nil {
				return keyOf(q)
			}
			return ""
		}) {
			if budget == 0 {
				break
			}
			budget--
			next := withPod(cur, name, p, h)
			if Plan(pods, nodePools, catalog, next, opts...) == nil {
				cur, changed, placed = next, true, true
				break
			}
		}
		if !placed && budget > 0 && key != "" {
			failed[key] = true
		}
	}
	return cur, changed
}

// readmitHost is a host of a plan: an existing node (claim false) or a
// NodeClaim, by index.
type readmitHost struct {
	claim bool
	i     int
}

// readmitHosts are the hosts of res to try a pod of alike key on (keyOf:
// the alike key of a pod of the plan; "" alike with none): those holding a
// pod alike first, then the others, existing nodes before NodeClaims, in
// plan order.
func readmitHosts(res scheduler.Result, key string, keyOf func(pod string) string) []readmitHost {
	var alike, others []readmitHost
	add := func(h readmitHost, names []string) {
		if key != "" && slices.ContainsFunc(names, func(n string) bool { return keyOf(n) == key }) {
			alike = append(alike, h)
		} else {
			others = append(others, h)
		}
	}
	for i, e := range res.ExistingNodes {
		add(readmitHost{i: i}, e.Pods)
	}
	for i, nc := range res.NodeClaims {
		add(readmitHost{claim: true, i: i}, nc.Pods)
	}
	return append(alike, others...)
}

// withPod returns res with the pod put on host h: off the pod errors, onto
// the host's pods (sorted), counted as scheduled; a NodeClaim's requests
// raised by the pod's.
func withPod(res scheduler.Result, name string, p *corev1.Pod, h readmitHost) scheduler.Result {
	out := res
	out.PodErrors = slices.DeleteFunc(slices.Clone(res.PodErrors), func(e scheduler.PodError) bool { return e.Pod == name })
	add := func(names []string) []string {
		names = append(slices.Clone(names), name)
		slices.Sort(names)
		return names
	}
	if h.claim {
		out.NodeClaims = slices.Clone(res.NodeClaims)
		nc := &out.NodeClaims[h.i]
		reqs := nc.Requests.DeepCopy()
		for rn, q := range podrequests.OfPod(p) {
			r := reqs[rn]
			r.Add(q)
			reqs[rn] = r
		}
		nc.Pods, nc.Requests = add(nc.Pods), reqs
	} else {
		out.ExistingNodes = slices.Clone(res.ExistingNodes)
		e := &out.ExistingNodes[h.i]
		e.Pods = add(e.Pods)
	}
	out.Summary.Scheduled++
	return out
}
