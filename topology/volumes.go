package topology

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/requirements"
)

// Volumes resolves a pod's persistent volume claims to the node
// requirements their volumes impose (volume topology).
type Volumes struct {
	schema  requirements.Schema
	pvcs    map[string]*corev1.PersistentVolumeClaim
	pvs     map[string]*corev1.PersistentVolume
	classes map[string]*storagev1.StorageClass
	dflt    *storagev1.StorageClass
}

// NewVolumes indexes claims (by namespace/name), volumes and storage classes.
func NewVolumes(schema requirements.Schema, pvcs []*corev1.PersistentVolumeClaim, pvs []*corev1.PersistentVolume, classes []*storagev1.StorageClass) *Volumes {
	v := &Volumes{schema: schema, pvcs: map[string]*corev1.PersistentVolumeClaim{},
		pvs: map[string]*corev1.PersistentVolume{}, classes: map[string]*storagev1.StorageClass{}}
	for _, c := range pvcs {
		v.pvcs[kube.Key(c.Namespace, c.Name)] = c
	}
	for _, p := range pvs {
		v.pvs[p.Name] = p
	}
	names := make([]string, 0, len(classes))
	for _, c := range classes {
		v.classes[c.Name] = c
		names = append(names, c.Name)
	}
	slices.Sort(names)
	for _, n := range names { // the first default class by name, deterministically
		c := v.classes[n]
		if c.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" {
			v.dflt = c
			break
		}
	}
	return v
}

// VolumeError says why a pod's volumes cannot be placed.
type VolumeError struct {
	Pod     string
	Claim   string
	Message string
}

func (e *VolumeError) Error() string {
	if e.Claim == "" {
		return e.Message
	}
	return fmt.Sprintf("volume claim %s: %s", e.Claim, e.Message)
}

// For returns the node requirements the pod's volumes impose, as
// alternatives (any one of them suffices; a nil result means no
// constraint). Each volume contributes its alternatives (a bound volume's
// node-affinity terms, or an unbound claim's StorageClass allowedTopologies
// under WaitForFirstConsumer); across volumes the alternatives combine by
// intersection, and combinations that cannot hold are dropped.
func (v *Volumes) For(pod *corev1.Pod) ([]requirements.Requirements, error) {
	ns := kube.Namespace(pod.Namespace)
	var alts []requirements.Requirements
	constrained := false
	for _, vol := range pod.Spec.Volumes {
		var claimName string
		var ephemeralClass *string
		switch {
		case vol.PersistentVolumeClaim != nil:
			claimName = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			claimName = pod.Name + "-" + vol.Name
			if t := vol.Ephemeral.VolumeClaimTemplate; t != nil {
				ephemeralClass = t.Spec.StorageClassName
				if ephemeralClass == nil {
					empty := ""
					ephemeralClass = &empty
				}
			}
		default:
			continue
		}
		volAlts, err := v.claim(ns, claimName, ephemeralClass)
		if err != nil {
			return nil, err
		}
		if volAlts == nil {
			continue
		}
		if !constrained {
			alts, constrained = volAlts, true
			continue
		}
		var next []requirements.Requirements
		for _, a := range alts {
			for _, b := range volAlts {
				c := a.Intersect(b)
				if _, empty := c.Empty(); !empty {
					next = append(next, c)
				}
			}
		}
		if len(next) == 0 {
			return nil, &VolumeError{Message: fmt.Sprintf("the topologies of the pod's volumes do not intersect (%s)", describeAlts(alts, volAlts))}
		}
		alts = next
	}
	return alts, nil
}

func describeAlts(a, b []requirements.Requirements) string {
	return fmt.Sprintf("%v vs %v", stringsOf(a), stringsOf(b))
}

func stringsOf(rs []requirements.Requirements) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}

// claim returns the alternatives of one claim (nil: unconstrained).
func (v *Volumes) claim(ns, name string, ephemeralClass *string) ([]requirements.Requirements, error) {
	id := ns + "/" + name
	pvc, ok := v.pvcs[id]
	if !ok && ephemeralClass == nil {
		return nil, &VolumeError{Claim: id, Message: "not found"}
	}
	var volumeName string
	var className *string
	if ok {
		if pvc.DeletionTimestamp != nil {
			return nil, &VolumeError{Claim: id, Message: "is being deleted"}
		}
		if pvc.Status.Phase == corev1.ClaimLost {
			return nil, &VolumeError{Claim: id, Message: "is Lost"}
		}
		volumeName = pvc.Spec.VolumeName
		className = pvc.Spec.StorageClassName
	} else {
		className = ephemeralClass
	}
	if volumeName != "" {
		pv, ok := v.pvs[volumeName]
		if !ok {
			return nil, &VolumeError{Claim: id, Message: fmt.Sprintf("bound volume %s not found", volumeName)}
		}
		return v.volumeAffinity(id, pv)
	}
	var sc *storagev1.StorageClass
	if className != nil && *className != "" {
		sc, ok = v.classes[*className]
		if !ok {
			return nil, &VolumeError{Claim: id, Message: fmt.Sprintf("storage class %q not found", *className)}
		}
	} else if sc = v.dflt; sc == nil {
		return nil, &VolumeError{Claim: id, Message: "is unbound and has no storage class (and there is no default storage class)"}
	}
	if sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		return nil, &VolumeError{Claim: id, Message: fmt.Sprintf("is unbound and storage class %q binds Immediately: the volume must be bound before the pod can be placed", sc.Name)}
	}
	return v.allowedTopologies(id, sc)
}

func (v *Volumes) allowedTopologies(id string, sc *storagev1.StorageClass) ([]requirements.Requirements, error) {
	var alts []requirements.Requirements
	for i, term := range sc.AllowedTopologies {
		var reqs []requirements.Requirement
		for j, e := range term.MatchLabelExpressions {
			key := v.schema.Normalize(e.Key)
			if key == requirements.LabelTopologyRegion {
				return nil, &VolumeError{Claim: id, Message: fmt.Sprintf("storage class %q: allowedTopologies[%d].matchLabelExpressions[%d]: topology key %s is not supported for volume topology; use topology.kubernetes.io/zone (an out-of-tree CSI driver)", sc.Name, i, j, e.Key)}
			}
			r, err := requirements.New(key, requirements.OpIn, e.Values...)
			if err != nil {
				return nil, &VolumeError{Claim: id, Message: fmt.Sprintf("storage class %q: %v", sc.Name, err)}
			}
			reqs = append(reqs, r)
		}
		if len(reqs) > 0 {
			alts = append(alts, requirements.NewRequirements(reqs...))
		}
	}
	return alts, nil
}

// volumeAffinity turns a bound volume's node affinity into alternatives.
// Local and hostPath volumes are pinned to a node by hostname; that part is
// ignored (the node they name may be the one being replaced).
func (v *Volumes) volumeAffinity(id string, pv *corev1.PersistentVolume) ([]requirements.Requirements, error) {
	if pv.DeletionTimestamp != nil {
		return nil, &VolumeError{Claim: id, Message: fmt.Sprintf("bound volume %s is being deleted", pv.Name)}
	}
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil {
		return nil, nil
	}
	local := pv.Spec.Local != nil || pv.Spec.HostPath != nil
	var alts []requirements.Requirements
	for i, term := range na.Required.NodeSelectorTerms {
		exprs := slices.Clone(term.MatchExpressions)
		if local {
			exprs = slices.DeleteFunc(exprs, func(e corev1.NodeSelectorRequirement) bool { return e.Key == requirements.LabelHostname })
		}
		rs, err := v.schema.FromNodeSelectorRequirements(field.NewPath("persistentVolume", pv.Name, "spec", "nodeAffinity", "required", "nodeSelectorTerms").Index(i).Child("matchExpressions"), exprs)
		if err != nil {
			return nil, &VolumeError{Claim: id, Message: err.Error()}
		}
		if rs.Len() == 0 {
			return nil, nil // an unconstrained alternative makes the volume unconstrained
		}
		alts = append(alts, rs)
	}
	return alts, nil
}

// Claim describes a claim (namespace/name) for pods that share it: key is
// its name when known ("" otherwise), rwo whether its volume attaches to one
// node at a time (ReadWriteOnce), bound whether a volume is bound to it.
func (v *Volumes) Claim(id string) (key string, rwo, bound bool) {
	pvc, ok := v.pvcs[id]
	if !ok {
		return "", false, false
	}
	for _, m := range pvc.Spec.AccessModes {
		if m == corev1.ReadWriteOnce || m == corev1.ReadWriteOncePod {
			rwo = true
		}
	}
	return id, rwo, pvc.Spec.VolumeName != ""
}
