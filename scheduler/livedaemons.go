package scheduler

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/nodeplan/nodeplan/internal/kube"
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
// that pod does (judged and made once per DaemonSet and pod when c has a
// Memo); the slice itself when none is.
func (c *config) withLiveDaemonPods() []*appsv1.DaemonSet {
	if len(c.daemonSets) == 0 || len(c.boundPods) == 0 {
		return c.daemonSets
	}
	live := liveDaemonPods(c.boundPods)
	if len(live) == 0 {
		return c.daemonSets
	}
	var out []*appsv1.DaemonSet
	for i, ds := range c.daemonSets {
		p := live[dsKey{ds.Namespace, ds.Name}]
		if p == nil {
			continue
		}
		charged := c.memo.liveDaemonSet(ds, p)
		if charged == ds {
			continue
		}
		if out == nil {
			out = slices.Clone(c.daemonSets)
		}
		out[i] = charged
	}
	if out == nil {
		return c.daemonSets
	}
	return out
}

// dsKey names a DaemonSet: namespace and name.
type dsKey struct{ namespace, name string }

// liveDaemonPods maps each DaemonSet that owns a pod of pods still running
// (not terminating, not finished) to the first such pod by name.
func liveDaemonPods(pods []*corev1.Pod) map[dsKey]*corev1.Pod {
	var live map[dsKey]*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, name := range kube.DaemonSetOwners(p) {
			k := dsKey{p.Namespace, name}
			if prev := live[k]; prev == nil || p.Name < prev.Name {
				if live == nil {
					live = map[dsKey]*corev1.Pod{}
				}
				live[k] = p
			}
		}
	}
	return live
}

// liveDaemonSet is chargedAs(ds, p), made once per DaemonSet and pod when
// there is a Memo (so that what the Memo keeps by DaemonSet object serves
// every Solve).
func (m *Memo) liveDaemonSet(ds *appsv1.DaemonSet, p *corev1.Pod) *appsv1.DaemonSet {
	if m == nil {
		return chargedAs(ds, p)
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
	c := chargedAs(ds, p)
	m.live[k] = c
	return c
}

// liveKey names a DaemonSet and the live pod that stands for it.
type liveKey struct {
	ds  *appsv1.DaemonSet
	pod *corev1.Pod
}

// chargedAs is ds asking for what p asks for: ds itself when p asks as
// its template does, else a copy with p's containers, init containers and
// overhead.
func chargedAs(ds *appsv1.DaemonSet, p *corev1.Pod) *appsv1.DaemonSet {
	if equality.Semantic.DeepEqual(podrequests.Of(&p.Spec), podrequests.Of(&ds.Spec.Template.Spec)) {
		return ds
	}
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
