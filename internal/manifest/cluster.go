package manifest

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/apicheck"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// ClusterObjects are what a dump of a running cluster adds to the input:
// NodeClaims and PodDisruptionBudgets, and where each object was defined,
// so that an error found later (by disruption.Plan) can name the file.
type ClusterObjects struct {
	NodeClaims           []disruption.NodeClaim
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	// where maps "Kind namespace/name" to the object's location.
	where map[string]at
	// running: the input is a running cluster (DecodeCluster): workloads
	// are not expanded, their pods are in the dump.
	running bool
}

// DecodeCluster reads the manifests of a running cluster (what
// `kubectl get -A -o yaml` prints: Nodes, NodeClaims, Pods,
// PodDisruptionBudgets, DaemonSets, NodePools, volume objects) as Decode
// does, except that Deployments, ReplicaSets, StatefulSets and Jobs are not
// expanded into pods (the dump holds their pods; they are skipped with a
// warning), and NodePool budget schedules are checked.
func DecodeCluster(files []File) (Input, error) {
	d := decoder{seen: map[string]string{}, maxPods: MaxPods}
	d.in.Cluster.running = true
	split := make([]splitFile, len(files))
	var docs []*document
	for i, f := range files {
		split[i] = splitDocuments(f)
		for j := range split[i].docs {
			docs = append(docs, &split[i].docs[j])
		}
	}
	convertAll(docs)
	for _, f := range split {
		d.file(f)
	}
	d.finish()
	if len(d.errs) > 0 {
		return d.in, d.errs
	}
	return d.in, nil
}

// RunningCluster returns the input as disruption.Plan takes it.
func (in Input) RunningCluster() disruption.Cluster {
	pods := make([]*corev1.Pod, 0, len(in.BoundPods)+len(in.Pods))
	pods = append(pods, in.BoundPods...)
	pods = append(pods, in.Pods...)
	return disruption.Cluster{
		Nodes: in.Nodes, NodeClaims: in.Cluster.NodeClaims, Pods: pods,
		PodDisruptionBudgets: in.Cluster.PodDisruptionBudgets, DaemonSets: in.DaemonSets,
		PVCs: in.PVCs, PVs: in.PVs, StorageClasses: in.StorageClasses, Namespaces: in.Namespaces,
	}
}

// Locate turns the errors of disruption.Plan into errors that name where
// the object is defined: each *disruption.InputError becomes an *Error
// (others are kept as they are).
func (in Input) Locate(err error) error {
	var parts []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts = j.Unwrap()
	} else {
		parts = []error{err}
	}
	var out Errors
	var other []error
	for _, e := range parts {
		var ie *disruption.InputError
		if !errors.As(e, &ie) {
			other = append(other, e)
			continue
		}
		a, ok := in.Cluster.where[objectKey(ie.Kind, ie.Namespace, ie.Name)]
		if !ok {
			other = append(other, e)
			continue
		}
		cause := errors.New(ie.Message)
		if ie.Field != "" {
			cause = fmt.Errorf("%s: %s", ie.Field, ie.Message)
		}
		out = append(out, &Error{File: a.file, Document: a.doc, Item: a.item, Kind: ie.Kind, Namespace: ie.Namespace, Name: ie.Name, Err: cause})
	}
	if len(other) == 0 {
		return out
	}
	return errors.Join(append(out.Unwrap(), other...)...)
}

func objectKey(kind, namespace, name string) string {
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

// record notes where an object is defined.
func (d *decoder) record(a at, kind, namespace, name string) {
	if d.in.Cluster.where == nil {
		d.in.Cluster.where = map[string]at{}
	}
	key := objectKey(kind, namespace, name)
	if _, ok := d.in.Cluster.where[key]; !ok {
		d.in.Cluster.where[key] = a
	}
}

// node decodes a Node and records where it is.
func (d *decoder) node(a at, h head, data []byte) {
	d.record(a, "Node", "", h.name)
	d.cluster(a, h, data)
}

// nodePoolAt decodes a NodePool, records where it is, and in a running
// cluster checks its budget schedules (a bad one is an error: Karpenter
// would stop disrupting the pool without saying so).
func (d *decoder) nodePoolAt(a at, h head, data []byte) {
	d.record(a, "NodePool", "", h.name)
	before := len(d.in.NodePools)
	d.nodePool(a, h, data)
	if !d.in.Cluster.running || len(d.in.NodePools) == before {
		return
	}
	np := d.in.NodePools[len(d.in.NodePools)-1]
	if np.Spec.Disruption == nil {
		return
	}
	for i, b := range np.Spec.Disruption.Budgets {
		if b.Schedule == nil {
			continue
		}
		if _, err := disruption.ParseSchedule(*b.Schedule); err != nil {
			d.fail(a, field.Invalid(field.NewPath("spec", "disruption", "budgets").Index(i).Child("schedule"), *b.Schedule, err.Error()))
		}
	}
}

// workloadAt decodes a workload, except that a running cluster keeps only
// DaemonSets: the pods of the others are in the dump.
func (d *decoder) workloadAt(a at, h head, data []byte) {
	if d.in.Cluster.running && h.kind != "DaemonSet" {
		d.warn(a, "skipped: a running cluster's pods are read from the dump, not from their %s", h.kind)
		return
	}
	d.workload(a, h, data)
}

// nodeClaim decodes a karpenter.sh/v1 NodeClaim (unknown fields are a
// warning, as for core kinds).
func (d *decoder) nodeClaim(a at, h head, data []byte) {
	nc := &disruption.NodeClaim{}
	if !d.core(a, data, nc, false) || !d.claim(a, "NodeClaim", "", nc.Name) {
		return
	}
	d.record(a, "NodeClaim", "", nc.Name)
	d.in.Cluster.NodeClaims = append(d.in.Cluster.NodeClaims, *nc)
}

// podDisruptionBudget decodes a policy/v1 PodDisruptionBudget; a budget the
// API server rejects (both minAvailable and maxUnavailable, a negative
// count, a percentage above 100%, a bad selector) is an error.
func (d *decoder) podDisruptionBudget(a at, h head, data []byte) {
	b := &policyv1.PodDisruptionBudget{}
	if !d.core(a, data, b, true) {
		return
	}
	if errs := apicheck.PodDisruptionBudgetSpec(field.NewPath("spec"), &b.Spec); len(errs) > 0 {
		d.failAll(a, errs)
		return
	}
	if !d.claim(a, "PodDisruptionBudget", b.Namespace, b.Name) {
		return
	}
	d.record(a, "PodDisruptionBudget", b.Namespace, b.Name)
	d.in.Cluster.PodDisruptionBudgets = append(d.in.Cluster.PodDisruptionBudgets, b)
}
