package kubecheck

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
	"github.com/nodeplan/nodeplan/tools/karpdiff/scenario"
)

// Result is what kube-scheduler makes of a plan.
type Result struct {
	// Placed is the number of pods the plan places.
	Placed int
	// Bound lists the placed pods that bind where the plan puts them,
	// sorted.
	Bound []string
	// Refused lists the placed pods that do not, sorted by pod.
	Refused []Refusal
	// Errors are problems of the plan as a document (a pod placed twice, a
	// pod the scenario does not have, a NodeClaim named like a node).
	Errors []string
	// OrderBound lists the pods of Bound that bind only in a favourable
	// order, sorted: a pod with a DoNotSchedule spread that fails checked
	// last, against every other placed pod (checkLast), or a pod refused
	// when the NodeClaims' nodes join one at a time, the last first. Such
	// a plan binds them only if the queue and the nodes' join times turn
	// in its favour (a spread's carrier bound before the pods it counts).
	OrderBound []Refusal
}

// Refusal is a placed pod that would stay Pending on its planned node.
type Refusal struct {
	Pod    string `json:"pod"`
	Node   string `json:"node"`
	Reason string `json:"reason"`
}

// OK reports whether every placed pod binds and the plan has no errors.
func (r Result) OK() bool { return len(r.Refused) == 0 && len(r.Errors) == 0 }

// placement is one pod of the plan and where it goes.
type placement struct {
	pod  *corev1.Pod
	key  string
	node string
}

// Check binds the plan's pods with kube-scheduler's filters (see the
// package doc). The error is for a scenario the check cannot model (a
// kube-scheduler framework that does not build).
func Check(s *scenario.Scenario, p plan.Plan) (Result, error) {
	var res Result
	places, errs := placements(s, p)
	res.Errors = errs
	res.Placed = len(places)
	byPool := pools(s)
	claims := make([]claim, len(p.NodeClaims))
	for i, nc := range p.NodeClaims {
		claims[i] = resolveClaim(nc, s.Catalog, byPool)
	}
	existing := make([]*corev1.Node, 0, len(s.Input.Nodes))
	names := map[string]bool{}
	for _, n := range s.Input.Nodes {
		existing = append(existing, existingNode(n, byPool[n.Labels[labelNodePool]]))
		names[n.Name] = true
	}
	checkBudgets(claims, existing, byPool)
	nodes := slices.Clone(existing)
	problem := map[string]string{}
	for _, c := range claims {
		switch {
		case names[c.nc.Name]:
			res.Errors = append(res.Errors, fmt.Sprintf("NodeClaim %s is named like another node or NodeClaim", c.nc.Name))
			problem[c.nc.Name] = "the NodeClaim's name is taken"
		case c.problem != "":
			problem[c.nc.Name] = "NodeClaim " + c.nc.Name + " cannot launch: " + c.problem
		default:
			nodes = append(nodes, c.node)
		}
		names[c.nc.Name] = true
	}
	var queue, first []placement
	onExisting := map[string]bool{}
	for _, n := range existing {
		onExisting[n.Name] = true
	}
	for _, pl := range places {
		if msg, bad := problem[pl.node]; bad {
			res.Refused = append(res.Refused, Refusal{Pod: pl.key, Node: pl.node, Reason: msg})
			continue
		}
		queue = append(queue, pl)
		if onExisting[pl.node] {
			first = append(first, pl)
		}
	}
	bound, refused, last, err := bindPlan(s, existing, nodes, queue, first, false)
	if err != nil {
		return res, err
	}
	res.OrderBound = last
	// Once more with the new nodes joining one at a time, the last
	// NodeClaim first: the pods that bound only because the nodes came up
	// together.
	if len(nodes) > len(existing)+1 && slices.ContainsFunc(queue, func(pl placement) bool { return orderSensitive(pl.pod) }) {
		_, late, _, err := bindPlan(s, existing, nodes, queue, first, true)
		if err != nil {
			return res, err
		}
		for _, r := range late {
			_, ok := slices.BinarySearch(bound, r.Pod)
			if ok && !slices.ContainsFunc(res.OrderBound, func(o Refusal) bool { return o.Pod == r.Pod }) {
				r.Reason = "with the last NodeClaim's node joining first: " + r.Reason
				res.OrderBound = append(res.OrderBound, r)
			}
		}
	}
	slices.SortFunc(res.OrderBound, func(a, b Refusal) int { return strings.Compare(a.Pod, b.Pod) })
	res.Bound = bound
	res.Refused = append(res.Refused, refused...)
	slices.SortFunc(res.Refused, func(a, b Refusal) int { return strings.Compare(a.Pod, b.Pod) })
	return res, nil
}

// bindPlan binds the queue's pods, those of first (planned on existing
// nodes) before the others: kube-scheduler takes them as soon as they fit
// on the cluster as it is, a NodeClaim's node joins a minute later. Then
// every pod left, once the nodes launched: all at once, or with join, one
// node at a time from the last of nodes, each time the pods of the nodes
// there so far in queue order. It returns the bound pods, sorted, the
// refused ones and, all at once, the bound pods that fail checked last
// (checkLast).
func bindPlan(s *scenario.Scenario, existing, nodes []*corev1.Node, queue, first []placement, join bool) ([]string, []Refusal, []Refusal, error) {
	var early []*corev1.Pod
	running := func(pl placement) {
		c := pl.pod.DeepCopy()
		c.Spec.NodeName = pl.node
		c.Status.Phase = corev1.PodRunning
		early = append(early, c)
	}
	var bound []string
	all := queue
	if len(first) > 0 {
		sched, err := newScheduler(existing, boundPods(s, existing), s.Input)
		if err != nil {
			return nil, nil, nil, err
		}
		done, _, err := bindAll(sched, first)
		sched.stop()
		if err != nil {
			return nil, nil, nil, err
		}
		bound = append(bound, done...)
		queue = without(queue, done, running)
	}
	from := len(existing)
	if join {
		from = len(nodes) - 1
	}
	var refused, last []Refusal
	for ; from >= len(existing); from-- {
		there := nodes[:len(existing)]
		there = append(slices.Clip(there), nodes[from:]...)
		names := map[string]bool{}
		for _, n := range there {
			names[n.Name] = true
		}
		var ready []placement
		for _, pl := range queue {
			if names[pl.node] {
				ready = append(ready, pl)
			}
		}
		sched, err := newScheduler(there, append(boundPods(s, there), early...), s.Input)
		if err != nil {
			return nil, nil, nil, err
		}
		done, left, err := bindAll(sched, ready)
		if err == nil && !join {
			last, err = checkLast(sched, all, append(slices.Clip(bound), done...))
		}
		sched.stop()
		if err != nil {
			return nil, nil, nil, err
		}
		bound = append(bound, done...)
		queue = without(queue, done, running)
		refused = left
	}
	slices.Sort(bound)
	return bound, refused, last, nil
}

// orderSensitive reports whether the pod's filters depend on the pods bound
// before it: a DoNotSchedule spread or a required pod (anti-)affinity.
func orderSensitive(p *corev1.Pod) bool {
	if spreadCarrier(p) {
		return true
	}
	a := p.Spec.Affinity
	return a != nil && ((a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0) ||
		(a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0))
}

// spreadCarrier reports whether the pod has a DoNotSchedule spread.
func spreadCarrier(p *corev1.Pod) bool {
	return slices.ContainsFunc(p.Spec.TopologySpreadConstraints, func(c corev1.TopologySpreadConstraint) bool {
		return c.WhenUnsatisfiable == corev1.DoNotSchedule
	})
}

// checkLast runs the filters again for each pod of queue in bound that has
// a DoNotSchedule spread, on sched's snapshot of every bound pod less that
// pod, as if it came last: whatever the queue's order, kube-scheduler
// binds such a pod only if it passes then (the counts it meets only grow).
// It returns those that do not.
func checkLast(sched *scheduler, queue []placement, bound []string) ([]Refusal, error) {
	var out []Refusal
	for _, pl := range queue {
		if !spreadCarrier(pl.pod) || !slices.Contains(bound, pl.key) {
			continue
		}
		r, err := sched.filterWithout(pl.pod, pl.node)
		if err != nil {
			return nil, err
		}
		if r != "" {
			out = append(out, Refusal{Pod: pl.key, Node: pl.node, Reason: "checked last, against every other placed pod: " + r})
		}
	}
	return out, nil
}

// without returns queue without the placements of done, calling bound for
// each of those.
func without(queue []placement, done []string, bound func(placement)) []placement {
	was := map[string]bool{}
	for _, k := range done {
		was[k] = true
	}
	var rest []placement
	for _, pl := range queue {
		if was[pl.key] {
			bound(pl)
			continue
		}
		rest = append(rest, pl)
	}
	return rest
}

// bindAll binds the queue's pods one at a time, in order, each to its node
// when the filters pass; the pods that failed are tried again after a pass
// that bound some, until a pass binds none.
func bindAll(sched *scheduler, queue []placement) ([]string, []Refusal, error) {
	var bound []string
	last := map[string]string{}
	for progress := true; progress; {
		progress = false
		var next []placement
		for _, pl := range queue {
			if r := sched.filter(pl.pod, pl.node); r != "" {
				last[pl.key] = r
				next = append(next, pl)
				continue
			}
			if err := sched.bind(pl.pod, pl.node); err != nil {
				return nil, nil, fmt.Errorf("binding %s: %w", pl.key, err)
			}
			bound = append(bound, pl.key)
			progress = true
		}
		queue = next
	}
	var refused []Refusal
	for _, pl := range queue {
		refused = append(refused, Refusal{Pod: pl.key, Node: pl.node, Reason: last[pl.key]})
	}
	slices.Sort(bound)
	return bound, refused, nil
}

// placements returns the plan's pods in queue order (the scenario's order of
// pending pods, as they were created) with their nodes, and the plan's
// document errors.
func placements(s *scenario.Scenario, p plan.Plan) ([]placement, []string) {
	where := map[string]string{}
	var errs []string
	put := func(pod, node string) {
		if prev, dup := where[pod]; dup {
			errs = append(errs, fmt.Sprintf("pod %s is placed twice (%s and %s)", pod, prev, node))
			return
		}
		where[pod] = node
	}
	for _, nc := range p.NodeClaims {
		for _, pod := range nc.Pods {
			put(pod, nc.Name)
		}
	}
	for _, e := range p.ExistingNodes {
		for _, pod := range e.Pods {
			put(pod, e.Name)
		}
	}
	var out []placement
	known := map[string]bool{}
	for i, pod := range s.Input.Pods {
		key := pod.Namespace + "/" + pod.Name
		known[key] = true
		node, ok := where[key]
		if !ok {
			continue
		}
		c := pod.DeepCopy()
		c.UID = types.UID(fmt.Sprintf("pending-%06d", i))
		c.Status.Phase = corev1.PodPending
		out = append(out, placement{pod: c, key: key, node: node})
	}
	var unknown []string
	for pod := range where {
		if !known[pod] {
			unknown = append(unknown, pod)
		}
	}
	slices.Sort(unknown)
	for _, pod := range unknown {
		errs = append(errs, fmt.Sprintf("pod %s is not a pending pod of the scenario", pod))
	}
	return out, errs
}

// boundPods returns the pods running before the plan's pods arrive: the
// scenario's bound pods on its nodes (not finished), then the DaemonSet pods
// each node runs that are not there yet.
func boundPods(s *scenario.Scenario, nodes []*corev1.Node) []*corev1.Pod {
	onNode := map[string][]*corev1.Pod{}
	for i, p := range s.Input.BoundPods {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		c := p.DeepCopy()
		c.UID = types.UID(fmt.Sprintf("bound-%06d", i))
		if c.Status.Phase == "" {
			c.Status.Phase = corev1.PodRunning
		}
		onNode[c.Spec.NodeName] = append(onNode[c.Spec.NodeName], c)
	}
	var out []*corev1.Pod
	for _, n := range nodes {
		out = append(out, onNode[n.Name]...)
		out = append(out, daemonPods(s.Input.DaemonSets, n, onNode[n.Name])...)
	}
	return out
}

func sortedNames(s []string) []string { slices.Sort(s); return s }

func typesUID(parts ...string) types.UID { return types.UID(strings.Join(parts, "/")) }
