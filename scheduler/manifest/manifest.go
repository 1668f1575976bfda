package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	imanifest "github.com/nodeplan/nodeplan/internal/manifest"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// File is one input file: its name (used in errors, and to tell a JSON
// stream, named *.json or *.json.gz, from YAML) and its bytes, decompressed.
type File = imanifest.File

// Error is one problem in the input: the file, the document (1-based), the
// item of a List, the object and the cause, usually a *field.Error naming
// the field. It reads as
//
//	pods.yaml: document 2 (Pod default/web): spec.containers[0].resources.requests.cpu: Invalid value: "-1": must not be negative
type Error = imanifest.Error

// Errors is every problem Decode found, in input order; Error joins them one
// per line, and errors.As finds each *Error.
type Errors = imanifest.Errors

// MaxPods bounds the pending pods an input may hold, so that a typo in
// replicas cannot exhaust memory.
const MaxPods = imanifest.MaxPods

// Input is everything the manifests hold, in input order (files in the order
// given, documents in file order, workload pods by ordinal): the pending pods
// and NodePools Solve takes, and the cluster state [Input.Options] hands it.
type Input struct {
	// Pods are the pending pods to place: Pods without spec.nodeName, and
	// the pods of Deployments, ReplicaSets, StatefulSets and Jobs
	// (NAME-0, NAME-1, ...).
	Pods []*corev1.Pod
	// BoundPods are pods with spec.nodeName, already running on a node.
	BoundPods      []*corev1.Pod
	Nodes          []*corev1.Node
	NodePools      []nodepool.NodePool
	DaemonSets     []*appsv1.DaemonSet
	PVCs           []*corev1.PersistentVolumeClaim
	PVs            []*corev1.PersistentVolume
	StorageClasses []*storagev1.StorageClass
	Namespaces     []*corev1.Namespace
	// Warnings are the things skipped or guessed (an unknown kind, an
	// unknown field of a core kind, a pod bound to a node not in the input),
	// one line each, in input order.
	Warnings []string
}

// Decode reads every document of every file. The error, when not nil, is an
// [Errors] listing every problem; the Input then holds what could be decoded
// and must not be solved.
func Decode(files []File) (Input, error) {
	in, err := imanifest.Decode(files)
	return fromInternal(in), err
}

func fromInternal(in imanifest.Input) Input {
	return Input{
		Pods:           in.Pods,
		BoundPods:      in.BoundPods,
		Nodes:          in.Nodes,
		NodePools:      in.NodePools,
		DaemonSets:     in.DaemonSets,
		PVCs:           in.PVCs,
		PVs:            in.PVs,
		StorageClasses: in.StorageClasses,
		Namespaces:     in.Namespaces,
		Warnings:       in.Warnings,
	}
}

// Options returns the scheduler options that carry the input's cluster
// state: existing nodes and their pods, DaemonSets, volumes and namespaces.
// Add policies after them:
//
//	opts := append(in.Options(), scheduler.WithPreferencePolicy(scheduler.PreferenceIgnore))
func (in Input) Options() []scheduler.Option {
	var opts []scheduler.Option
	if len(in.Nodes) > 0 || len(in.BoundPods) > 0 {
		opts = append(opts, scheduler.WithExistingNodes(in.Nodes, in.BoundPods))
	}
	if len(in.DaemonSets) > 0 {
		opts = append(opts, scheduler.WithDaemonSets(in.DaemonSets))
	}
	if len(in.PVCs) > 0 || len(in.PVs) > 0 || len(in.StorageClasses) > 0 {
		opts = append(opts, scheduler.WithVolumes(in.PVCs, in.PVs, in.StorageClasses))
	}
	if len(in.Namespaces) > 0 {
		opts = append(opts, scheduler.WithNamespaces(in.Namespaces))
	}
	return opts
}

// Solve plans the input's pending pods on catalog: scheduler.Solve with the
// input's pods, NodePools and [Input.Options], then opts.
func (in Input) Solve(catalog instancetypes.Catalog, opts ...scheduler.Option) (scheduler.Result, error) {
	return scheduler.Solve(in.Pods, in.NodePools, catalog, append(in.Options(), opts...)...)
}
