package scheduler

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/nodeplan/nodeplan/internal/podrequests"
)

// Live DaemonSet pods (B-151). What a DaemonSet costs a node is what its
// pods ask for once admitted, which may differ from its template: a
// LimitRange can lower or raise the requests of every pod it admits. When a
// bound pod of the input is controlled by a DaemonSet and asks for other
// requests than its template, the DaemonSet is charged as that pod asks (the
// live pod's containers, init containers and overhead), as Karpenter does;
// the template keeps deciding where the DaemonSet runs (its node affinity,
// not the live pod's per-node hostname affinity, and its tolerations). Of
// several live pods, the first by name stands for them.

// withLiveDaemonPods returns c.daemonSets with each DaemonSet whose live pod
// asks for other requests than its template replaced by a copy that asks as
// that pod does (made once per DaemonSet and pod when c has a Memo); the
// slice itself when none is.
func (c *config) withLiveDaemonPods() []*appsv1.DaemonSet {
	if len(c.daemonSets) == 0 || len(c.boundPods) == 0 {
		return c.daemonSets
	}
	var out []*appsv1.DaemonSet
	for i, ds := range c.daemonSets {
		p := liveDaemonPod(ds, c.boundPods)
		if p == nil || equality.Semantic.DeepEqual(podrequests.Of(&p.Spec), podrequests.Of(&ds.Spec.Template.Spec)) {
			continue
		}
		if out == nil {
			out = append([]*appsv1.DaemonSet(nil), c.daemonSets...)
		}
		out[i] = c.memo.liveDaemonSet(ds, p)
	}
	if out == nil {
		return c.daemonSets
	}
	return out
}

// liveDaemonPod is the first by name of the bound pods that ds controls and
// that still run (not terminating, not finished); nil when none.
func liveDaemonPod(ds *appsv1.DaemonSet, pods []*corev1.Pod) *corev1.Pod {
	var live *corev1.Pod
	for _, p := range pods {
		if p.Namespace != ds.Namespace || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if !ownedByDaemonSet(p, ds.Name) {
			continue
		}
		if live == nil || strings.Compare(p.Name, live.Name) < 0 {
			live = p
		}
	}
	return live
}

// ownedByDaemonSet reports whether an owner reference of p names the
// DaemonSet called name.
func ownedByDaemonSet(p *corev1.Pod, name string) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Name == name {
			return true
		}
	}
	return false
}

// liveDaemonSet is ds asking for what p asks for, made once per DaemonSet
// and pod when there is a Memo (so that what the Memo keeps by DaemonSet
// object serves every Solve).
func (m *Memo) liveDaemonSet(ds *appsv1.DaemonSet, p *corev1.Pod) *appsv1.DaemonSet {
	if m == nil {
		return liveDaemonSet(ds, p)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := liveKey{ds, p}
	if c, ok := m.live[k]; ok {
		return c
	}
	if m.live == nil {
		m.live = map[liveKey]*appsv1.DaemonSet{}
	}
	c := liveDaemonSet(ds, p)
	m.live[k] = c
	return c
}

// liveKey names a DaemonSet and the live pod that stands for it.
type liveKey struct {
	ds  *appsv1.DaemonSet
	pod *corev1.Pod
}

// liveDaemonSet is ds asking for what p asks for.
func liveDaemonSet(ds *appsv1.DaemonSet, p *corev1.Pod) *appsv1.DaemonSet {
	c := *ds
	c.Spec.Template.Spec.Containers = p.Spec.Containers
	c.Spec.Template.Spec.InitContainers = p.Spec.InitContainers
	c.Spec.Template.Spec.Overhead = p.Spec.Overhead
	return &c
}

// LiveDaemonSets returns daemonSets with each DaemonSet whose live pod (a
// pod of pods bound to a node, owned by it and still running) asks for
// other requests than its template replaced by a copy asking as that pod
// does, as Solve charges it (B-151); the slice itself when none is. For a
// caller that charges DaemonSets itself, as disruption's views do.
func LiveDaemonSets(daemonSets []*appsv1.DaemonSet, pods []*corev1.Pod) []*appsv1.DaemonSet {
	var bound []*corev1.Pod
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			bound = append(bound, p)
		}
	}
	c := config{daemonSets: daemonSets, boundPods: bound}
	return c.withLiveDaemonPods()
}
