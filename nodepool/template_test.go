package nodepool_test

import (
	"errors"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

func TestNewTemplateRequirements(t *testing.T) {
	tests := []struct {
		name string
		np   nodepool.NodePool
		want []string // Requirements.String, key by key
	}{
		{
			name: "nodepool name is a requirement",
			np:   testutil.NodePool("a").Obj(),
			want: []string{"karpenter.sh/nodepool In [a]"},
		},
		{
			name: "deprecated keys are normalised",
			np: testutil.NodePool("a").
				Requirement("failure-domain.beta.kubernetes.io/zone", corev1.NodeSelectorOpIn, "z1", "z2").
				Label("beta.kubernetes.io/arch", "arm64").Obj(),
			want: []string{"karpenter.sh/nodepool In [a]", "kubernetes.io/arch In [arm64]", "topology.kubernetes.io/zone In [z1 z2]"},
		},
		{
			name: "same key intersected, larger minValues kept",
			np: testutil.NodePool("a").
				Requirement(labelInstanceFamily, corev1.NodeSelectorOpIn, "c5", "m5", "r5").MinValues(1).
				Requirement(labelInstanceFamily, corev1.NodeSelectorOpNotIn, "r5").
				Requirement(labelInstanceFamily, corev1.NodeSelectorOpExists).MinValues(2).Obj(),
			want: []string{"karpenter.k8s.aws/instance-family In [c5 m5] minValues 2", "karpenter.sh/nodepool In [a]"},
		},
		{
			name: "labels intersect requirements (B-043)",
			np: testutil.NodePool("a").
				Requirement("team", corev1.NodeSelectorOpIn, "a", "b").Label("team", "a").Obj(),
			want: []string{"karpenter.sh/nodepool In [a]", "team In [a]"},
		},
		{
			name: "capacity-type values Karpenter does not know are dropped (B-042)",
			np:   testutil.NodePool("a").Requirement(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, "spot", "bogus").Obj(),
			want: []string{"karpenter.sh/capacity-type In [spot]", "karpenter.sh/nodepool In [a]"},
		},
		{
			name: "Gt and Lt become bounds",
			np: testutil.NodePool("a").
				Requirement(labelLocalNVMe, corev1.NodeSelectorOpGt, "99").
				Requirement(labelLocalNVMe, corev1.NodeSelectorOpLt, "1000").Obj(),
			want: []string{"karpenter.k8s.aws/instance-local-nvme Exists >=100 <=999", "karpenter.sh/nodepool In [a]"},
		},
		{
			name: "EC2NodeClass adds its label",
			np:   testutil.NodePool("a").NodeClassRef("karpenter.k8s.aws", "EC2NodeClass", "web").Obj(),
			want: []string{"karpenter.k8s.aws/ec2nodeclass In [web]", "karpenter.sh/nodepool In [a]"},
		},
		{
			name: "other node classes add nothing",
			np:   testutil.NodePool("a").NodeClassRef("example.com", "KWOKNodeClass", "web").Obj(),
			want: []string{"karpenter.sh/nodepool In [a]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmpl := mustTemplate(t, tc.np)
			var got []string
			for r := range tmpl.Requirements.All() {
				got = append(got, r.String())
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("requirements (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewTemplateFields(t *testing.T) {
	np := testutil.NodePool("gpu").Weight(30).
		Label("beta.kubernetes.io/os", "linux").Label("team", "ml").Annotation("example.com/owner", "ml").
		Taint("nvidia.com/gpu", "true", corev1.TaintEffectNoSchedule).
		StartupTaint("example.com/not-ready", "", corev1.TaintEffectNoExecute).
		Limit(corev1.ResourceCPU, "100").Limit(nodepool.ResourceNodes, "5").
		NodeClassRef("karpenter.k8s.aws", "EC2NodeClass", "gpu").Obj()
	got := mustTemplate(t, np)
	want := nodepool.Template{
		Name:   "gpu",
		Weight: 30,
		Requirements: requirements.NewRequirements(
			requirements.In(labelEC2NodeClass, "gpu"),
			requirements.In(requirements.LabelNodePool, "gpu"),
			requirements.In(requirements.LabelOS, "linux"),
			requirements.In("team", "ml"),
		),
		Labels: map[string]string{
			labelEC2NodeClass: "gpu", requirements.LabelNodePool: "gpu", requirements.LabelOS: "linux", "team": "ml",
		},
		Annotations:   map[string]string{"example.com/owner": "ml"},
		Taints:        []corev1.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
		StartupTaints: []corev1.Taint{{Key: "example.com/not-ready", Effect: corev1.TaintEffectNoExecute}},
		Limits:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100"), nodepool.ResourceNodes: resource.MustParse("5")},
		NodeClassRef:  &nodepool.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "gpu"},
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("template (-want +got):\n%s", diff)
	}
	if w := mustTemplate(t, testutil.NodePool("unweighted").Obj()).Weight; w != 0 {
		t.Errorf("unset weight: want 0, got %d", w)
	}
}

// TestNewTemplateSharesNothing: changing the NodePool after NewTemplate
// leaves the template as it was.
func TestNewTemplateSharesNothing(t *testing.T) {
	np := testutil.NodePool("a").Label("team", "a").Annotation("x", "y").
		Requirement("team", corev1.NodeSelectorOpIn, "a", "b").
		Taint("k", "v", corev1.TaintEffectNoSchedule).StartupTaint("s", "v", corev1.TaintEffectNoSchedule).
		Limit(corev1.ResourceCPU, "10").NodeClassRef("g", "K", "n").Obj()
	tmpl := mustTemplate(t, np)
	want := mustTemplate(t, np.DeepCopy())

	np.Spec.Template.ObjectMeta.Labels["team"] = "changed"
	np.Spec.Template.ObjectMeta.Annotations["x"] = "changed"
	np.Spec.Template.Spec.Requirements[0].Values[0] = "changed"
	np.Spec.Template.Spec.Taints[0].Key = "changed"
	np.Spec.Template.Spec.StartupTaints[0].Key = "changed"
	np.Spec.Limits[corev1.ResourceCPU] = resource.MustParse("1")
	np.Spec.Template.Spec.NodeClassRef.Name = "changed"

	if diff := gocmp.Diff(want, tmpl); diff != "" {
		t.Errorf("template changed with its NodePool (-want +got):\n%s", diff)
	}
}

func TestNewTemplateErrors(t *testing.T) {
	_, err := nodepool.NewTemplate(testutil.NodePool("gpu").Weight(0).Obj(), testSchema())
	require.Error(t, err)
	ie := invalidErr(t, err)
	if diff := gocmp.Diff("gpu", ie.Name); diff != "" {
		t.Errorf("name (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(`nodepool "gpu": spec.weight: Invalid value: 0: must be within 1..100`, err.Error()); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}

	_, err = nodepool.NewTemplate(testutil.NodePool("static").Replicas(3).Obj(), testSchema())
	var se *nodepool.StaticError
	require.True(t, errors.As(err, &se), "want *StaticError, got %v", err)
	if diff := gocmp.Diff("static", se.Name); diff != "" {
		t.Errorf("name (-want +got):\n%s", diff)
	}
}

// TestNewTemplateContradiction: requirements that contradict each other are
// accepted, as Karpenter accepts them; the template's requirement on that
// key is empty, so no instance type will fit.
func TestNewTemplateContradiction(t *testing.T) {
	np := testutil.NodePool("a").Requirement("kubernetes.io/arch", corev1.NodeSelectorOpIn, "amd64").
		Label("kubernetes.io/arch", "arm64").Obj()
	tmpl := mustTemplate(t, np)
	key, empty := tmpl.Requirements.Empty()
	if diff := gocmp.Diff([]any{"kubernetes.io/arch", true}, []any{key, empty}); diff != "" {
		t.Errorf("Empty (-want +got):\n%s", diff)
	}
}

func TestTemplatesOrder(t *testing.T) {
	pools := []nodepool.NodePool{
		testutil.NodePool("np-1").Weight(20).Obj(),
		testutil.NodePool("unweighted").Obj(),
		testutil.NodePool("heavy").Weight(100).Obj(),
		testutil.NodePool("np-2").Weight(20).Obj(),
		testutil.NodePool("static").Weight(100).Replicas(2).Obj(),
	}
	ts, err := nodepool.Templates(pools, testSchema())
	require.NoError(t, err)
	var got []string
	for _, tmpl := range ts {
		got = append(got, tmpl.Name)
	}
	// Weight descending (B-160), ties by name descending (B-161); the
	// static pool is left out (B-163).
	if diff := gocmp.Diff([]string{"heavy", "np-2", "np-1", "unweighted"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestTemplatesErrors(t *testing.T) {
	pools := []nodepool.NodePool{
		testutil.NodePool("gpu").Weight(0).Obj(),
		testutil.NodePool("ok").Obj(),
		testutil.NodePool("spot").Requirement(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, "bogus").Obj(),
		testutil.NodePool("ok").Weight(5).Obj(),
		testutil.NodePool("static").Replicas(-1).Obj(),
	}
	ts, err := nodepool.Templates(pools, testSchema())
	require.Error(t, err)
	if len(ts) != 0 {
		t.Errorf("want no templates on error, got %d", len(ts))
	}
	joined, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "want errors.Join of one error per pool, got %T", err)
	var got []fieldErr
	for _, one := range joined.Unwrap() {
		got = append(got, fieldErrs(invalidErr(t, one).Errs)...)
	}
	want := []fieldErr{
		{field.ErrorTypeInvalid, `nodepool "gpu": spec.weight`},
		{field.ErrorTypeInvalid, `nodepool "spot": spec.template.spec.requirements[0].values`},
		{field.ErrorTypeDuplicate, `nodepool "ok": metadata.name`},
		{field.ErrorTypeInvalid, `nodepool "static": spec.replicas`},
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s\n%v", diff, err)
	}
}

func TestIsStatic(t *testing.T) {
	if testutil.NodePool("a").Obj().IsStatic() {
		t.Error("a NodePool without replicas is dynamic")
	}
	if !testutil.NodePool("a").Replicas(0).Obj().IsStatic() {
		t.Error("a NodePool with replicas (even 0) is static")
	}
}
