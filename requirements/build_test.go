package requirements_test

import (
	"errors"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// errFields flattens an aggregated field error into what tests assert; nil
// for a nil error.
func errFields(t *testing.T, err error) []fieldErr {
	t.Helper()
	if err == nil {
		return nil
	}
	var agg utilerrors.Aggregate
	require.ErrorAs(t, err, &agg, "want a field.ErrorList aggregate, got %T: %v", err, err)
	var out []fieldErr
	for _, e := range agg.Errors() {
		var fe *field.Error
		require.True(t, errors.As(e, &fe), "want *field.Error, got %T: %v", e, e)
		out = append(out, fieldErr{Type: fe.Type, Field: fe.Field})
	}
	return out
}

func nsr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func TestFromNodeSelectorRequirements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		path    *field.Path
		exprs   []corev1.NodeSelectorRequirement
		want    string
		wantErr []fieldErr
	}{
		{name: "none", want: ""},
		{
			name: "expressions on one key are ANDed (B-026)",
			exprs: []corev1.NodeSelectorRequirement{
				nsr(zone, corev1.NodeSelectorOpIn, "non-existent"), nsr(zone, corev1.NodeSelectorOpExists),
			},
			want: "topology.kubernetes.io/zone In [non-existent]",
		},
		{
			name: "B-027 In∩NotIn",
			exprs: []corev1.NodeSelectorRequirement{
				nsr(zone, corev1.NodeSelectorOpIn, "z1", "z2"), nsr(zone, corev1.NodeSelectorOpNotIn, "z2"),
			},
			want: "topology.kubernetes.io/zone In [z1]",
		},
		{
			name: "B-029 deprecated keys are normalised and merged with stable ones",
			exprs: []corev1.NodeSelectorRequirement{
				nsr("failure-domain.beta.kubernetes.io/zone", corev1.NodeSelectorOpIn, "z1", "z2"),
				nsr(zone, corev1.NodeSelectorOpNotIn, "z1"),
				nsr("failure-domain.beta.kubernetes.io/region", corev1.NodeSelectorOpIn, "r1"),
				nsr("beta.kubernetes.io/arch", corev1.NodeSelectorOpIn, "arm64"),
				nsr("beta.kubernetes.io/os", corev1.NodeSelectorOpIn, "linux"),
				nsr("beta.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, "m5.large"),
			},
			want: "kubernetes.io/arch In [arm64], kubernetes.io/os In [linux], node.kubernetes.io/instance-type In [m5.large], " +
				"topology.kubernetes.io/region In [r1], topology.kubernetes.io/zone In [z2]",
		},
		{
			name:  "Gt and Lt",
			exprs: []corev1.NodeSelectorRequirement{nsr("cpu", corev1.NodeSelectorOpGt, "1"), nsr("cpu", corev1.NodeSelectorOpLt, "9")},
			want:  "cpu Exists >=2 <=8",
		},
		{
			name: "every invalid expression is reported, under the default path",
			exprs: []corev1.NodeSelectorRequirement{
				nsr(zone, corev1.NodeSelectorOpIn, "z1"),
				nsr("cpu", corev1.NodeSelectorOpGt, "-1"),
				nsr(team, corev1.NodeSelectorOpIn),
				nsr(team, "Near", "a"),
			},
			wantErr: []fieldErr{
				{Type: field.ErrorTypeInvalid, Field: "matchExpressions[1].values[0]"},
				{Type: field.ErrorTypeInvalid, Field: "matchExpressions[1].values[0]"},
				{Type: field.ErrorTypeRequired, Field: "matchExpressions[2].values"},
				{Type: field.ErrorTypeNotSupported, Field: "matchExpressions[3].operator"},
			},
		},
		{
			name:    "errors under a given path",
			path:    field.NewPath("spec", "template", "spec", "requirements"),
			exprs:   []corev1.NodeSelectorRequirement{nsr("bad key", corev1.NodeSelectorOpExists)},
			wantErr: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "spec.template.spec.requirements[0].key"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := requirements.DefaultSchema().FromNodeSelectorRequirements(tt.path, tt.exprs)
			if diff := gocmp.Diff(tt.wantErr, errFields(t, err)); diff != "" {
				t.Fatalf("FromNodeSelectorRequirements() error mismatch (-want +got):\n%s\n%v", diff, err)
			}
			if diff := gocmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("FromNodeSelectorRequirements() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFromNodeSelectorRequirementsAlias covers B-031: a provider alias is
// read as the stable key.
func TestFromNodeSelectorRequirementsAlias(t *testing.T) {
	t.Parallel()
	s := requirements.DefaultSchema().WithAliases(map[string]string{"topology.ebs.csi.aws.com/zone": zone})
	got, err := s.FromNodeSelectorRequirements(nil, []corev1.NodeSelectorRequirement{
		nsr("topology.ebs.csi.aws.com/zone", corev1.NodeSelectorOpIn, "us-east-1a", "us-east-1b"),
	})
	require.NoError(t, err)
	want := requirements.NewRequirements(requirements.In(zone, "us-east-1a", "us-east-1b"))
	if diff := gocmp.Diff(want.String(), got.String()); diff != "" {
		t.Errorf("FromNodeSelectorRequirements() mismatch (-want +got):\n%s", diff)
	}
}

func TestFromNodeSelectorTerm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		path    *field.Path
		term    corev1.NodeSelectorTerm
		want    string
		wantErr []fieldErr
	}{
		{
			name: "matchExpressions",
			term: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{nsr(arch, corev1.NodeSelectorOpIn, "amd64")}},
			want: "kubernetes.io/arch In [amd64]",
		},
		{name: "empty term", term: corev1.NodeSelectorTerm{}},
		{
			name: "matchFields is an error",
			term: corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{nsr(arch, corev1.NodeSelectorOpIn, "amd64")},
				MatchFields:      []corev1.NodeSelectorRequirement{nsr("metadata.name", corev1.NodeSelectorOpIn, "node-1")},
			},
			wantErr: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "nodeSelectorTerm.matchFields"}},
		},
		{
			name:    "expression errors are under matchExpressions",
			path:    field.NewPath("terms").Index(2),
			term:    corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{nsr(arch, corev1.NodeSelectorOpExists, "amd64")}},
			wantErr: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "terms[2].matchExpressions[0].values"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := requirements.DefaultSchema().FromNodeSelectorTerm(tt.path, tt.term)
			if diff := gocmp.Diff(tt.wantErr, errFields(t, err)); diff != "" {
				t.Fatalf("FromNodeSelectorTerm() error mismatch (-want +got):\n%s\n%v", diff, err)
			}
			if diff := gocmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("FromNodeSelectorTerm() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromLabels(t *testing.T) {
	t.Parallel()
	labels := map[string]string{
		"beta.kubernetes.io/arch": "amd64",
		"beta.kubernetes.io/os":   "linux",
		zone:                      "z1",
		team:                      "a",
	}
	got := requirements.DefaultSchema().FromLabels(labels)
	want := "kubernetes.io/arch In [amd64], kubernetes.io/os In [linux], team In [a], topology.kubernetes.io/zone In [z1]"
	if diff := gocmp.Diff(want, got.String()); diff != "" {
		t.Errorf("FromLabels() mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(map[string]string{arch: "amd64", requirements.LabelOS: "linux", zone: "z1", team: "a"}, got.Labels()); diff != "" {
		t.Errorf("FromLabels().Labels() mismatch (-want +got):\n%s", diff)
	}
	// A deprecated and a stable key that disagree leave nothing possible.
	conflict := requirements.DefaultSchema().FromLabels(map[string]string{"failure-domain.beta.kubernetes.io/zone": "z1", zone: "z2"})
	if key, empty := conflict.Empty(); !empty || key != zone {
		t.Errorf("FromLabels() with conflicting aliases: Empty() = %q, %v; want %q, true", key, empty, zone)
	}
}

func TestForPod(t *testing.T) {
	t.Parallel()
	const termPath = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	tests := []struct {
		name         string
		nodeSelector map[string]string
		term         *corev1.NodeSelectorTerm
		want         string
		wantErr      []fieldErr
	}{
		{name: "nothing", want: ""},
		{
			name:         "nodeSelector only, normalised (B-029)",
			nodeSelector: map[string]string{"beta.kubernetes.io/instance-type": "small"},
			want:         "node.kubernetes.io/instance-type In [small]",
		},
		{
			name:         "nodeSelector AND the term",
			nodeSelector: map[string]string{zone: "z1", team: "a"},
			term: &corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				nsr("failure-domain.beta.kubernetes.io/zone", corev1.NodeSelectorOpIn, "z1", "z2"),
				nsr(arch, corev1.NodeSelectorOpIn, "arm64"),
			}},
			want: "kubernetes.io/arch In [arm64], team In [a], topology.kubernetes.io/zone In [z1]",
		},
		{
			name:         "nodeSelector and term that disagree give an empty key",
			nodeSelector: map[string]string{zone: "z1"},
			term:         &corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{nsr(zone, corev1.NodeSelectorOpNotIn, "z1")}},
			want:         "topology.kubernetes.io/zone In []",
		},
		{
			name:         "B-034 karpenter.sh/nodepool and capacity-type are allowed",
			nodeSelector: map[string]string{requirements.LabelNodePool: "default"},
			term:         &corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{nsr(ct, corev1.NodeSelectorOpIn, "spot")}},
			want:         "karpenter.sh/capacity-type In [spot], karpenter.sh/nodepool In [default]",
		},
		{
			name:         "B-035 kubernetes domains are allowed",
			nodeSelector: map[string]string{"kubernetes.io/test": "x", "k8s.io/test": "y", "subdomain.kubernetes.io/test": "z"},
			want:         "k8s.io/test In [y], kubernetes.io/test In [x], subdomain.kubernetes.io/test In [z]",
		},
		{
			name:         "B-033 hostname in the nodeSelector",
			nodeSelector: map[string]string{requirements.LabelHostname: "node-1"},
			wantErr:      []fieldErr{{Type: field.ErrorTypeForbidden, Field: "spec.nodeSelector[kubernetes.io/hostname]"}},
		},
		{
			name:    "B-033 hostname in the required term",
			term:    &corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{nsr(arch, corev1.NodeSelectorOpExists), nsr(requirements.LabelHostname, corev1.NodeSelectorOpIn, "node-1")}},
			wantErr: []fieldErr{{Type: field.ErrorTypeForbidden, Field: termPath + ".matchExpressions[1].key"}},
		},
		{
			name:    "B-034 restricted domain in the required term",
			term:    &corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{nsr("karpenter.sh/test", corev1.NodeSelectorOpIn, "x")}},
			wantErr: []fieldErr{{Type: field.ErrorTypeForbidden, Field: termPath + ".matchExpressions[0].key"}},
		},
		{
			name:    "B-037 matchFields",
			term:    &corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{nsr("metadata.name", corev1.NodeSelectorOpIn, "node-1")}},
			wantErr: []fieldErr{{Type: field.ErrorTypeInvalid, Field: termPath + ".matchFields"}},
		},
		{
			name:    "B-037 Gt with a word",
			term:    &corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{nsr("cpu", corev1.NodeSelectorOpGt, "many")}},
			wantErr: []fieldErr{{Type: field.ErrorTypeInvalid, Field: termPath + ".matchExpressions[0].values[0]"}},
		},
		{
			name:         "every error at once, in a fixed order",
			nodeSelector: map[string]string{"karpenter.sh/b": "x", requirements.LabelHostname: "n", "bad key": "v", "ok": "-bad"},
			term:         &corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{nsr("karpenter.sh/c", corev1.NodeSelectorOpIn)}},
			wantErr: []fieldErr{
				{Type: field.ErrorTypeInvalid, Field: "spec.nodeSelector[bad key]"},
				{Type: field.ErrorTypeInvalid, Field: "spec.nodeSelector[ok]"},
				{Type: field.ErrorTypeForbidden, Field: "spec.nodeSelector[karpenter.sh/b]"},
				{Type: field.ErrorTypeForbidden, Field: "spec.nodeSelector[kubernetes.io/hostname]"},
				{Type: field.ErrorTypeRequired, Field: termPath + ".matchExpressions[0].values"},
				{Type: field.ErrorTypeForbidden, Field: termPath + ".matchExpressions[0].key"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := requirements.DefaultSchema().ForPod(tt.nodeSelector, tt.term)
			if diff := gocmp.Diff(tt.wantErr, errFields(t, err)); diff != "" {
				t.Fatalf("ForPod() error mismatch (-want +got):\n%s\n%v", diff, err)
			}
			if diff := gocmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("ForPod() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestForPodDoesNotMutateInput: the pod's selector and term stay as given.
func TestForPodDoesNotMutateInput(t *testing.T) {
	t.Parallel()
	selector := map[string]string{"beta.kubernetes.io/arch": "amd64"}
	term := &corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{nsr(zone, corev1.NodeSelectorOpIn, "z2", "z1")}}
	_, err := requirements.DefaultSchema().ForPod(selector, term)
	require.NoError(t, err)
	if diff := gocmp.Diff(map[string]string{"beta.kubernetes.io/arch": "amd64"}, selector); diff != "" {
		t.Errorf("ForPod() changed the nodeSelector (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]string{"z2", "z1"}, term.MatchExpressions[0].Values); diff != "" {
		t.Errorf("ForPod() changed the term's values (-want +got):\n%s", diff)
	}
}

func TestSchemaParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		key       string
		op        requirements.Operator
		values    []string
		minValues int
		want      string
		wantErr   bool
	}{
		{name: "normalised with minValues", key: "failure-domain.beta.kubernetes.io/zone", op: requirements.OpIn, values: []string{"z1", "z2"}, minValues: 2, want: "topology.kubernetes.io/zone In [z1 z2] minValues 2"},
		{name: "minValues 0 is none", key: team, op: requirements.OpExists, want: "team Exists"},
		{name: "minValues above the In values", key: team, op: requirements.OpIn, values: []string{"a"}, minValues: 2, wantErr: true},
		{name: "negative Gt", key: "cpu", op: requirements.OpGt, values: []string{"-1"}, wantErr: true},
		{name: "negative minValues", key: team, op: requirements.OpExists, minValues: -1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := requirements.DefaultSchema().Parse(tt.key, tt.op, tt.values, tt.minValues)
			if diff := gocmp.Diff(tt.wantErr, err != nil); diff != "" {
				t.Fatalf("Parse() error mismatch (-want +got):\n%s\n%v", diff, err)
			}
			if tt.wantErr {
				return
			}
			if diff := gocmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
