package verify

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/topology"
)

// verifier is the state of one Plan call. It is built from the input
// alone; the plan only says where pods went.
type verifier struct {
	in        scheduler.Settings
	schema    requirements.Schema
	catalog   instancetypes.Catalog
	labelKeys map[string]bool // every label key of the catalog's types
	plan      scheduler.Result
	tmpls     map[string]*vtemplate // dynamic NodePools by name
	static    map[string]bool
	dss       []nodepool.DaemonSet
	dsCache   map[[2]string]*vdaemons
	matchers  map[string]*vmatcher // by the fingerprint of the offering keys' requirements
	vols      *topology.Volumes
	nsLabels  map[string]map[string]string
	pending   []*vpod // sorted by name
	byName    map[string]*vpod
	nodes     []*vnode // existing nodes not being deleted, sorted by name
	nodeIdx   map[string]*vnode
	given     map[string]*corev1.Node // every existing node given, by name (first wins)
	bound     []*vpod
	claims    []*vclaim // plan order
	resUsed   map[string]int
	resCap    map[string]int
	out       []Violation
	// wantSlots asks checkSpreadOrder, when the binding order leaves pods,
	// for the exchange of alike pods that binds them all (reslot.go), in
	// rename.
	wantSlots bool
	rename    map[string]string
	// joinOrder asks checkSpreadOrder, when the queue order binds every
	// pod, to bind them again as the NodeClaims' nodes join one at a time
	// (bindJoining), and to list in joinLeft the pods that then stay
	// pending.
	joinOrder bool
	joinLeft  []string
}

// vtemplate is a NodePool's template with what topology needs of it.
type vtemplate struct {
	nodepool.Template
	claims []*vclaim
	// existing is what the pool's existing nodes hold against its limits:
	// their capacity and, under "nodes", their number (Template.Usage).
	existing corev1.ResourceList
}

// vpod is a pending or bound pod.
type vpod struct {
	name      string
	namespace string
	pod       *corev1.Pod
	requests  vres
	// alts are nodeSelector ∩ each usable required term; altsWhy says why
	// there are none.
	alts     []requirements.Requirements
	altsWhy  string
	affinity nodeaffinity.RequiredNodeAffinity // normalised keys
	ports    []nodepool.HostPort
	bound    bool
	host     *vnode // where the pod is in the final plan; nil when not placed
}

// vnode is a node of the final plan: an existing node or a NodeClaim.
type vnode struct {
	name   string
	claim  *vclaim
	node   *corev1.Node
	labels map[string]string // normalised; hostname set
	taints []corev1.Taint    // the taints new pods must tolerate (nodepool.EffectiveTaints)
	now    bool              // kube-scheduler binds there before new nodes join (nodepool.BindsNow)
	pods   []*vpod           // bound and placed
}

// vclaim is one NodeClaim of the plan, resolved against the input.
type vclaim struct {
	nc          *scheduler.NodeClaim
	tmpl        *vtemplate
	reqs        requirements.Requirements
	options     []*instancetypes.InstanceType // known, unique, in listed order
	chosen      *instancetypes.InstanceType
	offering    *instancetypes.Offering
	reservation string
	pods        []*vpod
	node        *vnode
	requests    vres
	eff         map[string]requirements.Requirement
	match       *vmatcher
	offers      map[string][]string // see offered
	// declared is the NodePool's requirements with every key a pod of the
	// NodeClaim opens (poolDeclares), made once.
	declared     requirements.Requirements
	declaredDone bool
}

// vdaemons are the DaemonSets that run on one (NodePool, instance type),
// and what they leave of its allocatable.
type vdaemons struct {
	names    []string
	requests vres
	ports    []nodepool.HostPort
	usable   vres
}

func newVerifier(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, plan scheduler.Result, opts []scheduler.Option) (*verifier, error) {
	in, err := scheduler.Resolve(opts...)
	if err != nil {
		return nil, err
	}
	v := &verifier{in: in, catalog: catalog, plan: plan, schema: in.SchemaFor(catalog), tmpls: map[string]*vtemplate{},
		static: map[string]bool{}, dsCache: map[[2]string]*vdaemons{}, matchers: map[string]*vmatcher{}, nsLabels: map[string]map[string]string{},
		byName: map[string]*vpod{}, nodeIdx: map[string]*vnode{}, given: map[string]*corev1.Node{}, labelKeys: map[string]bool{}}
	for _, k := range catalog.LabelKeys() {
		v.labelKeys[k] = true
	}
	tmpls, err := nodepool.Templates(nodePools, v.schema)
	if err != nil {
		return nil, err
	}
	for _, t := range tmpls {
		v.tmpls[t.Name] = &vtemplate{Template: t}
	}
	for _, np := range nodePools {
		if np.IsStatic() {
			v.static[np.Name] = true
		}
	}
	for _, d := range in.DaemonSets {
		ds, err := nodepool.NewDaemonSet(d, v.schema)
		if err != nil {
			return nil, err
		}
		v.dss = append(v.dss, ds)
	}
	v.vols = topology.NewVolumes(v.schema, in.PVCs, in.PVs, in.StorageClasses)
	for _, ns := range in.Namespaces {
		if ns != nil {
			v.nsLabels[ns.Name] = ns.Labels
		}
	}
	if err := v.addPending(pods); err != nil {
		return nil, err
	}
	if err := v.addExisting(); err != nil {
		return nil, err
	}
	return v, nil
}

// addPending indexes the pending pods by namespace/name.
func (v *verifier) addPending(pods []*corev1.Pod) error {
	for i, p := range pods {
		if p == nil {
			return &scheduler.InputError{Field: "pods", Index: i, Message: "nil pod"}
		}
		vp := v.newPod(p)
		if _, dup := v.byName[vp.name]; dup {
			return &scheduler.InputError{Field: "pods", Index: i, Message: "pod " + vp.name + " is given twice"}
		}
		v.byName[vp.name] = vp
		v.pending = append(v.pending, vp)
	}
	slices.SortFunc(v.pending, func(a, b *vpod) int { return cmp.Compare(a.name, b.name) })
	return nil
}

func (v *verifier) newPod(p *corev1.Pod) *vpod {
	ns := kube.Namespace(p.Namespace)
	vp := &vpod{name: ns + "/" + p.Name, namespace: ns, pod: p, requests: vresOf(podrequests.OfPod(p)),
		ports: nodepool.PodHostPorts(&p.Spec)}
	vp.alts, vp.altsWhy = v.podAlternatives(p)
	vp.affinity = v.normalisedAffinity(p)
	return vp
}

// podAlternatives returns the pod's node requirements: nodeSelector ∩ each
// required node-affinity term that can match a node. An empty term matches
// nothing (Kubernetes); so does one that does not parse.
func (v *verifier) podAlternatives(p *corev1.Pod) ([]requirements.Requirements, string) {
	base := v.schema.FromLabels(p.Spec.NodeSelector)
	if key, empty := base.Empty(); empty {
		return nil, fmt.Sprintf("its nodeSelector asks two values of %s", key)
	}
	var ns *corev1.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		ns = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if ns == nil {
		return []requirements.Requirements{base}, ""
	}
	path := field.NewPath("spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	var (
		out []requirements.Requirements
		why []string
	)
	for i, term := range ns.NodeSelectorTerms {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			why = append(why, fmt.Sprintf("%s is empty", path.Index(i)))
			continue
		}
		tr, err := v.schema.FromNodeSelectorTerm(path.Index(i), term)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		r := base.Intersect(tr)
		if key, empty := r.Empty(); empty {
			why = append(why, fmt.Sprintf("%s leaves no value of %s", path.Index(i), key))
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 && len(why) == 0 {
		why = append(why, "required node affinity has no terms")
	}
	return out, strings.Join(why, "; ")
}

// normalisedAffinity is the pod's required node affinity for
// component-helpers, with deprecated keys rewritten to the stable ones (as
// node labels are normalised).
func (v *verifier) normalisedAffinity(p *corev1.Pod) nodeaffinity.RequiredNodeAffinity {
	var aff *corev1.Affinity
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		ns := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.DeepCopy()
		for i := range ns.NodeSelectorTerms {
			for j := range ns.NodeSelectorTerms[i].MatchExpressions {
				e := &ns.NodeSelectorTerms[i].MatchExpressions[j]
				e.Key = v.schema.Normalize(e.Key)
			}
		}
		aff = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ns}}
	}
	sel := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(p.Spec.NodeSelector)) {
		n := v.schema.Normalize(k)
		if old, ok := sel[n]; ok && old != p.Spec.NodeSelector[k] {
			// Two spellings of one key ask different values: no node has both.
			aff = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: n, Operator: corev1.NodeSelectorOpDoesNotExist}, {Key: n, Operator: corev1.NodeSelectorOpExists}}}}}}}
		}
		sel[n] = p.Spec.NodeSelector[k]
	}
	return nodeaffinity.NewRequiredNodeAffinity(sel, aff)
}

// matchesNode reports whether a node with these (normalised) labels
// satisfies the pod's nodeSelector and required node affinity, as
// kube-scheduler decides.
func (p *vpod) matchesNode(name string, labels map[string]string) (bool, error) {
	return p.affinity.Match(&corev1.Node{ObjectMeta: metaWithLabels(name, labels)})
}

// addExisting indexes the existing nodes and their bound pods.
func (v *verifier) addExisting() error {
	for i, n := range v.in.Nodes {
		if n == nil {
			return &scheduler.InputError{Field: "existing nodes", Index: i, Message: "nil node"}
		}
		if _, dup := v.given[n.Name]; dup {
			continue
		}
		v.given[n.Name] = n
		if n.DeletionTimestamp != nil {
			continue
		}
		vn := &vnode{name: n.Name, node: n, labels: nodepool.NodeLabels(n, v.schema)}
		var startup []corev1.Taint
		if t, ok := v.tmpls[vn.labels[requirements.LabelNodePool]]; ok {
			startup = t.StartupTaints
		}
		vn.taints = nodepool.EffectiveTaints(n, startup)
		vn.now = nodepool.BindsNow(n, startup)
		v.nodes = append(v.nodes, vn)
		v.nodeIdx[n.Name] = vn
	}
	slices.SortFunc(v.nodes, func(a, b *vnode) int { return cmp.Compare(a.name, b.name) })
	for i, p := range v.in.BoundPods {
		if p == nil {
			return &scheduler.InputError{Field: "bound pods", Index: i, Message: "nil pod"}
		}
		if kube.IsGone(p) {
			continue
		}
		if n, ok := v.given[p.Spec.NodeName]; ok && n.DeletionTimestamp != nil {
			if err := v.reschedule(p); err != nil {
				return err
			}
			continue
		}
		vn, ok := v.nodeIdx[p.Spec.NodeName]
		if !ok {
			continue
		}
		bp := v.newPod(p)
		bp.bound, bp.host = true, vn
		vn.pods = append(vn.pods, bp)
		v.bound = append(v.bound, bp)
	}
	slices.SortStableFunc(v.bound, func(a, b *vpod) int { return cmp.Compare(a.name, b.name) })
	slices.SortFunc(v.pending, func(a, b *vpod) int { return cmp.Compare(a.name, b.name) })
	for _, t := range v.tmpls {
		t.existing = t.Usage(v.in.Nodes)
	}
	return nil
}

// reschedule makes a pod of a node being deleted pending again (Karpenter
// replaces the node, A51/B-140), unless it is a DaemonSet's pod, which goes
// with its node.
func (v *verifier) reschedule(p *corev1.Pod) error {
	if len(kube.DaemonSetOwners(p)) > 0 {
		return nil
	}
	q := p.DeepCopy()
	q.Spec.NodeName = ""
	vp := v.newPod(q)
	if _, dup := v.byName[vp.name]; dup {
		return &scheduler.InputError{Field: "bound pods", Index: -1, Message: "pod " + vp.name + " is both pending and bound to a node being deleted"}
	}
	v.byName[vp.name] = vp
	v.pending = append(v.pending, vp)
	return nil
}

// daemons returns the DaemonSets that run on a node of tmpl (nil: an
// unknown NodePool, where none is assumed) with type it.
func (v *verifier) daemons(tmpl *vtemplate, it *instancetypes.InstanceType) *vdaemons {
	key := [2]string{"", it.Name}
	if tmpl != nil {
		key[0] = "pool/" + tmpl.Name
	}
	if d, ok := v.dsCache[key]; ok {
		return d
	}
	d := &vdaemons{requests: vres{}, usable: vresOf(it.Allocatable())}
	if tmpl != nil {
		for _, ds := range tmpl.RunningDaemonSets(v.dss, it.Requirements()) {
			d.names = append(d.names, ds.String())
			d.requests.add(vresOf(ds.Requests()))
			d.ports = append(d.ports, ds.HostPorts()...)
		}
	}
	d.usable.sub(d.requests)
	slices.Sort(d.names)
	v.dsCache[key] = d
	return d
}

func (v *verifier) report(vio Violation) { v.out = append(v.out, vio) }

func addList(dst, src corev1.ResourceList) {
	for name, q := range src {
		sum := dst[name]
		sum.Add(q)
		dst[name] = sum
	}
}
