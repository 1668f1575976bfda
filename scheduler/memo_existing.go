package scheduler

import (
	"slices"
	"strings"
	"sync/atomic"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// What prepareExisting derives from one node object or one bound pod alone
// (nothing the NodePools, the other nodes or the options change) is kept in
// the Memo too, so that a caller solving again and again over mostly the
// same objects (a disruption planner) pays for it once per object:
//
//   - a node's facts, whether it is initialised, its allocatable as a
//     vector of the solve's dimensions and, when the node is initialised
//     (its effective taints are then its taints, whatever its NodePool's
//     startup taints), what every plan makes of it (nodeBase: its taints,
//     its topology node);
//   - a bound pod's requests as a vector of the solve's dimensions.
//
// Entries are keyed by the object's address and the dimensions' names (a
// catalog with other resources gives other vectors). The topology node is
// shared by every Solve that reads the node: topology never writes one.

// nodeProto is what a node object gives every Solve (never written once
// made).
type nodeProto struct {
	facts       *nodeFacts
	initialized bool
	poolName    string // its karpenter.sh/nodepool label
	alloc       binpack.Vec
	// base is set when initialized: the node as every plan of every
	// Solve shares it.
	base *nodeBase
	// runs is, for the last DaemonSets asked about, which run on the node
	// (initialized nodes: daemonRuns).
	runs atomic.Pointer[daemonRuns]
}

// daemonRuns says which of a list of DaemonSets run on a node.
type daemonRuns struct {
	daemonSets []*appsv1.DaemonSet
	runs       []bool
}

// daemonRuns returns, per DaemonSet of the solve, whether it runs on en
// (nodepool.DaemonSet.RunsOn), kept on en's proto when the solve has a
// Memo and en is initialised (its labels and taints are then the proto's);
// nil otherwise.
func (s *solver) daemonRuns(en *existingNode) []bool {
	p := en.proto
	if s.cfg.memo == nil || p == nil || !p.initialized || len(s.daemonSets) == 0 {
		return nil
	}
	if r := p.runs.Load(); r != nil && slices.Equal(r.daemonSets, s.cfg.daemonSets) {
		return r.runs
	}
	if s.dsList == nil {
		s.dsList = slices.Clone(s.cfg.daemonSets)
	}
	r := &daemonRuns{daemonSets: s.dsList, runs: make([]bool, len(s.daemonSets))}
	for i, ds := range s.daemonSets {
		r.runs[i] = ds.RunsOn(en.labels, en.taints)
	}
	p.runs.Store(r)
	return r.runs
}

// protoSet is what a node's proto depends on beside the node: the schema
// and the dimensions (by dimsKey). The Memo keeps the protos of each set by
// node, so that a lookup hashes a pointer.
type protoSet struct {
	schema  requirements.Schema
	dims    string
	catalog *PreparedCatalog // the types an uninitialised node fills its zeros from
}

// dimsKey names a solve's dimensions (the Memo's vectors are per names).
func dimsKey(d binpack.Dims) string {
	var b strings.Builder
	for i := range d.Len() {
		b.WriteString(string(d.Name(i)))
		b.WriteByte(0)
	}
	return b.String()
}

// nodeProtos returns the proto of each node (nil nodes: nil), from m when m
// is not nil.
func (m *Memo) nodeProtos(nodes []*corev1.Node, schema requirements.Schema, dims binpack.Dims, cat *PreparedCatalog) []*nodeProto {
	out := make([]*nodeProto, len(nodes))
	if m == nil {
		for i, n := range nodes {
			if n != nil {
				out[i] = newNodeProto(nil, n, schema, dims, cat)
			}
		}
		return out
	}
	dk := dimsKey(dims)
	var missing []int
	m.mu.Lock()
	set := protoSet{schema, dk, cat}
	protos := m.protos[set]
	if protos == nil {
		protos = map[*corev1.Node]*nodeProto{}
		if m.protos == nil {
			m.protos = map[protoSet]map[*corev1.Node]*nodeProto{}
		}
		m.protos[set] = protos
	}
	for i, n := range nodes {
		if n == nil {
			continue
		}
		if out[i] = protos[n]; out[i] == nil {
			missing = append(missing, i)
		}
	}
	m.mu.Unlock()
	if len(missing) == 0 {
		return out
	}
	for _, i := range missing {
		out[i] = newNodeProto(m, nodes[i], schema, dims, cat)
	}
	m.mu.Lock()
	for _, i := range missing {
		protos[nodes[i]] = out[i]
	}
	m.mu.Unlock()
	return out
}

// newNodeProto derives a node's proto (facts through m when not nil).
func newNodeProto(m *Memo, n *corev1.Node, schema requirements.Schema, dims binpack.Dims, cat *PreparedCatalog) *nodeProto {
	p := &nodeProto{facts: m.nodeFacts(n, schema), initialized: nodepool.IsInitialized(n)}
	p.poolName = p.facts.labels[requirements.LabelNodePool]
	var catalog *instancetypes.Catalog
	if cat != nil {
		catalog = &cat.catalog
	}
	alloc := nodeAllocatable(n, catalog)
	p.alloc, _ = dims.Vector(alloc)
	if p.initialized {
		p.base = newNodeBase(n, p, effectiveTaints(n, nil))
	}
	return p
}

// launchedAllocatable is alloc, the allocatable a node not yet initialised
// reports, with every extended resource its instance type has that it
// reports as zero or not at all, in its allocatable and its capacity, taken
// from the type (B-096): until the device plugin
// registers, a kubelet reports 0 GPUs on a GPU node launched for GPU pods,
// and a second such pod belongs on it, not on a node of its own. alloc
// itself when nothing is missing.
func launchedAllocatable(n *corev1.Node, alloc corev1.ResourceList, catalog instancetypes.Catalog) corev1.ResourceList {
	it, ok := catalog.Get(n.Labels[requirements.LabelInstanceType])
	if !ok || len(n.Status.Allocatable) == 0 && len(n.Status.Capacity) == 0 {
		return alloc // no status at all: nothing reported, nothing to trust
	}
	var out corev1.ResourceList
	for name, q := range it.Allocatable() {
		if !extendedResource(name) || q.IsZero() {
			continue
		}
		if cur, has := alloc[name]; has && !cur.IsZero() {
			continue
		}
		if c, has := n.Status.Capacity[name]; has && !c.IsZero() {
			continue // reported, and taken: the allocatable is what is left
		}
		if out == nil {
			out = alloc.DeepCopy()
			if out == nil {
				out = corev1.ResourceList{}
			}
		}
		out[name] = q.DeepCopy()
	}
	if out == nil {
		return alloc
	}
	return out
}

// extendedResource reports whether name is an extended resource (a device
// plugin's: domain-prefixed, outside kubernetes.io), not cpu, memory,
// pods, storage or huge pages.
func extendedResource(name corev1.ResourceName) bool {
	n := string(name)
	return strings.Contains(n, "/") && !strings.HasPrefix(n, "kubernetes.io/") && !strings.HasPrefix(n, corev1.ResourceHugePagesPrefix)
}

// effectiveTaints are the taints that keep new pods off the node: its
// effective taints (nodepool.EffectiveTaints) and, on a cordoned node,
// node.kubernetes.io/unschedulable:NoSchedule (the node controller adds
// it: kube-scheduler binds a pod that tolerates it there, as it does
// DaemonSet pods).
func effectiveTaints(n *corev1.Node, startup []corev1.Taint) []corev1.Taint {
	taints := nodepool.EffectiveTaints(n, startup)
	if n.Spec.Unschedulable {
		cordon := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
		if !slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.MatchTaint(&cordon) }) {
			taints = append(taints, cordon)
		}
	}
	return taints
}

// podVectors returns each pod's requests (podrequests.OfPod) as a vector
// of dims, from m when m is not nil. The vectors are shared: callers read
// them.
func (m *Memo) podVectors(pods []*corev1.Pod, dims binpack.Dims) []*binpack.Vec {
	out := make([]*binpack.Vec, len(pods))
	if m == nil {
		slab := make([]binpack.Vec, len(pods))
		for i, p := range pods {
			slab[i], _ = dims.Vector(m.podRequests(p))
			out[i] = &slab[i]
		}
		return out
	}
	dk := dimsKey(dims)
	var missing []int
	m.mu.Lock()
	vecs := m.podVecs[dk]
	if vecs == nil {
		vecs = map[*corev1.Pod]*binpack.Vec{}
		if m.podVecs == nil {
			m.podVecs = map[string]map[*corev1.Pod]*binpack.Vec{}
		}
		m.podVecs[dk] = vecs
	}
	for i, p := range pods {
		v, ok := vecs[p]
		if !ok {
			missing = append(missing, i)
		}
		out[i] = v
	}
	m.mu.Unlock()
	if len(missing) == 0 {
		return out
	}
	slab := make([]binpack.Vec, len(missing)) // one allocation for the new vectors
	for j, i := range missing {
		slab[j], _ = dims.Vector(m.podRequests(pods[i]))
		out[i] = &slab[j]
	}
	m.mu.Lock()
	for _, i := range missing {
		vecs[pods[i]] = out[i]
	}
	m.mu.Unlock()
	return out
}

// NodeAllocatable is the allocatable Solve plans an existing node with: its
// status's (its capacity when that is empty) and, for a node not yet
// initialised, every resource its instance type (catalog, by the node's
// instance-type label) has that the node reports as zero or not at all
// (B-096). verify.Plan checks placements against the same.
func NodeAllocatable(n *corev1.Node, catalog instancetypes.Catalog) corev1.ResourceList {
	return nodeAllocatable(n, &catalog)
}

// nodeAllocatable is NodeAllocatable, no type's resources taken when
// catalog is nil.
func nodeAllocatable(n *corev1.Node, catalog *instancetypes.Catalog) corev1.ResourceList {
	alloc := n.Status.Allocatable
	if len(alloc) == 0 {
		alloc = n.Status.Capacity
	}
	if nodepool.IsInitialized(n) || catalog == nil {
		return alloc
	}
	return launchedAllocatable(n, alloc, *catalog)
}
