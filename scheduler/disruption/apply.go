package disruption

import (
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/scheduler"
)

// roundPrice rounds a price to 1e-9, as plans do.
func roundPrice(p float64) float64 { return math.Round(p*1e9) / 1e9 }

// commit carries a proposal out on the model and returns its command: the
// candidates go, the replacements come up (initialized, at now), every
// placed pod is bound where the simulation put it, and the candidates'
// other reschedulable pods are left pending.
func (m *model) commit(p *proposal, index int) (Command, error) {
	before := m.totalPrice()
	cmd := Command{Method: p.method, Reason: p.reason, Decision: DecisionDelete, Nodes: []CommandNode{}, Replacements: []scheduler.NodeClaim{}, Moves: []Move{}}
	for _, c := range p.cands {
		cmd.Nodes = append(cmd.Nodes, CommandNode{Name: c.n.name, NodePool: c.n.poolName, InstanceType: c.n.obj.Labels["node.kubernetes.io/instance-type"],
			Zone: c.n.zone, CapacityType: c.n.ct, Price: c.n.price})
	}
	dest := map[string]string{} // simulation node name → model node name
	var launched []*node
	for _, r := range p.repls {
		var pods []*corev1.Pod
		if p.sim != nil {
			pods = m.claimPods(p.sim, r.nc.Pods)
		}
		nc := m.finish(r, pods)
		name := m.newName(nc.NodePool)
		dest[nc.Name] = name
		nc.Name = name
		cmd.Replacements = append(cmd.Replacements, nc)
		launched = append(launched, m.launch(nc, index))
	}
	if len(cmd.Replacements) > 0 {
		cmd.Decision = DecisionReplace
	}
	for _, c := range p.cands {
		m.remove(c.n, index)
	}
	for _, n := range launched {
		m.insert(n)
	}
	if p.method == MethodStaticDrift {
		// The kube-scheduler binds the pods where they fit, the
		// replacement included; no NodeClaim is planned for them.
		sim, err := m.simulate(simInput{cands: p.cands, noPools: true})
		if err != nil {
			return Command{}, err
		}
		p.sim = sim
	}
	cmd.Moves = m.bindPlaced(p.sim, dest, index)
	cmd.Pending = m.leavePending(p, cmd.Moves)
	m.version++
	after := m.totalPrice()
	cmd.PricePerHourBefore, cmd.PricePerHourAfter = roundPrice(before), roundPrice(after)
	cmd.SavingsPerHour = roundPrice(before - after)
	return cmd, nil
}

// claimPods are the pods a simulated NodeClaim holds, as Solve saw them.
func (m *model) claimPods(s *simulation, keys []string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, key := range keys {
		if sp := s.pods[key]; sp != nil {
			out = append(out, sp.obj)
		}
	}
	return out
}

// newName returns "<pool>-<n>" with the smallest n no node has had.
func (m *model) newName(pool string) string {
	for i := 1; ; i++ {
		name := fmt.Sprintf("%s-%d", pool, i)
		if !m.names[name] {
			m.names[name] = true
			return name
		}
	}
}

// launch makes the model node of a replacement.
func (m *model) launch(nc scheduler.NodeClaim, index int) *node {
	var np = m.poolByName[nc.NodePool]
	obj, claim := Launch(nc, &np.np, m.catalog, m.now)
	n := &node{name: obj.Name, obj: obj, claim: &claim, createdBy: index}
	_ = m.describe(n) // the type comes from the catalog: no error
	n.lastEvent = m.now
	return n
}

func (m *model) remove(n *node, index int) {
	n.disruptedBy = index
	i := slices.Index(m.nodes, n)
	m.nodes = slices.Delete(m.nodes, i, i+1)
	delete(m.byName, n.name)
	m.gone = append(m.gone, n)
}

func (m *model) insert(n *node) {
	i, _ := slices.BinarySearchFunc(m.nodes, n.name, func(a *node, name string) int { return strings.Compare(a.name, name) })
	m.nodes = slices.Insert(m.nodes, i, n)
	m.byName[n.name] = n
}

// bindPlaced binds every pod the simulation placed (but those of nodes
// already being deleted, which are not this command's) and returns the
// moves, sorted by pod.
func (m *model) bindPlaced(s *simulation, dest map[string]string, index int) []Move {
	moves := []Move{}
	if s == nil {
		return moves
	}
	place := func(simNode string, keys []string) {
		to := simNode
		if d, ok := dest[simNode]; ok {
			to = d
		}
		n := m.byName[to]
		for _, key := range keys {
			sp := s.pods[key]
			if sp == nil || sp.deleting || n == nil {
				continue
			}
			m.bind(sp, n, index)
			moves = append(moves, Move{Pod: key, From: sp.from, To: to})
		}
	}
	for _, en := range s.res.ExistingNodes {
		place(en.Name, en.Pods)
	}
	for _, nc := range s.res.NodeClaims {
		place(nc.Name, nc.Pods)
	}
	slices.SortFunc(moves, func(a, b Move) int { return strings.Compare(a.Pod, b.Pod) })
	return moves
}

// bind puts a moved or pending pod on a node: a pod event there at now.
func (m *model) bind(sp *simPod, n *node, index int) {
	if sp.from == "" {
		m.pending = slices.DeleteFunc(m.pending, func(p *pod) bool { return p == sp.p })
	}
	obj := sp.p.obj.DeepCopy()
	obj.Spec.NodeName = n.name
	obj.DeletionTimestamp = nil // a new incarnation of a terminating StatefulSet pod
	obj.Status.Phase = corev1.PodRunning
	started := metav1.NewTime(m.now)
	obj.Status.StartTime = &started
	np := newPod(obj)
	i, _ := slices.BinarySearchFunc(n.pods, np.key, func(a *pod, key string) int { return strings.Compare(a.key, key) })
	n.pods = slices.Insert(n.pods, i, np)
	n.lastEvent, n.touchedBy = m.now, index
	n.gatedObj = nil
}

// leavePending makes pending the reschedulable pods of the candidates that
// no move placed (the pods of an expired node that fit nowhere, pods an
// empty node still had): their controllers re-create them.
func (m *model) leavePending(p *proposal, moves []Move) []string {
	moved := map[string]bool{}
	for _, mv := range moves {
		moved[mv.Pod] = true
	}
	var out []string
	for _, c := range p.cands {
		for _, x := range c.n.pods {
			if !x.reschedulable() || moved[x.key] {
				continue
			}
			obj := x.obj.DeepCopy()
			obj.Spec.NodeName = ""
			obj.DeletionTimestamp = nil
			obj.Status = corev1.PodStatus{Phase: corev1.PodPending}
			m.pending = append(m.pending, newPod(obj))
			out = append(out, x.key)
		}
	}
	slices.SortFunc(m.pending, comparePods)
	slices.Sort(out)
	return out
}
