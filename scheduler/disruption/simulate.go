package disruption

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// fewerNodeCost is the per-node cost that makes Solve merge NodeClaims
// wherever their pods fit together (dollars per hour: more than any
// instance type's price).
const fewerNodeCost = 1000

// gateTaint keeps pods moved by consolidation off a destination still inside
// its consolidateAfter window (B.2.5): such a node carries it in the
// simulation's copy, and the pods that may still land there (pending pods,
// pods of nodes being deleted) tolerate it. It never reaches the output.
func gateTaint() corev1.Taint {
	return corev1.Taint{Key: "disruption.nodeplan.io/consolidate-after", Value: "true", Effect: corev1.TaintEffectNoSchedule}
}

// simulation is one Solve of the pods that need a new home when some nodes
// go (B.2): the movable pods of the candidates, the pending pods and the
// movable pods of nodes already being deleted, over the remaining nodes.
type simulation struct {
	res scheduler.Result
	// pods are the pods given to Solve, by key, and where each came from.
	pods map[string]*simPod
	// unplaced is the first pod (by name) that was not pending and found
	// no place, with its reason; uninit a pod that would land on a node
	// that is not initialized.
	unplaced *scheduler.PodError
	uninit   *simPlacement
	// call is the Solve that made res (simulateFewer runs it again).
	call   solveCall
	method Method
}

// simPod is one pod of a simulation.
type simPod struct {
	p    *pod
	obj  *corev1.Pod // what Solve saw
	from string      // the candidate it leaves; "" when pending
	// deleting: it comes from a node already being deleted.
	deleting bool
}

type simPlacement struct{ pod, node string }

// simInput describes one simulation.
type simInput struct {
	cands []*candidate
	// gate applies the consolidateAfter gate on destinations
	// (consolidation, not drift).
	gate bool
	// pending filters the pending pods to include (nil: all of them).
	pending func(*pod) bool
	// noPools plans no NodeClaim: the pods may only take existing nodes
	// (where the kube-scheduler would bind them).
	noPools bool
	// method is the method asking, for Stats.
	method Method
	// full gives Solve the whole cluster rather than the view (tests).
	full bool
	// capped lets the pods land only on the first nodes by name of each
	// zone that admit them (a bound as the global search's: landable).
	capped bool
}

// simulate runs one simulation. It may run on several goroutines at once:
// everything but Solve holds m.mu (the view, the caches and the stats are
// built lazily).
func (m *model) simulate(in simInput) (*simulation, error) {
	m.mu.Lock()
	call, out := m.prepareSimulation(in)
	m.mu.Unlock()
	return m.solveSimulation(call, out)
}

// solveSimulation runs a prepared simulation's Solve and checks its result.
func (m *model) solveSimulation(call solveCall, out *simulation) (*simulation, error) {
	res, err := scheduler.Solve(call.pods, call.pools, call.catalog, call.opts...)
	if err != nil {
		return nil, err
	}
	out.res, out.call = res, call
	m.mu.Lock()
	m.checkSimulation(out)
	m.mu.Unlock()
	return out, nil
}

// simulateFewer is sim again with Solve preferring fewer NodeClaims (see
// consolidateOnce): the model has not changed since sim (a round
// simulates, then commits), so sim's Solve call with WithNodeCost is what
// preparing it again would give, without the preparing. Counted as a
// simulation of its own.
func (m *model) simulateFewer(sim *simulation) (*simulation, error) {
	call := sim.call
	call.opts = append(slices.Clip(call.opts), scheduler.WithNodeCost(fewerNodeCost))
	out := &simulation{pods: sim.pods, method: sim.method} // pods: shared, never written once prepared
	m.mu.Lock()
	m.stats.Simulations[sim.method]++
	m.stats.PodsSimulated += len(call.pods)
	m.mu.Unlock()
	return m.solveSimulation(call, out)
}

// solveCall is the arguments of one Solve.
type solveCall struct {
	pods    []*corev1.Pod
	pools   []nodepool.NodePool
	catalog instancetypes.Catalog
	opts    []scheduler.Option
}

// prepareSimulation builds a simulation's Solve call (m.mu held).
func (m *model) prepareSimulation(in simInput) (solveCall, *simulation) {
	out := &simulation{pods: map[string]*simPod{}, method: in.method}
	leaving := map[string]bool{}
	for _, c := range in.cands {
		leaving[c.n.name] = true
	}
	order := m.simPods(in, leaving)
	call := solveCall{pods: make([]*corev1.Pod, len(order)), pools: m.nodePools, catalog: m.catalog}
	for i, sp := range order {
		out.pods[sp.p.key] = sp
		call.pods[i] = sp.obj
	}
	switch {
	case in.noPools:
		call.pools = nil
	case !in.full && !m.cfg.fullSim:
		call.pools = m.usablePools(order)
	}
	var nodes []*corev1.Node
	if reduced, bound, ok := m.reduced(order, in, leaving, call.pools); ok && !in.full && !m.cfg.fullSim {
		nodes = reduced
		call.opts = append([]scheduler.Option{scheduler.WithExistingNodes(nodes, bound)}, m.clusterOptionsWith(m.viewDaemonSets())...)
		if c, ok := m.priceBound(in, order, call.pools); ok {
			call.catalog = c
			call.opts = append(call.opts, scheduler.WithSchema(m.catalog.Schema()))
		}
	} else {
		var bound []*corev1.Pod
		nodes, bound = m.fullInput(in.gate, leaving)
		call.opts = m.solveOptions(nodes, bound)
	}
	if m.cfg.fillCheap {
		call.opts = append(call.opts, m.fillRankOption(nodes))
	}
	// A simulation reads where pods go, never which preferences the plan
	// relaxed.
	call.opts = append(call.opts, scheduler.WithMemo(m.solveMemo()), scheduler.WithoutRelaxations())
	if prep := m.preparedFor(call.catalog); prep != nil {
		// After the caller's options: the catalog is ours to choose.
		call.opts = append(call.opts, scheduler.WithPrepared(prep))
	}
	if in.method == MethodGlobal {
		// Preferences do not decide whether pods fit: the global search
		// keeps one only while it adds no node (the caller's policy, if
		// any, comes after and wins).
		call.opts = append([]scheduler.Option{scheduler.WithPreferencePolicy(scheduler.PreferenceWhileFree)}, call.opts...)
	}
	if m.stats.Simulations == nil {
		m.stats.Simulations = map[Method]int{}
	}
	m.stats.Simulations[in.method]++
	m.stats.PodsSimulated += len(call.pods)
	return call, out
}

// solveMemo returns the Memo every simulation gives Solve: the views'
// node and pod objects are shared and never written (view.go), and so are
// the model's own. A simulation's own objects (a node with its pods put
// back, a ghost) are new each time, so the Memo is dropped for a new one
// once it holds more than memoObjects per node and pod of the cluster.
func (m *model) solveMemo() *scheduler.Memo {
	limit := memoObjects * (len(m.byName) + m.podCount() + 1)
	if m.memo == nil || m.memo.Len() > limit {
		m.memo = scheduler.NewMemo()
	}
	return m.memo
}

// podCount is the number of pods on the model's nodes and pending.
func (m *model) podCount() int {
	n := len(m.pending)
	for _, nd := range m.nodes {
		n += len(nd.pods)
	}
	return n
}

// memoObjects bounds the Memo (see solveMemo).
const memoObjects = 4

// priceBound returns the catalog of types cheaper than the candidates when
// the simulation is a consolidation that may use one (catalogs.go); pools
// are the NodePools Solve gets.
func (m *model) priceBound(in simInput, pods []*simPod, pools []nodepool.NodePool) (instancetypes.Catalog, bool) {
	if !in.gate || len(in.cands) == 0 {
		return instancetypes.Catalog{}, false
	}
	price := 0.0
	for _, c := range in.cands {
		price += c.n.price
	}
	entangled := false
	for _, sp := range pods {
		if sp.from == "" || sp.deleting {
			return instancetypes.Catalog{}, false
		}
		entangled = entangled || entangledPod(sp.obj) || m.repelled(sp.p)
	}
	if entangled && !zoneTopologyOnly(pods) {
		return instancetypes.Catalog{}, false
	}
	return m.cheaperThan(price, entangled, pools)
}

// simPods are the pods a simulation places: the movable pods of the nodes
// being deleted, of the candidates, and the pending pods.
func (m *model) simPods(in simInput, leaving map[string]bool) []*simPod {
	var out []*simPod
	for _, n := range m.nodes {
		if n.deleting && !leaving[n.name] {
			for _, p := range m.deletingMovable(n) {
				out = append(out, &simPod{p: p, obj: p.unbound(in.gate), from: n.name, deleting: true})
			}
		}
	}
	for _, c := range in.cands {
		for _, p := range c.movable {
			out = append(out, &simPod{p: p, obj: p.unbound(false), from: c.n.name})
		}
	}
	for _, p := range m.pending {
		if in.pending == nil || in.pending(p) {
			out = append(out, &simPod{p: p, obj: p.unbound(in.gate)})
		}
	}
	return out
}

// fullInput is every remaining node (gated ones with the gate taint) and
// every pod on them.
func (m *model) fullInput(gate bool, leaving map[string]bool) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var bound []*corev1.Pod
	for _, n := range m.nodes {
		if leaving[n.name] || n.deleting {
			continue
		}
		obj := n.obj
		if gate && m.underConsolidateAfter(n) {
			obj = n.gated()
		}
		nodes = append(nodes, obj)
		for _, p := range n.pods {
			bound = append(bound, p.obj)
		}
	}
	return nodes, bound
}

// solveOptions are the options of every simulation: the remaining nodes
// and their pods, the cluster's other state and the caller's options.
func (m *model) solveOptions(nodes []*corev1.Node, bound []*corev1.Pod) []scheduler.Option {
	return append([]scheduler.Option{scheduler.WithExistingNodes(nodes, bound)}, m.clusterOptions()...)
}

// clusterOptions carry the DaemonSets, volumes and namespaces, and the
// caller's scheduler options.
func (m *model) clusterOptions() []scheduler.Option {
	return m.clusterOptionsWith(m.cluster.DaemonSets)
}

func (m *model) clusterOptionsWith(daemonSets []*appsv1.DaemonSet) []scheduler.Option {
	c := m.cluster
	var opts []scheduler.Option
	if len(daemonSets) > 0 {
		opts = append(opts, scheduler.WithDaemonSets(daemonSets))
	}
	if len(c.PVCs)+len(c.PVs)+len(c.StorageClasses) > 0 {
		opts = append(opts, scheduler.WithVolumes(c.PVCs, c.PVs, c.StorageClasses))
	}
	if len(c.Namespaces) > 0 {
		opts = append(opts, scheduler.WithNamespaces(c.Namespaces))
	}
	return append(opts, m.cfg.solveOpts...)
}

// checkSimulation finds the first pod that was not pending and has no place
// (AllNonPendingPodsScheduled), and a moved pod that would land on an
// existing node that is not initialized (B.2.8).
func (m *model) checkSimulation(s *simulation) {
	for i := range s.res.PodErrors {
		e := &s.res.PodErrors[i]
		if sp := s.pods[e.Pod]; sp != nil && sp.from != "" {
			if s.unplaced == nil || e.Pod < s.unplaced.Pod {
				s.unplaced = e
			}
		}
	}
	for _, en := range s.res.ExistingNodes {
		n := m.byName[en.Name]
		if n == nil || n.initialized {
			continue
		}
		for _, key := range en.Pods {
			if sp := s.pods[key]; sp != nil && sp.from != "" && !sp.deleting {
				if s.uninit == nil || key < s.uninit.pod {
					s.uninit = &simPlacement{pod: key, node: en.Name}
				}
			}
		}
	}
}

// ok: every pod that was not pending has a place on an initialized node.
func (s *simulation) ok() bool { return s.unplaced == nil && s.uninit == nil }

// deletingMovable are the pods of a node being deleted that need a new
// home: reschedulable, not protected by do-not-disrupt or a fully blocking
// PodDisruptionBudget.
func (m *model) deletingMovable(n *node) []*pod {
	var out []*pod
	for _, p := range n.pods {
		if p.reschedulable() && p.disruptable(m.now) && evictionBlock(m.pdbs, p, m.now, true) == nil {
			out = append(out, p)
		}
	}
	return out
}

// unbound returns the pod as Solve takes a pod to place: without
// spec.nodeName and, when tolerate is set, tolerating the gate taint. The
// copy is made once per pod and shared (never written). A bound pod's copy
// drops its status too: the pod its controller makes in its place asks for
// its spec's requests, not what the kubelet allocated the evicted one
// mid-resize (which Solve would count, as for a pending pod: the
// prefilter's room, prefilter.go, counts the spec too).
func (p *pod) unbound(tolerate bool) *corev1.Pod {
	if tolerate {
		if p.tolerant == nil {
			c := p.unbound(false).DeepCopy()
			t := gateTaint()
			c.Spec.Tolerations = append(c.Spec.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
			p.tolerant = c
		}
		return p.tolerant
	}
	if p.loose == nil {
		if p.obj.Spec.NodeName == "" {
			p.loose = p.obj
		} else {
			c := p.obj.DeepCopy()
			c.Spec.NodeName = ""
			c.Status = corev1.PodStatus{Phase: corev1.PodPending}
			p.loose = c
		}
	}
	return p.loose
}

// gated returns the node with the gate taint (made once per node).
func (n *node) gated() *corev1.Node {
	if n.gatedObj == nil {
		c := n.obj.DeepCopy()
		c.Spec.Taints = append(slices.Clone(c.Spec.Taints), gateTaint())
		n.gatedObj = c
	}
	return n.gatedObj
}
