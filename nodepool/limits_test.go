package nodepool_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
)

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func TestRemaining(t *testing.T) {
	tests := []struct {
		name   string
		limits []string
		used   corev1.ResourceList
		want   corev1.ResourceList
	}{
		{name: "no limits", used: list("cpu", "4"), want: corev1.ResourceList{}},
		{name: "nothing used", limits: []string{"cpu", "100"}, want: list("cpu", "100")},
		{
			name:   "limit minus used, unlimited resources left out",
			limits: []string{"cpu", "10", "memory", "10Gi", "nodes", "3"},
			used:   list("cpu", "4", "memory", "2Gi", "nodes", "1", "nvidia.com/gpu", "2"),
			want:   list("cpu", "6", "memory", "8Gi", "nodes", "2"),
		},
		{
			name:   "over the limit goes negative (B-165)",
			limits: []string{"cpu", "20"},
			used:   list("cpu", "100"),
			want:   list("cpu", "-80"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := testutil.NodePool("a")
			for i := 0; i < len(tc.limits); i += 2 {
				b.Limit(corev1.ResourceName(tc.limits[i]), tc.limits[i+1])
			}
			got := mustTemplate(t, b.Obj()).Remaining(tc.used)
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Remaining (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFitsLimits: limits are on the CAPACITY of nodes (B-165..B-172).
func TestFitsLimits(t *testing.T) {
	type result struct {
		Exceeded corev1.ResourceName
		OK       bool
	}
	tests := []struct {
		name      string
		remaining corev1.ResourceList
		capacity  corev1.ResourceList
		want      result
	}{
		{name: "no limits", remaining: corev1.ResourceList{}, capacity: list("cpu", "96"), want: result{"", true}},
		{name: "capacity equal to remaining fits (B-166)", remaining: list("cpu", "2"), capacity: list("cpu", "2", "memory", "4Gi"), want: result{"", true}},
		{name: "capacity above remaining (B-166)", remaining: list("cpu", "2"), capacity: list("cpu", "4"), want: result{"cpu", false}},
		{name: "limit counts capacity, not allocatable: pods (B-168)", remaining: list("pods", "1"), capacity: list("cpu", "4", "pods", "5"), want: result{"pods", false}},
		{name: "a resource the type lacks counts 0", remaining: list("nvidia.com/gpu", "0"), capacity: list("cpu", "4"), want: result{"", true}},
		{name: "lacking a resource already over its limit", remaining: list("nvidia.com/gpu", "-1"), capacity: list("cpu", "4"), want: result{"nvidia.com/gpu", false}},
		{name: "nodes counts one per node", remaining: list("nodes", "1"), capacity: list("cpu", "4"), want: result{"", true}},
		{name: "nodes exhausted (B-170)", remaining: list("nodes", "0"), capacity: list("cpu", "4"), want: result{"nodes", false}},
		{
			name:      "first exceeded resource in sorted order",
			remaining: list("nodes", "0", "memory", "1Gi", "cpu", "1"),
			capacity:  list("cpu", "4", "memory", "16Gi"),
			want:      result{"cpu", false},
		},
		{name: "negative remaining rejects everything (B-165)", remaining: list("cpu", "-80"), capacity: list("cpu", "1"), want: result{"cpu", false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			exceeded, ok := nodepool.FitsLimits(tc.remaining, tc.capacity)
			if diff := gocmp.Diff(tc.want, result{exceeded, ok}); diff != "" {
				t.Errorf("FitsLimits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLimitsSeed: the reserved-instance pool of the seed (limits.cpu: 100)
// with 98 cpu of c4.large nodes running takes one more 2-cpu c4.large, not
// a 4-cpu type.
func TestLimitsSeed(t *testing.T) {
	np := testutil.NodePool("reserved-instance").Weight(50).Limit(corev1.ResourceCPU, "100").
		Requirement("node.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, "c4.large").Obj()
	remaining := mustTemplate(t, np).Remaining(list("cpu", "98", "memory", "183.75Gi", "nodes", "49"))
	type result struct {
		Exceeded corev1.ResourceName
		OK       bool
	}
	var got []result
	for _, capacity := range []corev1.ResourceList{list("cpu", "2", "memory", "3.75Gi"), list("cpu", "4", "memory", "7.5Gi")} {
		exceeded, ok := nodepool.FitsLimits(remaining, capacity)
		got = append(got, result{exceeded, ok})
	}
	if diff := gocmp.Diff([]result{{"", true}, {"cpu", false}}, got); diff != "" {
		t.Errorf("FitsLimits (-want +got):\n%s", diff)
	}
}

// TestUsage: the capacity of the pool's nodes, deleting or not, and their
// number (a node without a reported capacity counts its allocatable); other
// pools' nodes and unmanaged nodes do not count.
func TestUsage(t *testing.T) {
	t.Parallel()
	mine := func(name, cpu string) *corev1.Node {
		return testutil.Node(name).Label("karpenter.sh/nodepool", "a").Capacity(corev1.ResourceCPU, cpu).Obj()
	}
	nodes := []*corev1.Node{
		mine("n1", "4"),
		testutil.Node("n2").Label("karpenter.sh/nodepool", "a").Capacity(corev1.ResourceCPU, "2").Capacity("nvidia.com/gpu", "1").Deleting().Obj(),
		testutil.Node("other").Label("karpenter.sh/nodepool", "b").Capacity(corev1.ResourceCPU, "64").Obj(),
		testutil.Node("unmanaged").Capacity(corev1.ResourceCPU, "64").Obj(),
		// No capacity reported: what it can allocate is a lower bound.
		testutil.Node("n3").Label("karpenter.sh/nodepool", "a").Allocatable(corev1.ResourceCPU, "3").Allocatable(corev1.ResourceMemory, "8Gi").Obj(),
		nil,
	}
	tmpl := mustTemplate(t, testutil.NodePool("a").Limit(corev1.ResourceCPU, "10").Obj())
	if diff := gocmp.Diff(list("cpu", "9", "memory", "8Gi", "nvidia.com/gpu", "1", "nodes", "3"), tmpl.Usage(nodes)); diff != "" {
		t.Errorf("Usage (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(list("nodes", "0"), tmpl.Usage(nil)); diff != "" {
		t.Errorf("Usage of no nodes (-want +got):\n%s", diff)
	}
}

// TestExceeded: every limited resource that new nodes of this total
// capacity exceed, sorted; FitsLimits is its first.
func TestExceeded(t *testing.T) {
	tests := []struct {
		name      string
		remaining corev1.ResourceList
		capacity  corev1.ResourceList
		want      []corev1.ResourceName
	}{
		{name: "no limits", remaining: corev1.ResourceList{}, capacity: list("cpu", "96")},
		{name: "within every limit", remaining: list("cpu", "8", "nodes", "2"), capacity: list("cpu", "8", "nodes", "2")},
		{name: "every resource over, sorted", remaining: list("nodes", "1", "memory", "1Gi", "cpu", "1"), capacity: list("cpu", "4", "memory", "16Gi", "nodes", "2"),
			want: []corev1.ResourceName{"cpu", "memory", "nodes"}},
		{name: "nodes unset counts one", remaining: list("nodes", "0"), capacity: list("cpu", "1"), want: []corev1.ResourceName{"nodes"}},
		{name: "lacking a resource already over its limit", remaining: list("nvidia.com/gpu", "-1"), capacity: list("cpu", "1"), want: []corev1.ResourceName{"nvidia.com/gpu"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := nodepool.Exceeded(tc.remaining, tc.capacity)
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Exceeded (-want +got):\n%s", diff)
			}
			first, ok := nodepool.FitsLimits(tc.remaining, tc.capacity)
			if ok != (len(got) == 0) || (!ok && first != got[0]) {
				t.Errorf("FitsLimits = %q, %v; want the first of Exceeded %v", first, ok, got)
			}
		})
	}
}
