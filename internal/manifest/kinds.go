package manifest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/apicheck"
	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/internal/strictjson"
)

// kind is how one kind of object is decoded.
type kind struct {
	// apiVersions are the apiVersions the kind is expected under, the
	// preferred one first; another apiVersion draws a warning. None means
	// the decoder checks the apiVersion itself.
	apiVersions []string
	namespaced  bool
	decode      func(d *decoder, a at, h head, data []byte)
}

// kindOf returns how to decode a kind of the input format.
func kindOf(name string) (kind, bool) {
	switch name {
	case "Pod":
		return kind{[]string{"v1"}, true, (*decoder).pod}, true
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
		return kind{[]string{"apps/v1"}, true, (*decoder).workloadAt}, true
	case "Job":
		return kind{[]string{"batch/v1"}, true, (*decoder).workloadAt}, true
	case "NodePool":
		return kind{nil, false, (*decoder).nodePoolAt}, true
	case "Node":
		return kind{[]string{"v1"}, false, (*decoder).node}, true
	case "NodeClaim":
		return kind{[]string{"karpenter.sh/v1"}, false, (*decoder).nodeClaim}, true
	case "PodDisruptionBudget":
		return kind{[]string{"policy/v1"}, true, (*decoder).podDisruptionBudget}, true
	case "PersistentVolume", "Namespace":
		return kind{[]string{"v1"}, false, (*decoder).cluster}, true
	case "PersistentVolumeClaim":
		return kind{[]string{"v1"}, true, (*decoder).cluster}, true
	case "StorageClass":
		return kind{[]string{"storage.k8s.io/v1", "storage.k8s.io/v1beta1"}, false, (*decoder).cluster}, true
	}
	return kind{}, false
}

// object is a decoded core object.
type object interface {
	metav1.Object
}

// core decodes a core kind: a value that does not decode is an error, an
// unknown or duplicate field a warning (kubectl accepts both). The name is
// required; the namespace of a namespaced kind defaults to "default".
func (d *decoder) core(a at, data []byte, obj object, namespaced bool) bool {
	strict, fatal := strictjson.Unmarshal(data, obj)
	if len(fatal) > 0 {
		d.failAll(a, fatal)
		return false
	}
	for _, e := range strict {
		d.warn(a, "%s (ignored)", e.Error())
	}
	if obj.GetName() == "" {
		d.fail(a, field.Required(field.NewPath("metadata", "name"), "every object needs a name"))
		return false
	}
	if namespaced {
		if obj.GetNamespace() == "" {
			obj.SetNamespace(kube.DefaultNamespace)
		}
	} else {
		obj.SetNamespace("")
	}
	return true
}

func (d *decoder) pod(a at, _ head, data []byte) {
	p := &corev1.Pod{}
	if !d.core(a, data, p, true) {
		return
	}
	if errs := apicheck.Pod(p); len(errs) > 0 {
		d.failAll(a, errs)
		return
	}
	if !d.claim(a, "Pod", p.Namespace, p.Name) {
		return
	}
	switch {
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		d.warn(a, "skipped: the pod has finished (phase %s)", p.Status.Phase)
	case p.Spec.NodeName != "":
		d.in.BoundPods = append(d.in.BoundPods, p)
	case ownedBy(p, "DaemonSet"):
		d.warn(a, "skipped: a pending DaemonSet pod (give the DaemonSet itself; it counts as overhead on every new node)")
	case len(d.in.Pods) >= d.maxPods:
		d.fail(a, fmt.Errorf("the input may hold at most %d pods", d.maxPods))
	default:
		d.in.Pods = append(d.in.Pods, p)
	}
}

// valid reports whether errs is empty, reporting each error otherwise.
func (d *decoder) valid(a at, errs field.ErrorList) bool {
	d.failAll(a, errs)
	return len(errs) == 0
}

func ownedBy(p *corev1.Pod, kind string) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == kind && o.Controller != nil && *o.Controller {
			return true
		}
	}
	return false
}

// cluster decodes the kinds that describe the cluster rather than work to
// place: nodes, volumes, storage classes and namespaces.
func (d *decoder) cluster(a at, h head, data []byte) {
	switch h.kind {
	case "Node":
		n := &corev1.Node{}
		if d.core(a, data, n, false) && d.valid(a, apicheck.Node(n)) && d.claim(a, h.kind, "", n.Name) {
			d.in.Nodes = append(d.in.Nodes, n)
		}
	case "PersistentVolume":
		d.persistentVolume(a, data)
	case "PersistentVolumeClaim":
		pvc := &corev1.PersistentVolumeClaim{}
		if d.core(a, data, pvc, true) && d.claim(a, h.kind, pvc.Namespace, pvc.Name) {
			d.in.PVCs = append(d.in.PVCs, pvc)
		}
	case "StorageClass":
		sc := &storagev1.StorageClass{}
		if d.core(a, data, sc, false) && d.claim(a, h.kind, "", sc.Name) {
			d.in.StorageClasses = append(d.in.StorageClasses, sc)
		}
	case "Namespace":
		ns := &corev1.Namespace{}
		if d.core(a, data, ns, false) && d.valid(a, apicheck.Labels(field.NewPath("metadata", "labels"), ns.Labels)) && d.claim(a, h.kind, "", ns.Name) {
			d.in.Namespaces = append(d.in.Namespaces, ns)
		}
	}
}

func (d *decoder) persistentVolume(a at, data []byte) {
	pv := &corev1.PersistentVolume{}
	if !d.core(a, data, pv, false) {
		return
	}
	if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil {
		if errs := apicheck.NodeSelector(field.NewPath("spec", "nodeAffinity", "required"), na.Required); len(errs) > 0 {
			d.failAll(a, errs)
			return
		}
	}
	if d.claim(a, "PersistentVolume", "", pv.Name) {
		d.in.PVs = append(d.in.PVs, pv)
	}
}
