package scheduler

import (
	appsv1 "k8s.io/api/apps/v1"
	"reflect"
	"sync"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/internal/apicheck"
	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// Memo keeps, from one Solve to the next, what Solve derives from the
// existing nodes and bound pods it is given: that a node's labels and
// taints pass the API server's checks, its labels and requirements as the
// schema reads them (both by the address of the node's labels map and
// taints, so that copies of a node share them), a bound pod's requests (by
// the pod's address), a pending pod's class key and validity (by its
// address), the label selectors of pods' topology terms as parsed (by the
// selector's address), the volume index of the last volume objects
// given, and each NodePool's instance types with their DaemonSet overhead
// (by the prepared catalog, the DaemonSets' addresses and the NodePool's
// requirements and taints), and the last lists of DaemonSets, volumes and
// namespaces that passed Solve's checks. A caller that solves many times
// over mostly the same node and pod objects (a disruption planner
// simulating moves over the cluster) passes one Memo to each Solve with
// [WithMemo], and Solve then derives those facts once per object rather
// than once per plan of every call.
//
// The caller promises never to modify a node, pod or DaemonSet object once
// a Solve with the Memo has read it, nor a node's labels map or taints (make new
// ones instead). A Memo never changes a plan: Solve gives the same Result
// with it or without it. Any number of Solves, on any goroutines, may share
// one. It keeps every object it has seen alive: a caller that keeps making
// new objects drops its Memo when [Memo.Len] grows too large, and makes a
// new one.
type Memo struct {
	mu    sync.Mutex
	nodes map[nodeMemoKey]*nodeFacts
	valid map[validKey]bool
	pods  map[*corev1.Pod]corev1.ResourceList
	pvs   map[*corev1.PersistentVolume]bool
	// selectors are the label selectors of pods' topology terms as
	// topology parsed them (by the selector's address).
	selectors *topology.Selectors
	// protos and podVecs are what prepareExisting derives from one node
	// or bound pod (memo_existing.go).
	protos  map[protoSet]map[*corev1.Node]*nodeProto
	podVecs map[string]map[*corev1.Pod]*binpack.Vec // by dimsKey
	// pending is what Solve derives from a pending pod (memo_pods.go).
	pending map[*corev1.Pod]pendingFacts
	// vols is the last volume index made (memo_pods.go).
	vols *volsEntry
	// poolTypes is what newPool derives from a template, the catalog and
	// the DaemonSets (memo_pools.go).
	poolTypes map[poolMemoKey]*poolTypes
	// lists are the last DaemonSets, volumes and namespaces that passed
	// Solve's checks (memo_lists.go).
	lists *checkedLists
	// live are the DaemonSets charged as their live pods ask
	// (livedaemons.go).
	live map[liveKey]*appsv1.DaemonSet
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo {
	return &Memo{nodes: map[nodeMemoKey]*nodeFacts{}, valid: map[validKey]bool{}, pods: map[*corev1.Pod]corev1.ResourceList{},
		pvs: map[*corev1.PersistentVolume]bool{}, selectors: topology.NewSelectors()}
}

// WithMemo makes Solve read and fill m (see [Memo]). A nil m is no option.
func WithMemo(m *Memo) Option {
	return func(c *config) { c.memo = m }
}

// Len is the number of objects m holds facts about.
func (m *Memo) Len() int {
	n := m.selectors.Len()
	m.mu.Lock()
	defer m.mu.Unlock()
	total := len(m.nodes) + len(m.valid) + len(m.pods) + len(m.pvs) + len(m.pending) + len(m.poolTypes) + n
	for _, vecs := range m.podVecs {
		total += len(vecs)
	}
	for _, protos := range m.protos {
		total += len(protos)
	}
	return total
}

// nodeMemoKey is what a node's facts depend on: its labels map (by
// address: copies of a node that share it share the facts), its name
// (the hostname when the labels have none) and the schema (labels are
// normalised by it).
type nodeMemoKey struct {
	labels unsafe.Pointer
	name   string
	schema requirements.Schema
}

// nodeFacts is what a node's labels give, shared by every Solve that reads
// the node (never written once made).
type nodeFacts struct {
	labels map[string]string // nodepool.NodeLabels
	reqs   requirements.Requirements
	// reqLabels is reqs as labels (what topology matches existing nodes on).
	reqLabels map[string]string
	// values gives topology the node's value of a key (its label), made
	// once for every Solve that reads the node.
	values func(key string, _ requirements.Requirements) []string
}

// newNodeFacts derives a node's facts.
func newNodeFacts(n *corev1.Node, schema requirements.Schema) *nodeFacts {
	f := &nodeFacts{labels: nodepool.NodeLabels(n, schema)}
	f.reqs = schema.FromLabels(f.labels)
	f.reqLabels = f.reqs.Labels()
	// Each label's value as a one-element slice, made once (topology
	// asks every existing node for a key in every plan); the slices have
	// no room to grow, so a caller that appends copies.
	one := make(map[string][]string, len(f.labels))
	vals := make([]string, 0, len(f.labels))
	for k, v := range f.labels {
		vals = append(vals, v)
		one[k] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	f.values = func(key string, _ requirements.Requirements) []string { return one[key] }
	return f
}

// nodeFacts returns n's facts under schema, from m when m is not nil.
func (m *Memo) nodeFacts(n *corev1.Node, schema requirements.Schema) *nodeFacts {
	if m == nil {
		return newNodeFacts(n, schema)
	}
	key := nodeMemoKey{reflect.ValueOf(n.Labels).UnsafePointer(), n.Name, schema}
	m.mu.Lock()
	f, ok := m.nodes[key]
	m.mu.Unlock()
	if ok {
		return f
	}
	f = newNodeFacts(n, schema)
	m.mu.Lock()
	m.nodes[key] = f
	m.mu.Unlock()
	return f
}

// validKey is what apicheck.Node reads of a node: its labels map and its
// taints, by address (copies of a node that share them share the answer).
type validKey struct {
	labels  unsafe.Pointer
	taints  *corev1.Taint
	nTaints int
}

func validKeyOf(n *corev1.Node) validKey {
	k := validKey{labels: reflect.ValueOf(n.Labels).UnsafePointer(), nTaints: len(n.Spec.Taints)}
	if len(n.Spec.Taints) > 0 {
		k.taints = &n.Spec.Taints[0]
	}
	return k
}

// nodeValid reports whether n passes apicheck.Node, from m when m is not
// nil (only a node that passes is remembered: errors are made anew).
func (m *Memo) nodeValid(n *corev1.Node) bool {
	var key validKey
	if m != nil {
		key = validKeyOf(n)
		m.mu.Lock()
		ok := m.valid[key]
		m.mu.Unlock()
		if ok {
			return true
		}
	}
	if len(apicheck.Node(n)) > 0 {
		return false
	}
	if m != nil {
		m.mu.Lock()
		m.valid[key] = true
		m.mu.Unlock()
	}
	return true
}

// pvValid reports whether m remembers that pv's node affinity passes
// apicheck.NodeSelector, remembering it now if it does (nil m: false, the
// caller checks).
func (m *Memo) pvValid(pv *corev1.PersistentVolume) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	ok := m.pvs[pv]
	m.mu.Unlock()
	if ok || len(apicheck.NodeSelector(field.NewPath("spec", "nodeAffinity", "required"), pv.Spec.NodeAffinity.Required)) > 0 {
		return ok
	}
	m.mu.Lock()
	m.pvs[pv] = true
	m.mu.Unlock()
	return true
}

// podRequests returns podrequests.OfPod(p), from m when m is not nil. The
// list is shared: callers read it.
func (m *Memo) podRequests(p *corev1.Pod) corev1.ResourceList {
	if m == nil {
		return podrequests.OfPod(p)
	}
	m.mu.Lock()
	r, ok := m.pods[p]
	m.mu.Unlock()
	if ok {
		return r
	}
	r = podrequests.OfPod(p)
	m.mu.Lock()
	m.pods[p] = r
	m.mu.Unlock()
	return r
}
