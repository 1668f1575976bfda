package nodepool_test

import (
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/nodepool"
)

const minimalV1 = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: a
spec:
  template:
    spec:
      requirements: []
`

func TestDecodeStrictErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []fieldErr
		// wantMsg is a fragment of the error text.
		wantMsg string
	}{
		{
			name:    "misspelled weight",
			doc:     minimalV1 + "  weigth: 10\n",
			want:    []fieldErr{{field.ErrorTypeForbidden, `nodepool "a": spec.weigth`}},
			wantMsg: `nodepool "a": spec.weigth: Forbidden: unknown field (did you mean "weight"?)`,
		},
		{
			name:    "singular requirement",
			doc:     strings.Replace(minimalV1, "requirements:", "requirement:", 1),
			want:    []fieldErr{{field.ErrorTypeForbidden, `nodepool "a": spec.template.spec.requirement`}},
			wantMsg: `(did you mean "requirements"?)`,
		},
		{
			name:    "field names are case-sensitive",
			doc:     minimalV1 + "  Weight: 10\n",
			want:    []fieldErr{{field.ErrorTypeForbidden, `nodepool "a": spec.Weight`}},
			wantMsg: `(did you mean "weight"?)`,
		},
		{
			name: "unknown field inside a list",
			doc: strings.Replace(minimalV1, "requirements: []",
				"requirements:\n        - {key: a, operator: In, value: [x]}", 1),
			want:    []fieldErr{{field.ErrorTypeForbidden, `nodepool "a": spec.template.spec.requirements[0].value`}},
			wantMsg: `(did you mean "values"?)`,
		},
		{
			name: "every unknown field is reported",
			doc:  minimalV1 + "  weigth: 10\n  limit: {}\n",
			want: []fieldErr{
				{field.ErrorTypeForbidden, `nodepool "a": spec.limit`},
				{field.ErrorTypeForbidden, `nodepool "a": spec.weigth`},
			},
		},
		{
			name:    "v1 has no kubelet block",
			doc:     strings.Replace(minimalV1, "requirements: []", "requirements: []\n      kubelet: {maxPods: 110}", 1),
			want:    []fieldErr{{field.ErrorTypeForbidden, `nodepool "a": spec.template.spec.kubelet`}},
			wantMsg: "unknown field",
		},
		{
			name: "v1 has no disruption.expireAfter",
			doc:  minimalV1 + "  disruption:\n    expireAfter: 720h\n",
			want: []fieldErr{{field.ErrorTypeForbidden, `nodepool "a": spec.disruption.expireAfter`}},
		},
		{
			name:    "duplicate key",
			doc:     minimalV1 + "  weight: 1\n  weight: 2\n",
			want:    []fieldErr{{field.ErrorTypeInvalid, `nodepool`}},
			wantMsg: `key "weight" already set`,
		},
		{
			name:    "bad quantity names the limit",
			doc:     minimalV1 + "  limits:\n    cpu: lots\n",
			want:    []fieldErr{{field.ErrorTypeInvalid, `nodepool "a": spec.limits[cpu]`}},
			wantMsg: "quantities must match",
		},
		{
			name:    "wrong type names the field",
			doc:     minimalV1 + "  weight: heavy\n",
			want:    []fieldErr{{field.ErrorTypeInvalid, `nodepool "a": spec.weight`}},
			wantMsg: `"heavy"`,
		},
		{
			name:    "bad duration names the field",
			doc:     strings.Replace(minimalV1, "requirements: []", "requirements: []\n      terminationGracePeriod: soon", 1),
			want:    []fieldErr{{field.ErrorTypeInvalid, `nodepool "a": spec.template.spec.terminationGracePeriod`}},
			wantMsg: "invalid duration",
		},
		{
			name:    "label value must be a string",
			doc:     strings.Replace(minimalV1, "  template:\n", "  template:\n    metadata:\n      labels: {tier: [a]}\n", 1),
			want:    []fieldErr{{field.ErrorTypeInvalid, `nodepool "a": spec.template.metadata.labels[tier]`}},
			wantMsg: "want string, got list",
		},
		{
			name: "other apiVersion",
			doc:  strings.Replace(minimalV1, "karpenter.sh/v1", "karpenter.sh/v2", 1),
			want: []fieldErr{{field.ErrorTypeNotSupported, `nodepool "a": apiVersion`}},
		},
		{
			name: "v1alpha5 Provisioner",
			doc:  "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: default}\n",
			want: []fieldErr{
				{field.ErrorTypeNotSupported, `nodepool "default": kind`},
				{field.ErrorTypeNotSupported, `nodepool "default": apiVersion`},
			},
		},
		{
			name: "missing apiVersion and kind",
			doc:  "metadata: {name: a}\nspec: {}\n",
			want: []fieldErr{
				{field.ErrorTypeNotSupported, `nodepool "a": kind`},
				{field.ErrorTypeNotSupported, `nodepool "a": apiVersion`},
			},
		},
		{
			name:    "not an object",
			doc:     "- a\n- b\n",
			want:    []fieldErr{{field.ErrorTypeInvalid, `nodepool`}},
			wantMsg: "must be an object",
		},
		{
			name:    "yaml syntax",
			doc:     "apiVersion: karpenter.sh/v1\nkind: [NodePool\n",
			want:    []fieldErr{{field.ErrorTypeInvalid, `nodepool`}},
			wantMsg: "yaml",
		},
		{
			name:    "empty",
			doc:     "# nothing here\n",
			want:    []fieldErr{{field.ErrorTypeRequired, `nodepool`}},
			wantMsg: "empty",
		},
		{
			name:    "two documents",
			doc:     minimalV1 + "---\n" + minimalV1,
			want:    []fieldErr{{field.ErrorTypeInvalid, `nodepool`}},
			wantMsg: "2 documents",
		},
		{
			name: "v1beta1 expireAfter twice, differently",
			doc: strings.Replace(strings.Replace(minimalV1, "karpenter.sh/v1", "karpenter.sh/v1beta1", 1),
				"requirements: []", "requirements: []\n      expireAfter: 24h", 1) +
				"  disruption:\n    expireAfter: 720h\n",
			want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "a": spec.disruption.expireAfter`}},
		},
		{
			name: "v1beta1 nodeClassRef group and apiVersion disagree",
			doc: strings.Replace(strings.Replace(minimalV1, "karpenter.sh/v1", "karpenter.sh/v1beta1", 1),
				"requirements: []", "requirements: []\n      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, group: example.com, kind: EC2NodeClass, name: default}", 1),
			want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "a": spec.template.spec.nodeClassRef.group`}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := nodepool.Decode([]byte(tc.doc))
			require.Error(t, err)
			ie := invalidErr(t, err)
			if diff := gocmp.Diff(tc.want, fieldErrs(ie.Errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nerror: %v", diff, err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestDecodeV1(t *testing.T) {
	doc := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
  uid: 3f1e0c52-0000-4000-8000-000000000000
spec:
  weight: 20
  limits:
    cpu: 100
    memory: 10M
    nodes: "5"
  template:
    spec:
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: [amd64]
          minValues: 1
      expireAfter: Never
  disruption:
    consolidateAfter: Never
    consolidationPolicy: WhenEmpty
status:
  conditions:
    - type: Ready
      status: "True"
`
	np, err := nodepool.Decode([]byte(doc))
	require.NoError(t, err)
	one, weight, never := 1, int32(20), "Never"
	want := nodepool.Spec{
		Weight: &weight,
		Limits: corev1.ResourceList{
			corev1.ResourceCPU:     resource.MustParse("100"),
			corev1.ResourceMemory:  resource.MustParse("10M"),
			nodepool.ResourceNodes: resource.MustParse("5"),
		},
		Template: nodepool.NodeClaimTemplate{Spec: nodepool.NodeClaimTemplateSpec{
			Requirements: []nodepool.NodeSelectorRequirementWithMinValues{
				{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}, MinValues: &one},
			},
			ExpireAfter: &never,
		}},
		Disruption: &nodepool.Disruption{ConsolidateAfter: &never, ConsolidationPolicy: nodepool.ConsolidationWhenEmpty},
	}
	if diff := gocmp.Diff(want, np.Spec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]string{nodepool.APIVersionV1, nodepool.Kind, "default"}, []string{np.APIVersion, np.Kind, np.Name}); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
}

func TestDecodeJSON(t *testing.T) {
	doc := `{"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"j"},
	 "spec":{"limits":{"cpu":8},"template":{"spec":{"requirements":[{"key":"team","operator":"Exists"}]}}}}`
	np, err := nodepool.Decode([]byte(doc))
	require.NoError(t, err)
	if diff := gocmp.Diff(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}, np.Spec.Limits); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
	_, err = nodepool.Decode([]byte(strings.Replace(doc, `"limits"`, `"limitz"`, 1)))
	require.Error(t, err)
	if diff := gocmp.Diff([]fieldErr{{field.ErrorTypeForbidden, `nodepool "j": spec.limitz`}}, fieldErrs(invalidErr(t, err).Errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestDecodeV1beta1(t *testing.T) {
	doc := `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: legacy
spec:
  template:
    spec:
      nodeClassRef:
        apiVersion: karpenter.k8s.aws/v1beta1
        kind: EC2NodeClass
        name: default
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot"]
      kubelet:
        maxPods: 110
        systemReserved: {cpu: 100m}
      resources:
        requests: {cpu: "1"}
  limits:
    cpu: 1000
  disruption:
    consolidationPolicy: WhenUnderutilized
    expireAfter: 720h
`
	np, err := nodepool.Decode([]byte(doc))
	require.NoError(t, err)
	expire := "720h"
	want := nodepool.NodePool{}
	want.APIVersion, want.Kind, want.Name = nodepool.APIVersionV1, nodepool.Kind, "legacy"
	want.Spec = nodepool.Spec{
		Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000")},
		Template: nodepool.NodeClaimTemplate{Spec: nodepool.NodeClaimTemplateSpec{
			NodeClassRef: &nodepool.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
			Requirements: []nodepool.NodeSelectorRequirementWithMinValues{
				{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}},
			},
			ExpireAfter: &expire,
		}},
		Disruption: &nodepool.Disruption{ConsolidationPolicy: nodepool.ConsolidationWhenEmptyOrUnderutilized},
	}
	if diff := gocmp.Diff(want, np); diff != "" {
		t.Errorf("NodePool (-want +got):\n%s", diff)
	}
	require.Empty(t, nodepool.Validate(np, testSchema()))

	// The same policy name is not valid in v1.
	v1 := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: legacy
spec:
  template:
    spec:
      requirements: []
  disruption:
    consolidationPolicy: WhenUnderutilized
`
	np, err = nodepool.Decode([]byte(v1))
	require.NoError(t, err)
	errs := nodepool.Validate(np, testSchema())
	if diff := gocmp.Diff([]fieldErr{{field.ErrorTypeNotSupported, `nodepool "legacy": spec.disruption.consolidationPolicy`}}, fieldErrs(errs)); diff != "" {
		t.Errorf("v1 with WhenUnderutilized (-want +got):\n%s", diff)
	}
}

func TestDecodeAll(t *testing.T) {
	two := minimalV1 + "---\n# comment only\n---\n" + strings.Replace(minimalV1, "name: a", "name: b", 1)
	pools, err := nodepool.DecodeAll([]byte(two))
	require.NoError(t, err)
	var names []string
	for _, np := range pools {
		names = append(names, np.Name)
	}
	if diff := gocmp.Diff([]string{"a", "b"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	bad := minimalV1 + "---\n" + strings.Replace(minimalV1, "spec:\n  template", "spec:\n  weigth: 1\n  template", 1)
	_, err = nodepool.DecodeAll([]byte(bad))
	require.Error(t, err)
	if want := `document 1: nodepool "a": spec.weigth: Forbidden`; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}
