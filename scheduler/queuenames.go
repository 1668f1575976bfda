package scheduler

import (
	"cmp"
	"slices"

	"github.com/nodeplan/nodeplan/internal/kube"
)

// Names in kube-scheduler's queue order. The solver places the pods of one
// class (alike in spec and labels) in name order, byte by byte, and checks
// every DoNotSchedule spread as each is placed, so the plan's pods bind in
// that sequence; every later move keeps a pod in the domain it was placed
// in. kube-scheduler meets them in its own order, though: higher priority
// first, then the earlier created, then (kube.CompareNames) a workload's
// replicas by ordinal, g0-2 before g0-10. Two spreads of maxSkew 1 on zone
// and capacity type admit their final counts in a few orders only, and a
// plan placed g0-0, g0-1, g0-10 ... left ten pods pending when the queue
// bound g0-0, g0-1, g0-2 .... Pods of a class being interchangeable, the
// result gives the k-th slot the solver filled (in name order) the k-th
// pod of the class in the queue's order, so the queue binds in the
// sequence the solver checked (verify checks it: order.go there).

// inQueueOrder renames the pods of res within each class so that the
// queue's order follows the solver's.
func (s *solver) inQueueOrder(res *Result) {
	rename := map[string]string{}
	for _, c := range s.classes {
		if len(c.pods) < 2 {
			continue
		}
		slots := slices.Clone(c.pods)
		slices.SortFunc(slots, func(a, b *pending) int { return cmp.Compare(a.name, b.name) })
		queue := slices.Clone(c.pods)
		slices.SortFunc(queue, func(a, b *pending) int { return kube.QueueOrder(a.pod, b.pod, a.name, b.name) })
		for k, pp := range slots {
			if pp.name != queue[k].name {
				rename[pp.name] = queue[k].name
			}
		}
	}
	if len(rename) > 0 {
		*res = res.WithPodsRenamed(rename)
	}
}

// WithPodsRenamed returns the plan with every pod name in it (NodeClaims,
// existing nodes, pod errors, relaxations) mapped through rename, each
// list sorted again; names rename does not hold stay. The plan it is
// called on is not changed. Renaming pods alike in spec and labels (the
// replicas of one workload) changes no count, only which of them the
// queue meets first.
func (res Result) WithPodsRenamed(rename map[string]string) Result {
	to := func(n string) string {
		if m, ok := rename[n]; ok {
			return m
		}
		return n
	}
	renamed := func(names []string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = to(n)
		}
		slices.Sort(out)
		return out
	}
	res.NodeClaims = slices.Clone(res.NodeClaims)
	for i := range res.NodeClaims {
		res.NodeClaims[i].Pods = renamed(res.NodeClaims[i].Pods)
	}
	res.ExistingNodes = slices.Clone(res.ExistingNodes)
	for i := range res.ExistingNodes {
		res.ExistingNodes[i].Pods = renamed(res.ExistingNodes[i].Pods)
	}
	res.PodErrors = slices.Clone(res.PodErrors)
	for i := range res.PodErrors {
		res.PodErrors[i].Pod = to(res.PodErrors[i].Pod)
	}
	slices.SortFunc(res.PodErrors, func(a, b PodError) int { return cmp.Compare(a.Pod, b.Pod) })
	res.Relaxations = slices.Clone(res.Relaxations)
	for i := range res.Relaxations {
		res.Relaxations[i].Pod = to(res.Relaxations[i].Pod)
	}
	slices.SortFunc(res.Relaxations, func(a, b Relaxation) int { return cmp.Compare(a.Pod, b.Pod) })
	return res
}
