package requirements_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/nodeplan/nodeplan/requirements"
)

// TestSchemaNormalize covers B-029 (deprecated labels) and B-031 (an alias a
// provider adds).
func TestSchemaNormalize(t *testing.T) {
	t.Parallel()
	aws := requirements.DefaultSchema().WithAliases(map[string]string{"topology.ebs.csi.aws.com/zone": zone})
	tests := []struct {
		name   string
		schema requirements.Schema
		key    string
		want   string
	}{
		{name: "B-029 beta zone", schema: requirements.DefaultSchema(), key: "failure-domain.beta.kubernetes.io/zone", want: zone},
		{name: "B-029 beta region", schema: requirements.DefaultSchema(), key: "failure-domain.beta.kubernetes.io/region", want: requirements.LabelTopologyRegion},
		{name: "B-029 beta arch", schema: requirements.DefaultSchema(), key: "beta.kubernetes.io/arch", want: arch},
		{name: "B-029 beta os", schema: requirements.DefaultSchema(), key: "beta.kubernetes.io/os", want: requirements.LabelOS},
		{name: "B-029 beta instance type", schema: requirements.DefaultSchema(), key: "beta.kubernetes.io/instance-type", want: requirements.LabelInstanceType},
		{name: "stable key unchanged", schema: requirements.DefaultSchema(), key: zone, want: zone},
		{name: "custom key unchanged", schema: requirements.DefaultSchema(), key: team, want: team},
		{name: "B-031 EBS CSI zone", schema: aws, key: "topology.ebs.csi.aws.com/zone", want: zone},
		{name: "B-031 keeps the defaults", schema: aws, key: "beta.kubernetes.io/arch", want: arch},
		{name: "the default schema has no EBS alias", schema: requirements.DefaultSchema(), key: "topology.ebs.csi.aws.com/zone", want: "topology.ebs.csi.aws.com/zone"},
		{name: "zero Schema", schema: requirements.Schema{}, key: "beta.kubernetes.io/arch", want: "beta.kubernetes.io/arch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, tt.schema.Normalize(tt.key)); diff != "" {
				t.Errorf("Normalize(%q) mismatch (-want +got):\n%s", tt.key, diff)
			}
		})
	}
}

// TestSchemaNormalizeLabels: aliases become stable keys, and the stable
// key's own value wins over an alias's whatever the map order.
func TestSchemaNormalizeLabels(t *testing.T) {
	t.Parallel()
	ebs := requirements.DefaultSchema().WithAliases(map[string]string{"topology.ebs.csi.aws.com/zone": zone})
	tests := []struct {
		name   string
		schema requirements.Schema
		labels map[string]string
		want   map[string]string
	}{
		{name: "nil", schema: requirements.DefaultSchema(), want: map[string]string{}},
		{name: "B-029 alias rewritten, others kept", schema: requirements.DefaultSchema(),
			labels: map[string]string{"failure-domain.beta.kubernetes.io/zone": "z1", team: "a"},
			want:   map[string]string{zone: "z1", team: "a"}},
		{name: "the stable key wins", schema: requirements.DefaultSchema(),
			labels: map[string]string{"failure-domain.beta.kubernetes.io/zone": "z1", zone: "z2"},
			want:   map[string]string{zone: "z2"}},
		{name: "two aliases: the first by name wins", schema: ebs,
			labels: map[string]string{"topology.ebs.csi.aws.com/zone": "z3", "failure-domain.beta.kubernetes.io/zone": "z1"},
			want:   map[string]string{zone: "z1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for range 5 { // map order must not matter
				if diff := gocmp.Diff(tt.want, tt.schema.NormalizeLabels(tt.labels)); diff != "" {
					t.Fatalf("NormalizeLabels (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestSchemaWithIsACopy: the With* methods leave their receiver alone, so one
// base schema can be extended by several providers.
func TestSchemaWithIsACopy(t *testing.T) {
	t.Parallel()
	base := requirements.DefaultSchema()
	before := []any{base.WellKnownKeys(), base.Aliases(), base.IsRestricted("karpenter.k8s.aws/instance-family")}
	_ = base.WithWellKnown("karpenter.k8s.aws/instance-family").
		WithAliases(map[string]string{"topology.ebs.csi.aws.com/zone": zone}).
		WithRestrictedDomains("karpenter.k8s.aws")
	after := []any{base.WellKnownKeys(), base.Aliases(), base.IsRestricted("karpenter.k8s.aws/instance-family")}
	if diff := gocmp.Diff(before, after); diff != "" {
		t.Errorf("With* changed the receiver (-before +after):\n%s", diff)
	}
	aliases := base.Aliases()
	aliases["x"] = "y"
	if got := base.Normalize("x"); got != "x" {
		t.Errorf("Aliases() returned the schema's own map: Normalize(x) = %q", got)
	}
}

func TestSchemaWellKnown(t *testing.T) {
	t.Parallel()
	want := []string{
		requirements.LabelCapacityType, requirements.LabelNodePool, arch, requirements.LabelOS,
		requirements.LabelInstanceType, requirements.LabelWindowsBuild, requirements.LabelTopologyRegion, zone,
	}
	if diff := gocmp.Diff(want, requirements.DefaultSchema().WellKnownKeys()); diff != "" {
		t.Errorf("WellKnownKeys() mismatch (-want +got):\n%s", diff)
	}
	s := requirements.Schema{}.WithWellKnown("example.com/size")
	got := []bool{s.IsWellKnown("example.com/size"), s.IsWellKnown(zone), requirements.DefaultSchema().IsWellKnown("beta.kubernetes.io/arch")}
	if diff := gocmp.Diff([]bool{true, false, true}, got); diff != "" {
		t.Errorf("IsWellKnown() mismatch (-want +got):\n%s", diff)
	}
}

// TestSchemaIsRestricted covers B-033..B-035 and provider domains.
func TestSchemaIsRestricted(t *testing.T) {
	t.Parallel()
	aws := requirements.DefaultSchema().
		WithRestrictedDomains("karpenter.k8s.aws").
		WithWellKnown("karpenter.k8s.aws/instance-family")
	tests := []struct {
		name   string
		schema requirements.Schema
		key    string
		want   bool
	}{
		{name: "B-033 hostname", schema: requirements.DefaultSchema(), key: requirements.LabelHostname, want: true},
		{name: "B-034 karpenter.sh/test", schema: requirements.DefaultSchema(), key: "karpenter.sh/test", want: true},
		{name: "B-034 karpenter.sh/initialized is not well-known", schema: requirements.DefaultSchema(), key: requirements.LabelNodeInitialized, want: true},
		{name: "subdomain of karpenter.sh", schema: requirements.DefaultSchema(), key: "x.karpenter.sh/test", want: true},
		{name: "B-034 karpenter.sh/nodepool", schema: requirements.DefaultSchema(), key: requirements.LabelNodePool},
		{name: "B-034 karpenter.sh/capacity-type", schema: requirements.DefaultSchema(), key: ct},
		{name: "B-035 kubernetes.io/test", schema: requirements.DefaultSchema(), key: "kubernetes.io/test"},
		{name: "B-035 k8s.io/test", schema: requirements.DefaultSchema(), key: "k8s.io/test"},
		{name: "B-035 subdomain.kubernetes.io/test", schema: requirements.DefaultSchema(), key: "subdomain.kubernetes.io/test"},
		{name: "a domain ending in karpenter.sh is not a subdomain", schema: requirements.DefaultSchema(), key: "notkarpenter.sh/test"},
		{name: "no prefix", schema: requirements.DefaultSchema(), key: "karpenter.sh"},
		{name: "custom", schema: requirements.DefaultSchema(), key: team},
		{name: "provider domain", schema: aws, key: "karpenter.k8s.aws/instance-cpu", want: true},
		{name: "provider domain, well-known key", schema: aws, key: "karpenter.k8s.aws/instance-family"},
		{name: "provider domain in the default schema", schema: requirements.DefaultSchema(), key: "karpenter.k8s.aws/instance-cpu"},
		{name: "hostname stays restricted when made well-known", schema: requirements.DefaultSchema().WithWellKnown(requirements.LabelHostname), key: requirements.LabelHostname, want: true},
		{name: "zero Schema restricts nothing", schema: requirements.Schema{}, key: requirements.LabelHostname},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, tt.schema.IsRestricted(tt.key)); diff != "" {
				t.Errorf("IsRestricted(%q) mismatch (-want +got):\n%s", tt.key, diff)
			}
			if diff := gocmp.Diff(tt.want, len(tt.schema.ValidateRestricted(nil, tt.key)) > 0); diff != "" {
				t.Errorf("ValidateRestricted(%q) reports an error mismatch (-want +got):\n%s", tt.key, diff)
			}
		})
	}
}

func TestSchemaHint(t *testing.T) {
	t.Parallel()
	s := requirements.DefaultSchema().WithWellKnown("example.com/zone-a", "example.com/zone-b")
	tests := []struct {
		name string
		key  string
		want string
	}{
		{name: "well-known key has no hint", key: zone},
		{name: "alias of a well-known key has no hint", key: "beta.kubernetes.io/arch"},
		{name: "ties go to the first key in sorted order", key: "example.com/zone-c", want: "example.com/zone-a"},
		{name: "the closest key wins over order", key: "example.com/zone-bb", want: "example.com/zone-b"},
		{name: "three edits is too far", key: "kubernetes.io/xyzh"},
		{name: "empty key", key: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, s.Hint(tt.key)); diff != "" {
				t.Errorf("Hint(%q) mismatch (-want +got):\n%s", tt.key, diff)
			}
		})
	}
}
