package karp

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	tk "github.com/nodeplan/nodeplan/tools/karpdiff/internal/testkit"
	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
	"github.com/nodeplan/nodeplan/tools/karpdiff/scenario"
)

func withSpot(it instancetypes.InstanceType, zone string, price float64, available bool) instancetypes.InstanceType {
	it.Offerings = append(it.Offerings, instancetypes.Offering{Zone: zone, CapacityType: "spot", Price: price, Unavailable: !available})
	return it
}

func TestCheapestOffering(t *testing.T) {
	base := tk.Type("m", 4, 8, 20, 0.2, "zone-a", "zone-b")
	base.Offerings[1].Price = 0.18 // on-demand zone-b is cheaper than zone-a
	spotB := withSpot(withSpot(base, "zone-a", 0.05, false), "zone-b", 0.07, true)
	req := func(key string, values ...string) *scheduling.Requirement {
		return scheduling.NewRequirement(key, corev1.NodeSelectorOpIn, values...)
	}
	tests := []struct {
		name string
		it   instancetypes.InstanceType
		reqs scheduling.Requirements
		want string // zone/capacity-type/price, or "" for none
	}{
		{"no requirement: the cheapest on-demand", base, scheduling.NewRequirements(), "zone-b/on-demand/0.18"},
		{"zone restricted", base, scheduling.NewRequirements(req(corev1.LabelTopologyZone, "zone-a")), "zone-a/on-demand/0.2"},
		{"an unavailable cheaper offering is skipped", spotB, scheduling.NewRequirements(), "zone-b/spot/0.07"},
		{"capacity type restricted to on-demand", spotB, scheduling.NewRequirements(req(karpv1.CapacityTypeLabelKey, "on-demand")), "zone-b/on-demand/0.18"},
		{"only the unavailable offering is allowed", spotB, scheduling.NewRequirements(req(karpv1.CapacityTypeLabelKey, "spot"), req(corev1.LabelTopologyZone, "zone-a")), ""},
		{"a zone no offering has", base, scheduling.NewRequirements(req(corev1.LabelTopologyZone, "zone-z")), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := convertType(&tt.it, []string{corev1.LabelArchStable, corev1.LabelInstanceTypeStable, corev1.LabelOSStable})
			got := ""
			if o := CheapestOffering(it, tt.reqs); o != nil {
				got = o.Requirements.Get(corev1.LabelTopologyZone).Any() + "/" + o.Requirements.Get(karpv1.CapacityTypeLabelKey).Any() + "/" + ftoa(o.Price)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// summary is what the plan-pricing tests assert of a Karpenter plan.
type summary struct {
	Claims []claimSummary
	Placed int
	Price  float64
}

type claimSummary struct {
	Type, Zone, CapacityType string
	Price                    float64
	Pods                     int
	Options                  []string
}

func solve(t *testing.T, in manifest.Input, types ...instancetypes.InstanceType) summary {
	t.Helper()
	if in.NodePools == nil {
		in.NodePools = []nodepool.NodePool{tk.NodePool("default")}
	}
	s := &scenario.Scenario{Input: in, Catalog: tk.Catalog(types...)}
	scenario.DefaultPods(&s.Input)
	RegisterVocabulary(s.Catalog, false)
	p, err := Solve(s, Options{}, 0)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return summarize(p)
}

func summarize(p plan.Plan) summary {
	out := summary{Placed: p.Summary.Scheduled, Price: p.Summary.PricePerHour}
	for _, nc := range p.NodeClaims {
		out.Claims = append(out.Claims, claimSummary{Type: nc.InstanceType, Zone: nc.Zone, CapacityType: nc.CapacityType,
			Price: nc.Price, Pods: len(nc.Pods), Options: nc.InstanceTypeOptions})
	}
	return out
}

func cpuPods(n int, cpu string) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range n {
		out = append(out, tk.Pod("p"+string(rune('0'+i))).Request(corev1.ResourceCPU, cpu).Obj())
	}
	return out
}

// TestSolvePricing: a plan's NodeClaim is priced at the cheapest available
// offering its requirements allow among its options, and lists the options
// cheapest first.
func TestSolvePricing(t *testing.T) {
	onDemandOnly := tk.NodePool("default")
	onDemandOnly.Spec.Template.Spec.Requirements = []nodepool.NodeSelectorRequirementWithMinValues{{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}}}
	c8, c16 := tk.Type("c8", 8, 16, 110, 0.16, "zone-a"), tk.Type("c16", 16, 32, 110, 0.33, "zone-a")
	tests := []struct {
		name  string
		in    manifest.Input
		types []instancetypes.InstanceType
		want  summary
	}{
		{
			name:  "Karpenter packs three 4750m pods on one c16 (repro 12)",
			in:    manifest.Input{Pods: cpuPods(3, "4750m")},
			types: []instancetypes.InstanceType{c8, c16},
			want:  summary{Claims: []claimSummary{{Type: "c16", Zone: "zone-a", CapacityType: "on-demand", Price: 0.33, Pods: 3, Options: []string{"c16"}}}, Placed: 3, Price: 0.33},
		},
		{
			name:  "the unavailable cheaper spot offering is not the price",
			in:    manifest.Input{Pods: cpuPods(1, "1")},
			types: []instancetypes.InstanceType{withSpot(withSpot(tk.Type("m", 4, 8, 20, 0.2, "zone-a", "zone-b"), "zone-a", 0.05, false), "zone-b", 0.08, true)},
			want:  summary{Claims: []claimSummary{{Type: "m", Zone: "zone-b", CapacityType: "spot", Price: 0.08, Pods: 1, Options: []string{"m"}}}, Placed: 1, Price: 0.08},
		},
		{
			name:  "a NodePool that allows on-demand only pays on-demand",
			in:    manifest.Input{Pods: cpuPods(1, "1"), NodePools: []nodepool.NodePool{onDemandOnly}},
			types: []instancetypes.InstanceType{withSpot(tk.Type("m", 4, 8, 20, 0.2, "zone-a"), "zone-a", 0.06, true)},
			want:  summary{Claims: []claimSummary{{Type: "m", Zone: "zone-a", CapacityType: "on-demand", Price: 0.2, Pods: 1, Options: []string{"m"}}}, Placed: 1, Price: 0.2},
		},
		{
			name:  "options cheapest first, the price is the first option's",
			in:    manifest.Input{Pods: cpuPods(1, "1")},
			types: []instancetypes.InstanceType{c16, c8},
			want:  summary{Claims: []claimSummary{{Type: "c8", Zone: "zone-a", CapacityType: "on-demand", Price: 0.16, Pods: 1, Options: []string{"c8", "c16"}}}, Placed: 1, Price: 0.16},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := solve(t, tt.in, tt.types...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
