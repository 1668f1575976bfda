package gen

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// TestGenerateIsDeterministic: a seed gives byte-identical files, however
// often and in whatever order seeds are generated.
func TestGenerateIsDeterministic(t *testing.T) {
	seeds := []uint64{1, 2, 3, 42, 1000, 98765}
	first := map[uint64][2][]byte{}
	for _, s := range seeds {
		first[s] = files(t, s)
	}
	slices.Reverse(seeds)
	for _, s := range seeds {
		got := files(t, s)
		if !bytes.Equal(first[s][0], got[0]) || !bytes.Equal(first[s][1], got[1]) {
			t.Errorf("seed %d: the second generation differs from the first", s)
		}
	}
	if bytes.Equal(first[1][0], first[2][0]) {
		t.Errorf("seeds 1 and 2 gave the same scenario")
	}
}

func files(t *testing.T, seed uint64) [2][]byte {
	t.Helper()
	s, err := Generate(seed)
	if err != nil {
		t.Fatalf("Generate(%d): %v", seed, err)
	}
	sy, cj, err := s.Files()
	if err != nil {
		t.Fatalf("Files(%d): %v", seed, err)
	}
	return [2][]byte{sy, cj}
}

// TestGenerateIsValidInput: every scenario decodes as nodeplan's command
// line reads it (no error), its catalog decodes, and it has the pods it
// says, 5 to 300 of them.
func TestGenerateIsValidInput(t *testing.T) {
	for seed := uint64(1); seed <= 400; seed++ {
		s, err := Generate(seed)
		if err != nil {
			t.Fatalf("Generate(%d): %v", seed, err)
		}
		sy, cj, err := s.Files()
		if err != nil {
			t.Fatalf("Files(%d): %v", seed, err)
		}
		in, err := manifest.Decode([]manifest.File{{Name: "scenario.yaml", Data: sy}})
		if err != nil {
			t.Fatalf("seed %d: the scenario does not decode: %v", seed, err)
		}
		if _, err := instancetypes.Decode(cj); err != nil {
			t.Fatalf("seed %d: the catalog does not decode: %v", seed, err)
		}
		if len(in.Pods) != s.Pods || s.Pods < 5 || s.Pods > 300 {
			t.Errorf("seed %d: %d pending pods decoded, %d generated (want 5..300)", seed, len(in.Pods), s.Pods)
		}
		if len(in.NodePools) == 0 {
			t.Errorf("seed %d: no NodePool", seed)
		}
	}
}

// TestGenerateCoversFamiliesAndConstraints: over 300 seeds every catalog
// family and every kind of constraint appears.
func TestGenerateCoversFamiliesAndConstraints(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 300; seed++ {
		s, err := Generate(seed)
		if err != nil {
			t.Fatalf("Generate(%d): %v", seed, err)
		}
		seen["family "+s.Family] = true
		sy, _, err := s.Files()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range features() {
			if bytes.Contains(sy, []byte(k)) {
				seen[k] = true
			}
		}
	}
	var missing []string
	for _, f := range families() {
		if !seen["family "+f.name] {
			missing = append(missing, "family "+f.name)
		}
	}
	for _, k := range features() {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("never generated (-want +got):\n%s", diff)
	}
}

// features are YAML fragments of each kind of constraint.
func features() []string {
	return []string{
		"initContainers:", "restartPolicy: Always", "overhead:", "nodeSelector:",
		"requiredDuringSchedulingIgnoredDuringExecution:", "preferredDuringSchedulingIgnoredDuringExecution:",
		"operator: In", "operator: NotIn", "operator: Exists", "operator: DoesNotExist", "operator: Gt", "operator: Lt",
		"tolerations:", "topologySpreadConstraints:", "topologyKey: topology.kubernetes.io/zone", "topologyKey: kubernetes.io/hostname",
		"topologyKey: karpenter.sh/capacity-type", "minDomains:", "whenUnsatisfiable: ScheduleAnyway", "nodeAffinityPolicy:",
		"nodeTaintsPolicy:", "matchLabelKeys:", "podAffinity:", "podAntiAffinity:", "hostPort:", "kind: PersistentVolume",
		"kind: StorageClass", "volumeClaimTemplates:", "kind: Node\n", "nodeName:", "kind: DaemonSet", "weight:", "limits:",
		"startupTaints:", "taints:", "minValues:", "kind: Job", "kind: StatefulSet", "kind: Deployment", "kind: Pod\n",
		"karpenter.sh/initialized", "unschedulable: true",
	}
}
