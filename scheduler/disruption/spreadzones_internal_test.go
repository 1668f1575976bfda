package disruption

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
)

// TestZoneCountsFollowCommands: the zone counts a ruling of the checks
// before simulating reads (spreadzones.go) are those of the model's
// version, whichever of zoneNodes and zoneCounts asks first after a
// command; and blockedZones blocks exactly the zones whose count exceeds
// the leaving zone's by maxSkew − 1 or more.
func TestZoneCountsFollowCommands(t *testing.T) {
	b := &dmCluster{t: t}
	web := map[string]int{"a1": 1, "a2": 1, "b1": 1, "b2": 1, "c1": 1}
	for _, name := range []string{"a1", "a2", "b1", "b2", "c1"} {
		b.claim(b.node(name, "default", "m7i.xlarge", "zone-"+name[:1]))
		for i := range web[name] {
			p := testutil.Pod(fmt.Sprintf("web-%s-%d", name, i)).CPU("100m").Label("app", "web").OwnedBy("ReplicaSet", "web").NodeName(name).
				Spread("topology.kubernetes.io/zone", 1, corev1.DoNotSchedule, map[string]string{"app": "web"}).Obj()
			p.Status.Phase = corev1.PodRunning
			b.c.Pods = append(b.c.Pods, p)
		}
	}
	m := b.model([]nodepool.NodePool{dmPool("default", "WhenEmptyOrUnderutilized")}, dmRFCCatalog(t))
	p := m.byName["a1"].pods[0]
	sel := p.obj.Spec.TopologySpreadConstraints[0].LabelSelector
	key, ok := m.compile(podSelector{namespaces: []string{p.ns}, sel: sel})
	require.True(t, ok)

	counts, ok := m.zoneCounts(key)
	require.True(t, ok)
	require.Equal(t, map[string]int{"zone-a": 2, "zone-b": 2, "zone-c": 1}, counts)
	var checks []zoneCheck
	// Leaving zone-a (2): zone-b (2) stays blocked, zone-c (1) does not.
	require.Equal(t, []string{"zone-b"}, m.blockedZones(p, "zone-a", 2, &checks))
	require.Len(t, checks, 1)
	require.True(t, checks[0].holds(m))

	// A command removes b2 (its pod goes): zone-b counts 1 at the next
	// version, and the ruling that blocked zone-b no longer holds.
	m.remove(m.byName["b2"], 1)
	m.version++
	require.Equal(t, 2, m.zoneNodes("zone-a"))
	counts, ok = m.zoneCounts(key)
	require.True(t, ok)
	require.Equal(t, map[string]int{"zone-a": 2, "zone-b": 1, "zone-c": 1}, counts)
	require.False(t, checks[0].holds(m))
	require.Empty(t, m.blockedZones(p, "zone-a", 2, &checks))

	// A node being deleted that holds a picked pod: no counts, no ruling.
	m.byName["c1"].deleting = true
	m.version++
	_, ok = m.zoneCounts(key)
	require.False(t, ok)
}

// TestPackableFollowsZoneSpreads: the global search's subset guess does
// not empty a node whose spread pod has room only in a zone its spread
// blocks (web pods even over two zones: a1's pod must stay in zone-a, where
// a2 is full), and does once zone-a holds more of them than zone-b.
func TestPackableFollowsZoneSpreads(t *testing.T) {
	for _, extra := range []int{0, 1} {
		b := &dmCluster{t: t}
		web := func(name, node, cpu string) {
			p := testutil.Pod(name).CPU(cpu).Label("app", "web").OwnedBy("ReplicaSet", "web").NodeName(node).
				Spread("topology.kubernetes.io/zone", 1, corev1.DoNotSchedule, map[string]string{"app": "web"}).Obj()
			p.Status.Phase = corev1.PodRunning
			b.c.Pods = append(b.c.Pods, p)
		}
		for _, name := range []string{"a1", "a2", "b1"} {
			b.claim(b.node(name, "default", "m7i.xlarge", "zone-"+name[:1]))
		}
		web("web-a1", "a1", "1")
		web("web-b1", "b1", "1")
		fill := 3900 // a2 full: m7i.xlarge has 4 cpu
		for i := range extra {
			web(fmt.Sprintf("web-a2-%d", i), "a2", "1")
			fill -= 1000
		}
		filler := testutil.Pod("filler").CPU(fmt.Sprintf("%dm", fill)).OwnedBy("ReplicaSet", "fill").NodeName("a2").Obj()
		filler.Status.Phase = corev1.PodRunning
		b.c.Pods = append(b.c.Pods, filler)
		m := b.model([]nodepool.NodePool{dmPool("default", "WhenEmptyOrUnderutilized")}, dmRFCCatalog(t))
		a1 := candidateNamed(t, m, "a1")
		got := m.packable(a1, 1)
		if extra == 0 {
			require.Empty(t, got, "web-a1 may not leave zone-a, where a2 is full")
		} else {
			require.Equal(t, a1, got, "zone-a holds 2 web pods, zone-b 1: web-a1 may go to b1")
		}
	}
}

// TestPackableKeepsAntiAffinity: the subset guess does not put a pod on a
// node holding a pod its required anti-affinity repels (db pods one per
// node), and does when the node holds none.
func TestPackableKeepsAntiAffinity(t *testing.T) {
	for _, dbOnB := range []bool{true, false} {
		b := &dmCluster{t: t}
		db := func(name, node string) {
			p := testutil.Pod(name).CPU("1").Label("app", "db").OwnedBy("StatefulSet", "db").NodeName(node).
				PodAntiAffinity("kubernetes.io/hostname", map[string]string{"app": "db"}).Obj()
			p.Status.Phase = corev1.PodRunning
			b.c.Pods = append(b.c.Pods, p)
		}
		for _, name := range []string{"a1", "b1"} {
			b.claim(b.node(name, "default", "m7i.xlarge", "zone-a"))
		}
		db("db-0", "a1")
		if dbOnB {
			db("db-1", "b1")
		}
		m := b.model([]nodepool.NodePool{dmPool("default", "WhenEmptyOrUnderutilized")}, dmRFCCatalog(t))
		a1 := candidateNamed(t, m, "a1")
		if got := m.packable(a1, 1); dbOnB {
			require.Empty(t, got, "db-0 may not join db-1 on b1")
		} else {
			require.Equal(t, a1, got)
		}
	}
}

// TestPackableKeepsVolumeZone: the subset guess does not move a pod whose
// claim is bound to a volume of zone-a to a node of zone-b, even with room
// there: it empties a1 only when a2, in zone-a, has room for the pod.
func TestPackableKeepsVolumeZone(t *testing.T) {
	for _, roomInA := range []bool{false, true} {
		b := &dmCluster{t: t}
		for _, name := range []string{"a1", "a2", "b1"} {
			b.claim(b.node(name, "default", "m7i.xlarge", "zone-"+name[:1]))
		}
		p := testutil.Pod("db-0").CPU("1").OwnedBy("StatefulSet", "db").NodeName("a1").PVC("data-db-0").Obj()
		p.Status.Phase = corev1.PodRunning
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-db-0"}, Spec: corev1.PersistentVolumeSpec{
			StorageClassName: "gp3",
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-a"}}}}}}},
		}}
		b.c.PVs = append(b.c.PVs, pv)
		b.c.PVCs = append(b.c.PVCs, testutil.PVC("data-db-0", pv.Name, "gp3"))
		fill := "3900m" // m7i.xlarge has 4 cpu
		if roomInA {
			fill = "2"
		}
		filler := testutil.Pod("filler").CPU(fill).OwnedBy("ReplicaSet", "fill").NodeName("a2").Obj()
		filler.Status.Phase = corev1.PodRunning
		b.c.Pods = append(b.c.Pods, p, filler)
		m := b.model([]nodepool.NodePool{dmPool("default", "WhenEmptyOrUnderutilized")}, dmRFCCatalog(t))
		a1 := candidateNamed(t, m, "a1")
		if got := m.packable(a1, 1); roomInA {
			require.Equal(t, a1, got, "a2 in zone-a has room for db-0")
		} else {
			require.Empty(t, got, "db-0's volume is in zone-a, where a2 is full; b1 is in zone-b")
		}
	}
}

// candidateNamed returns the model's consolidation candidate of a node, as
// the one-element list packable takes.
func candidateNamed(t *testing.T, m *model, name string) []*candidate {
	t.Helper()
	cands, _ := m.consolidationCandidates()
	for _, c := range cands {
		if c.n.name == name {
			return []*candidate{c}
		}
	}
	t.Fatalf("node %s is no candidate", name)
	return nil
}
