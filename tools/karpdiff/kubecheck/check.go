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
	// OrderBound lists the pods of Bound that stay Pending when the pods
	// planned on new nodes meet kube-scheduler in the reverse of the queue
	// order, sorted: a plan with such pods binds them only when the nodes
	// come up and the queue turns in its favour (a spread's carrier bound
	// before the pods it counts).
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
	bound, refused, err := bindPlan(s, existing, nodes, queue, first)
	if err != nil {
		return res, err
	}
	// Once more in the reverse order: the pods that bound only thanks to
	// the queue's order.
	if len(queue) > 1 {
		slices.Reverse(queue)
		slices.Reverse(first)
		_, back, err := bindPlan(s, existing, nodes, queue, first)
		if err != nil {
			return res, err
		}
		for _, r := range back {
			if _, ok := slices.BinarySearch(bound, r.Pod); ok {
				res.OrderBound = append(res.OrderBound, r)
			}
		}
		slices.SortFunc(res.OrderBound, func(a, b Refusal) int { return strings.Compare(a.Pod, b.Pod) })
	}
	res.Bound = bound
	res.Refused = append(res.Refused, refused...)
	slices.SortFunc(res.Refused, func(a, b Refusal) int { return strings.Compare(a.Pod, b.Pod) })
	return res, nil
}

// bindPlan binds the queue's pods, those of first (planned on existing
// nodes) before the others: kube-scheduler takes them as soon as they fit
// on the cluster as it is, a NodeClaim's node joins a minute later. Then
// every pod left, once the nodes launched. It returns the bound pods,
// sorted, and the refused ones.
func bindPlan(s *scenario.Scenario, existing, nodes []*corev1.Node, queue, first []placement) ([]string, []Refusal, error) {
	var early []*corev1.Pod
	if len(first) > 0 {
		sched, err := newScheduler(existing, boundPods(s, existing), s.Input)
		if err != nil {
			return nil, nil, err
		}
		done, _, err := bindAll(sched, first)
		sched.stop()
		if err != nil {
			return nil, nil, err
		}
		was := map[string]bool{}
		for _, k := range done {
			was[k] = true
		}
		var rest []placement
		for _, pl := range queue {
			if !was[pl.key] {
				rest = append(rest, pl)
				continue
			}
			c := pl.pod.DeepCopy()
			c.Spec.NodeName = pl.node
			c.Status.Phase = corev1.PodRunning
			early = append(early, c)
		}
		queue = rest
	}
	sched, err := newScheduler(nodes, append(boundPods(s, nodes), early...), s.Input)
	if err != nil {
		return nil, nil, err
	}
	defer sched.stop()
	bound, refused, err := bindAll(sched, queue)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range early {
		bound = append(bound, p.Namespace+"/"+p.Name)
	}
	slices.Sort(bound)
	return bound, refused, nil
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
