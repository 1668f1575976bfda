package manifest

import (
	"fmt"
	"maps"
	"runtime"
	"sync"
	"sync/atomic"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/apicheck"
)

// workload is what the expansion needs of a Deployment, ReplicaSet,
// StatefulSet or Job.
type workload struct {
	apiVersion string
	kind       string
	meta       *metav1.ObjectMeta
	replicas   int32
	// replicasField names the field replicas came from, for errors.
	replicasField *field.Path
	selector      *metav1.LabelSelector
	template      *corev1.PodTemplateSpec
	claims        []corev1.PersistentVolumeClaim
}

// workload decodes a Deployment, ReplicaSet, StatefulSet, Job or DaemonSet.
// A DaemonSet is kept as it is (overhead on new nodes); the others become
// pending pods (see expand).
func (d *decoder) workload(a at, h head, data []byte) {
	obj := workloadObject(h.kind)
	if !d.core(a, data, obj, true) {
		return
	}
	w := workloadOf(obj)
	w.kind = h.kind
	if errs := d.checkWorkload(w); len(errs) > 0 {
		d.failAll(a, errs)
		return
	}
	if !d.claim(a, h.kind, w.meta.Namespace, w.meta.Name) {
		return
	}
	if ds, ok := obj.(*appsv1.DaemonSet); ok {
		d.in.DaemonSets = append(d.in.DaemonSets, ds)
		return
	}
	d.expand(a, w)
}

// workloadObject returns an empty object of a workload kind (Deployment,
// ReplicaSet, StatefulSet, Job or DaemonSet) to decode into.
func workloadObject(kind string) object {
	switch kind {
	case "Deployment":
		return &appsv1.Deployment{}
	case "ReplicaSet":
		return &appsv1.ReplicaSet{}
	case "StatefulSet":
		return &appsv1.StatefulSet{}
	case "Job":
		return &batchv1.Job{}
	case "DaemonSet":
		return &appsv1.DaemonSet{}
	}
	return nil // not a workload kind: kinds.go routes only the five here
}

// workloadOf reads what the expansion needs of a decoded workload (all but
// its kind): a Job runs min(parallelism, completions) pods at once, and a
// DaemonSet has no replicas.
func workloadOf(obj object) workload {
	spec := field.NewPath("spec")
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return workload{apiVersion: "apps/v1", meta: &o.ObjectMeta, replicas: deref(o.Spec.Replicas, 1), replicasField: spec.Child("replicas"),
			selector: o.Spec.Selector, template: &o.Spec.Template}
	case *appsv1.ReplicaSet:
		return workload{apiVersion: "apps/v1", meta: &o.ObjectMeta, replicas: deref(o.Spec.Replicas, 1), replicasField: spec.Child("replicas"),
			selector: o.Spec.Selector, template: &o.Spec.Template}
	case *appsv1.StatefulSet:
		return workload{apiVersion: "apps/v1", meta: &o.ObjectMeta, replicas: deref(o.Spec.Replicas, 1), replicasField: spec.Child("replicas"),
			selector: o.Spec.Selector, template: &o.Spec.Template, claims: o.Spec.VolumeClaimTemplates}
	case *batchv1.Job:
		w := workload{apiVersion: "batch/v1", meta: &o.ObjectMeta, replicas: deref(o.Spec.Parallelism, 1), replicasField: spec.Child("parallelism"),
			selector: o.Spec.Selector, template: &o.Spec.Template}
		if c := o.Spec.Completions; c != nil && *c < w.replicas {
			w.replicas, w.replicasField = *c, spec.Child("completions")
		}
		return w
	case *appsv1.DaemonSet:
		return workload{apiVersion: "apps/v1", meta: &o.ObjectMeta, selector: o.Spec.Selector, template: &o.Spec.Template}
	}
	return workload{}
}

// checkWorkload validates a workload as the API server would (selector,
// template labels, pod spec, replicas not negative), and that its pods
// stay within the input's maximum.
func (d *decoder) checkWorkload(w workload) field.ErrorList {
	spec := field.NewPath("spec")
	errs := apicheck.LabelSelector(spec.Child("selector"), w.selector)
	errs = append(errs, apicheck.Labels(spec.Child("template", "metadata", "labels"), w.template.Labels)...)
	errs = append(errs, apicheck.PodSpec(spec.Child("template", "spec"), &w.template.Spec)...)
	switch {
	case w.replicas < 0:
		errs = append(errs, field.Invalid(w.replicasField, w.replicas, "must not be negative"))
	case len(d.in.Pods)+int(w.replicas) > d.maxPods:
		errs = append(errs, field.Invalid(w.replicasField, w.replicas, fmt.Sprintf("the input may hold at most %d pods", d.maxPods)))
	}
	return errs
}

// expand adds the pods a workload's controller would create: pending pods
// NAME-0, NAME-1, ... in the workload's namespace, each with the template's
// labels and annotations, a deep copy of its spec, and the workload as its
// controller owner.
//
// A StatefulSet's volumeClaimTemplates become claims
// "<template>-<name>-<ordinal>" (as its controller names them), mounted by
// the pod as a volume named after the template unless the template already
// has a volume of that name; a claim the input defines itself is used
// instead of a new one.
func (d *decoder) expand(a at, w workload) {
	pods := replicas(w)
	for i, p := range pods {
		for _, t := range w.claims {
			claim := fmt.Sprintf("%s-%s-%d", t.Name, w.meta.Name, i)
			d.claims = append(d.claims, &corev1.PersistentVolumeClaim{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
				ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: w.meta.Namespace, Labels: maps.Clone(t.Labels)},
				Spec:       *t.Spec.DeepCopy(),
			})
			if !hasVolume(p.Spec.Volumes, t.Name) {
				p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
			}
		}
		if d.claim(a, "Pod", p.Namespace, p.Name) {
			d.in.Pods = append(d.in.Pods, p)
		}
	}
}

// replicas builds a workload's pods (each a deep copy of the template) on
// all CPUs: pod i is built by one worker only, from the workload alone.
func replicas(w workload) []*corev1.Pod {
	controller := true
	owner := metav1.OwnerReference{APIVersion: w.apiVersion, Kind: w.kind, Name: w.meta.Name, Controller: &controller}
	pods := make([]*corev1.Pod, w.replicas)
	build := func(from, to int) {
		for i := from; i < to; i++ {
			pods[i] = &corev1.Pod{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{
					Name:            fmt.Sprintf("%s-%d", w.meta.Name, i),
					Namespace:       w.meta.Namespace,
					Labels:          maps.Clone(w.template.Labels),
					Annotations:     maps.Clone(w.template.Annotations),
					OwnerReferences: []metav1.OwnerReference{owner},
				},
				Spec: *w.template.Spec.DeepCopy(),
			}
		}
	}
	const chunk = 1024
	workers := min(runtime.GOMAXPROCS(0), (len(pods)+chunk-1)/chunk)
	if workers <= 1 {
		build(0, len(pods))
		return pods
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for from := int(next.Add(chunk)) - chunk; from < len(pods); from = int(next.Add(chunk)) - chunk {
				build(from, min(len(pods), from+chunk))
			}
		})
	}
	wg.Wait()
	return pods
}

func hasVolume(vs []corev1.Volume, name string) bool {
	for _, v := range vs {
		if v.Name == name {
			return true
		}
	}
	return false
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
