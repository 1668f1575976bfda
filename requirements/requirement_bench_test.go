package requirements_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/nodeplan/nodeplan/requirements"
)

// benchInstanceType is the requirement set of one realistic instance type:
// about twenty single-valued labels, its six zones and two capacity types.
func benchInstanceType(b testing.TB) requirements.Requirements {
	b.Helper()
	labels := map[string]string{
		requirements.LabelArch:                                       "amd64",
		requirements.LabelOS:                                         "linux",
		requirements.LabelInstanceType:                               "m5.xlarge",
		requirements.LabelTopologyRegion:                             "us-east-1",
		"karpenter.k8s.aws/instance-family":                          "m5",
		"karpenter.k8s.aws/instance-category":                        "m",
		"karpenter.k8s.aws/instance-generation":                      "5",
		"karpenter.k8s.aws/instance-size":                            "xlarge",
		"karpenter.k8s.aws/instance-cpu":                             "4",
		"karpenter.k8s.aws/instance-cpu-manufacturer":                "intel",
		"karpenter.k8s.aws/instance-memory":                          "16384",
		"karpenter.k8s.aws/instance-hypervisor":                      "nitro",
		"karpenter.k8s.aws/instance-encryption-in-transit-supported": "false",
		"karpenter.k8s.aws/instance-network-bandwidth":               "1250",
		"karpenter.k8s.aws/instance-ebs-bandwidth":                   "4750",
		"karpenter.k8s.aws/instance-local-nvme":                      "0",
		"karpenter.k8s.aws/instance-capability-flex":                 "false",
	}
	reqs := []requirements.Requirement{
		requirements.In(requirements.LabelTopologyZone, "us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f"),
		requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeSpot, requirements.CapacityTypeOnDemand),
		requirements.DoesNotExist("karpenter.k8s.aws/instance-gpu-name"),
		requirements.DoesNotExist("karpenter.k8s.aws/instance-gpu-manufacturer"),
		requirements.DoesNotExist("karpenter.k8s.aws/instance-gpu-count"),
	}
	for k, v := range labels {
		reqs = append(reqs, requirements.In(k, v))
	}
	return requirements.NewRequirements(reqs...)
}

// benchPod is a pod's three requirements: two zones, one arch, and more
// than two CPUs.
func benchPod(b testing.TB) requirements.Requirements {
	b.Helper()
	return requirements.NewRequirements(
		requirements.In(requirements.LabelTopologyZone, "us-east-1a", "us-east-1b"),
		requirements.In(requirements.LabelArch, "amd64"),
		mustNew(b, "karpenter.k8s.aws/instance-cpu", requirements.OpGt, "2"),
	)
}

func benchSchema() requirements.Schema {
	return requirements.DefaultSchema().WithWellKnown(
		"karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-generation",
		"karpenter.k8s.aws/instance-size", "karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-memory",
	)
}

func BenchmarkIntersect(b *testing.B) {
	it, pod := benchInstanceType(b), benchPod(b)
	b.Run("requirements/instance-type∩pod", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = it.Intersect(pod)
		}
	})
	zones, podZones := it.Get(requirements.LabelTopologyZone), pod.Get(requirements.LabelTopologyZone)
	b.Run("requirement/In6∩In2", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = zones.Intersect(podZones)
		}
	})
	arch := it.Get(requirements.LabelArch)
	b.Run("requirement/In1∩In1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = arch.Intersect(arch)
		}
	})
	cpu, podCPU := it.Get("karpenter.k8s.aws/instance-cpu"), pod.Get("karpenter.k8s.aws/instance-cpu")
	b.Run("requirement/In1∩Gt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = cpu.Intersect(podCPU)
		}
	})
}

func BenchmarkCompatible(b *testing.B) {
	it, pod := benchInstanceType(b), benchPod(b)
	schema := benchSchema()
	var wellKnown requirements.WellKnown = schema // converted once, as a caller holding the interface would
	if err := it.Compatible(pod, wellKnown); err != nil {
		b.Fatalf("precondition: Compatible() = %v", err)
	}
	b.Run("instance-type/pod", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = it.Compatible(pod, wellKnown)
		}
	})
	// Passing the Schema value converts it to an interface on every call.
	b.Run("instance-type/pod/schema-value", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = it.Compatible(pod, schema)
		}
	})
	pool := requirements.NewRequirements(requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeSpot, requirements.CapacityTypeOnDemand))
	b.Run("nodepool/pod-undefined-well-known-keys", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = pool.Compatible(pod, wellKnown)
		}
	})
	b.Run("instance-type/pod/intersects", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = it.Intersects(pod)
		}
	})
	zones, podZones := it.Get(requirements.LabelTopologyZone), pod.Get(requirements.LabelTopologyZone)
	b.Run("requirement/In6∩In2", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = zones.Intersects(podZones)
		}
	})
	cpu, podCPU := it.Get("karpenter.k8s.aws/instance-cpu"), pod.Get("karpenter.k8s.aws/instance-cpu")
	b.Run("requirement/In1∩Gt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = cpu.Intersects(podCPU)
		}
	})
	word := requirements.In("karpenter.k8s.aws/instance-cpu", "four")
	b.Run("requirement/In-word∩Gt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = word.Intersects(podCPU)
		}
	})
	lower, upper := mustNew(b, "k", requirements.OpGt, "2"), mustNew(b, "k", requirements.OpLt, "64")
	b.Run("requirement/Gt∩Lt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = lower.Intersects(upper)
		}
	})
}

func BenchmarkMatches(b *testing.B) {
	it, pod := benchInstanceType(b), benchPod(b)
	labels := it.Labels()
	labels[requirements.LabelTopologyZone] = "us-east-1a"
	b.ReportAllocs()
	for b.Loop() {
		_ = pod.Matches(labels)
	}
}

// TestHotPathsDoNotAllocate pins what the benchmarks show: checking a pod
// against an instance type allocates nothing, even when the Schema is passed
// by value as the WellKnown. Not parallel: testing.AllocsPerRun refuses to
// run in a parallel test, since other goroutines' allocations would count.
func TestHotPathsDoNotAllocate(t *testing.T) {
	it, pod, schema := benchInstanceType(t), benchPod(t), benchSchema()
	word := requirements.In("karpenter.k8s.aws/instance-cpu", "four")
	podCPU := pod.Get("karpenter.k8s.aws/instance-cpu")
	labels := it.Labels()
	tests := []struct {
		name string
		f    func()
	}{
		{name: "Requirements.Compatible", f: func() { _ = it.Compatible(pod, schema) }},
		{name: "Requirements.Intersects", f: func() { _ = it.Intersects(pod) }},
		{name: "Requirements.Matches", f: func() { _ = pod.Matches(labels) }},
		{name: "Requirement.Intersects with a word against a bound", f: func() { _ = word.Intersects(podCPU) }},
		{name: "Schema.IsWellKnown", f: func() { _ = schema.IsWellKnown("beta.kubernetes.io/arch") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := gocmp.Diff(0.0, testing.AllocsPerRun(100, tt.f)); diff != "" {
				t.Errorf("allocations per run (-want +got):\n%s", diff)
			}
		})
	}
}
