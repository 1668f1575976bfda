package disruption

import (
	"math"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// pod is one pod of the model with the facts consolidation derives from
// it once. The *corev1.Pod is shared with the input (never written); a pod
// that moves gets a copy.
type pod struct {
	obj  *corev1.Pod
	key  string // namespace/name
	ns   string
	node string // "" when pending

	daemon      bool // owned by a DaemonSet
	mirror      bool // owned by its Node (a static pod)
	statefulSet bool
	terminal    bool // Succeeded or Failed
	terminating bool // deletionTimestamp set
	// tolerates the karpenter.sh/disruption=disrupting:NoSchedule taint
	toleratesDisruption bool
	// evictionCost is Karpenter's EvictionCost (A.1).
	evictionCost float64
	// dnd is the do-not-disrupt annotation: dndNone, dndAlways or a
	// positive duration.
	dnd      doNotDisrupt
	dndFor   time.Duration
	started  *time.Time
	priority int32
	// loose and tolerant are copies for Solve (see unbound), slimObj
	// another (see slim).
	loose, tolerant, slimObj *corev1.Pod
	// boundCopies are slimObj bound to other nodes, by node (see boundTo).
	boundCopies map[string]*corev1.Pod
	req         corev1.ResourceList // see requests
	// anti are the pod's required anti-affinity terms, once antiKnown
	// (see antiTerms).
	anti      []antiTerm
	antiKnown bool
	placeReq  corev1.ResourceList // see placeRequests
	// placeV is placeReq as a vec (ok: placeOK), once placeKnown (see
	// placeVec).
	placeV              vec
	placeOK, placeKnown bool
	admitKey            string // see classKey
	like                string // see likeKey
	// pdbs are the budgets that match the pod, once pdbsKnown (budgets).
	pdbs      []*pdb
	pdbsKnown bool
	// vol are the node requirements of the pod's volumes, as
	// alternatives (nil: none), once volKnown (see volumeAlts).
	vol      []requirements.Requirements
	volKnown bool
	// relMark is relevant's mark (selindex.go).
	relMark int

	// antiZone: every required anti-affinity term's key is the zone or
	// the hostname, once antiZoneKnown (see antiByZone).
	antiZone, antiZoneKnown bool
	// repelled is model.repelled's answer at model version repelledAt-1.
	repelled   bool
	repelledAt int
	// zoneSpreads, once zoneSpreadsKnown, are the pod's (spreadzones.go).
	zoneSpreads      []zoneSpread
	zoneSpreadsKnown bool
}

type doNotDisrupt int

const (
	dndNone doNotDisrupt = iota
	dndAlways
	dndDuration
)

func newPod(p *corev1.Pod) *pod {
	out := &pod{obj: p, key: podKey(p), ns: p.Namespace, node: p.Spec.NodeName}
	if out.ns == "" {
		out.ns = corev1.NamespaceDefault
	}
	for _, o := range p.OwnerReferences {
		switch {
		case o.APIVersion == "apps/v1" && o.Kind == "DaemonSet":
			out.daemon = true
		case o.APIVersion == "apps/v1" && o.Kind == "StatefulSet":
			out.statefulSet = true
		case o.APIVersion == "v1" && o.Kind == "Node":
			out.mirror = true
		}
	}
	out.terminal = p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
	out.terminating = p.DeletionTimestamp != nil
	out.toleratesDisruption = requirements.Tolerates(p.Spec.Tolerations, &corev1.Taint{
		Key: "karpenter.sh/disruption", Value: "disrupting", Effect: corev1.TaintEffectNoSchedule})
	out.evictionCost = evictionCost(p)
	out.dnd, out.dndFor = parseDoNotDisrupt(p.Annotations[AnnotationDoNotDisrupt])
	if p.Status.StartTime != nil {
		t := p.Status.StartTime.Time
		out.started = &t
	}
	if p.Spec.Priority != nil {
		out.priority = *p.Spec.Priority
	}
	return out
}

func podKey(p *corev1.Pod) string {
	ns := p.Namespace
	if ns == "" {
		ns = corev1.NamespaceDefault
	}
	return ns + "/" + p.Name
}

// parseDoNotDisrupt reads the pod annotation: "true" always protects, a
// positive Go duration protects that long after the pod started, anything
// else ("false", "banana", "-5m") is as if absent (Karpenter emits an
// InvalidDoNotDisruptAnnotation event).
func parseDoNotDisrupt(v string) (doNotDisrupt, time.Duration) {
	if v == "true" {
		return dndAlways, 0
	}
	if v == "" {
		return dndNone, 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return dndNone, 0
	}
	return dndDuration, d
}

// evictionCost is 1, plus pod-deletion-cost / 2^27, plus priority / 2^25,
// clamped to [-10, 10] (an unparsable deletion cost is ignored).
func evictionCost(p *corev1.Pod) float64 {
	cost := 1.0
	if s, ok := p.Annotations[AnnotationPodDeletionCost]; ok {
		if c, err := strconv.ParseFloat(s, 64); err == nil {
			cost += c / math.Pow(2, 27)
		}
	}
	if p.Spec.Priority != nil {
		cost += float64(*p.Spec.Priority) / math.Pow(2, 25)
	}
	return min(max(cost, -10), 10)
}

// active: neither terminal nor terminating.
func (p *pod) active() bool { return !p.terminal && !p.terminating }

// reschedulable: Karpenter re-creates it elsewhere when its node goes
// (active, or a terminating StatefulSet pod; never a DaemonSet or mirror
// pod).
func (p *pod) reschedulable() bool {
	return (p.active() || (p.statefulSet && p.terminating)) && !p.daemon && !p.mirror
}

// doNotDisruptUntil reports whether the do-not-disrupt annotation is
// active at now, and until when (nil: for ever).
func (p *pod) doNotDisruptUntil(now time.Time) (bool, *time.Time) {
	switch p.dnd {
	case dndAlways:
		return true, nil
	case dndDuration:
		if p.started == nil {
			return true, nil // no start time: fail safe
		}
		until := p.started.Add(p.dndFor)
		return now.Before(until), &until
	}
	return false, nil
}

// disruptable: not protected by an active do-not-disrupt (inactive pods
// never are).
func (p *pod) disruptable(now time.Time) bool {
	if !p.active() {
		return true
	}
	on, _ := p.doNotDisruptUntil(now)
	return !on
}

// evictable: what PodDisruptionBudget checks look at.
func (p *pod) evictable(now time.Time) bool {
	return p.active() && !p.toleratesDisruption && !p.mirror && p.disruptable(now)
}

// ready reports whether the pod's Ready condition is not False.
func (p *pod) unready() bool {
	for _, c := range p.obj.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse {
			return true
		}
	}
	return false
}
