package nodepool_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

var update = flag.Bool("update", false, "rewrite testdata/nodepools/*.golden.json")

// seedDir holds the NodePools of the seed documents (and one complete v1
// NodePool), one file per example, with their golden templates.
const seedDir = "../testdata/nodepools"

// goldenTemplate is a Template as the golden files show it.
type goldenTemplate struct {
	Name          string                       `json:"name"`
	Weight        int32                        `json:"weight"`
	Requirements  []requirements.Expression    `json:"requirements"`
	Labels        map[string]string            `json:"labels"`
	Annotations   map[string]string            `json:"annotations,omitempty"`
	Taints        []corev1.Taint               `json:"taints,omitempty"`
	StartupTaints []corev1.Taint               `json:"startupTaints,omitempty"`
	Limits        corev1.ResourceList          `json:"limits,omitempty"`
	NodeClassRef  *nodepool.NodeClassReference `json:"nodeClassRef,omitempty"`
	Source        *goldenSource                `json:"source,omitempty"`
}

// goldenSource pins what Decode kept of the fields a Template leaves out.
type goldenSource struct {
	APIVersion  string               `json:"apiVersion"`
	ExpireAfter *string              `json:"expireAfter,omitempty"`
	Disruption  *nodepool.Disruption `json:"disruption,omitempty"`
}

func renderGolden(t *testing.T, pools []nodepool.NodePool, ts []nodepool.Template) []byte {
	t.Helper()
	byName := map[string]nodepool.NodePool{}
	for _, np := range pools {
		byName[np.Name] = np
	}
	out := make([]goldenTemplate, 0, len(ts))
	for _, tmpl := range ts {
		np := byName[tmpl.Name]
		out = append(out, goldenTemplate{
			Name:          tmpl.Name,
			Weight:        tmpl.Weight,
			Requirements:  tmpl.Requirements.Expressions(),
			Labels:        tmpl.Labels,
			Annotations:   tmpl.Annotations,
			Taints:        tmpl.Taints,
			StartupTaints: tmpl.StartupTaints,
			Limits:        tmpl.Limits,
			NodeClassRef:  tmpl.NodeClassRef,
			Source: &goldenSource{
				APIVersion:  np.APIVersion,
				ExpireAfter: np.Spec.Template.Spec.ExpireAfter,
				Disruption:  np.Spec.Disruption,
			},
		})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	require.NoError(t, err)
	return append(b, '\n')
}

// TestSeedNodePools decodes, validates and builds every NodePool file under
// testdata/nodepools and compares the templates with the golden JSON next
// to it. Run `go test ./nodepool -update` to rewrite the golden files, then
// review their diff like code.
func TestSeedNodePools(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(seedDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			pools, err := nodepool.DecodeAll(data)
			require.NoError(t, err)
			for _, np := range pools {
				require.Empty(t, nodepool.Validate(np, testSchema()), "pool %s", np.Name)
			}
			ts, err := nodepool.Templates(pools, testSchema())
			require.NoError(t, err)
			got := renderGolden(t, pools, ts)

			// Same input, shuffled: byte-identical output.
			shuffled := append([]nodepool.NodePool(nil), pools...)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			again, err := nodepool.Templates(shuffled, testSchema())
			require.NoError(t, err)
			if diff := gocmp.Diff(string(got), string(renderGolden(t, pools, again))); diff != "" {
				t.Errorf("templates depend on input order (-first +shuffled):\n%s", diff)
			}

			golden := filepath.Join(seedDir, name+".golden.json")
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run `go test ./nodepool -update` to create the golden file")
			if diff := gocmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("templates differ from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestSeedNodePoolRequirements states, for each seed example, the
// requirement a reader expects from the manifest, independently of the
// golden files.
func TestSeedNodePoolRequirements(t *testing.T) {
	tests := []struct {
		file string
		pool string
		want []string // Requirement.String of the keys that matter
	}{
		{"gpu", "gpu", []string{"karpenter.k8s.aws/instance-family In [p3]", "karpenter.sh/nodepool In [gpu]"}},
		{"reserved-instance", "reserved-instance", []string{"node.kubernetes.io/instance-type In [c4.large]"}},
		{"reserved-instance", "default", []string{"karpenter.sh/capacity-type In [on-demand spot]", "kubernetes.io/arch In [amd64]"}},
		{"fallback", "arm64-specific", []string{"kubernetes.io/arch In [arm64]", "node.kubernetes.io/instance-type In [a1.large a1.xlarge]"}},
		{"team-exists", "team-isolation", []string{"company.com/team Exists"}},
		{"nvme-exists", "nvme", []string{"karpenter.k8s.aws/instance-local-nvme Exists"}},
		{"nvme-gt-99", "nvme-100g", []string{"karpenter.k8s.aws/instance-local-nvme Exists >=100"}},
		{"network-bandwidth", "network-50g", []string{"karpenter.k8s.aws/instance-network-bandwidth Exists >=50000"}},
		{"capacity-spread", "spot", []string{"capacity-spread In [2 3 4 5]", "karpenter.sh/capacity-type In [spot]"}},
		{"capacity-spread", "on-demand", []string{"capacity-spread In [1]", "karpenter.sh/capacity-type In [on-demand]"}},
		{"v1beta1-t3-spot", "default", []string{"karpenter.k8s.aws/instance-family In [t3]", "karpenter.sh/capacity-type In [spot]"}},
		{"general-purpose", "general-purpose", []string{
			"karpenter.k8s.aws/ec2nodeclass In [default]",
			"karpenter.k8s.aws/instance-category In [c m] minValues 2",
			"karpenter.sh/capacity-type In [on-demand]",
			"kubernetes.io/os In [linux]",
			"topology.kubernetes.io/zone In [us-east-1a us-east-1b]",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.pool, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(seedDir, tc.file+".yaml"))
			require.NoError(t, err)
			pools, err := nodepool.DecodeAll(data)
			require.NoError(t, err)
			ts, err := nodepool.Templates(pools, testSchema())
			require.NoError(t, err)
			var got []string
			for _, tmpl := range ts {
				if tmpl.Name != tc.pool {
					continue
				}
				for _, w := range tc.want {
					key, _, _ := strings.Cut(w, " ")
					got = append(got, tmpl.Requirements.Get(key).String())
				}
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("requirements (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSeedMisspelledRequirement: the seed's own NodePool snippets write
// `requirement:` (singular); strict decoding names the field and the fix.
func TestSeedMisspelledRequirement(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(seedDir, "nvme-exists.yaml"))
	require.NoError(t, err)
	data = bytes.Replace(data, []byte("requirements:"), []byte("requirement:"), 1)
	_, err = nodepool.Decode(data)
	require.Error(t, err)
	want := `nodepool "nvme": spec.template.spec.requirement: Forbidden: unknown field (did you mean "requirements"?)`
	if diff := gocmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}
