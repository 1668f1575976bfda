package apicheck_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/apicheck"
)

// kinds renders errors as "Type path" (messages are apimachinery's).
func kinds(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func requiredTerm(exprs ...corev1.NodeSelectorRequirement) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}}}}
}

func expr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func requests(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

const term = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"

func TestPod(t *testing.T) {
	t.Parallel()
	one := int32(1)
	tests := []struct {
		name string
		pod  corev1.Pod
		want []string
	}{
		{name: "valid", pod: corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"},
				Affinity: requiredTerm(expr("cpu", corev1.NodeSelectorOpGt, "3"), expr("team", corev1.NodeSelectorOpExists)),
				Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
					Requests: requests("cpu", "1", "nvidia.com/gpu", "1"), Limits: requests("cpu", "2", "nvidia.com/gpu", "1")}}},
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}, {Key: "a", Value: "b", Effect: corev1.TaintEffectNoSchedule}}}}},
		{name: "bad label key and value", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a b": "ok", "app": "-x"}}},
			want: []string{"FieldValueInvalid metadata.labels[a b]", "FieldValueInvalid metadata.labels[app]"}},
		{name: "bad node selector value", pod: corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"zone": "a/b"}}},
			want: []string{"FieldValueInvalid spec.nodeSelector[zone]"}},
		{name: "Exists with values", pod: corev1.Pod{Spec: corev1.PodSpec{Affinity: requiredTerm(expr("team", corev1.NodeSelectorOpExists, "a"))}},
			want: []string{"FieldValueForbidden " + term + ".values"}},
		{name: "DoesNotExist with values", pod: corev1.Pod{Spec: corev1.PodSpec{Affinity: requiredTerm(expr("team", corev1.NodeSelectorOpDoesNotExist, "a"))}},
			want: []string{"FieldValueForbidden " + term + ".values"}},
		{name: "Gt with a non-integer", pod: corev1.Pod{Spec: corev1.PodSpec{Affinity: requiredTerm(expr("cpu", corev1.NodeSelectorOpGt, "4.5"))}},
			want: []string{"FieldValueInvalid " + term + ".values[0]"}},
		{name: "Lt with two values", pod: corev1.Pod{Spec: corev1.PodSpec{Affinity: requiredTerm(expr("cpu", corev1.NodeSelectorOpLt, "1", "2"))}},
			want: []string{"FieldValueRequired " + term + ".values"}},
		{name: "In without values, bad key", pod: corev1.Pod{Spec: corev1.PodSpec{Affinity: requiredTerm(expr("-bad", corev1.NodeSelectorOpIn))}},
			want: []string{"FieldValueInvalid " + term + ".key", "FieldValueRequired " + term + ".values"}},
		{name: "unknown operator", pod: corev1.Pod{Spec: corev1.PodSpec{Affinity: requiredTerm(expr("a", "Within", "1"))}},
			want: []string{"FieldValueNotSupported " + term + ".operator"}},
		{name: "no terms", pod: corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{}}}}},
			want: []string{"FieldValueRequired spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"}},
		{name: "preferred weight out of range", pod: corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 0}}}}}},
			want: []string{"FieldValueInvalid spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight"}},
		{name: "pod affinity term", pod: corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: &metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists, Values: []string{"x"}}}}}}}}}},
			want: []string{"FieldValueForbidden spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values",
				"FieldValueRequired spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey"}},
		{name: "spread", pod: corev1.Pod{Spec: corev1.PodSpec{TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
			{MaxSkew: 0, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway, MinDomains: &one},
			{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway}}}},
			want: []string{"FieldValueInvalid spec.topologySpreadConstraints[0].maxSkew", "FieldValueInvalid spec.topologySpreadConstraints[0].minDomains",
				"FieldValueDuplicate spec.topologySpreadConstraints[1]"}},
		{name: "tolerations", pod: corev1.Pod{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{
			{Key: "a", Effect: "Never"}, {Key: "a", Operator: corev1.TolerationOpExists, Value: "v"}, {Value: "v"}}}},
			want: []string{"FieldValueNotSupported spec.tolerations[0].effect", "FieldValueInvalid spec.tolerations[1].value",
				"FieldValueInvalid spec.tolerations[2].operator"}},
		{name: "negative request, request above limit, fractional GPU, host port", pod: corev1.Pod{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: requests("memory", "-1Gi")}}},
			Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: requests("cpu", "2", "nvidia.com/gpu", "500m"), Limits: requests("cpu", "1")},
				Ports: []corev1.ContainerPort{{HostPort: 70000}}}}}},
			want: []string{"FieldValueInvalid spec.initContainers[0].resources.requests[memory]",
				"FieldValueInvalid spec.containers[0].resources.requests[nvidia.com/gpu]", "FieldValueInvalid spec.containers[0].resources.requests[cpu]",
				"FieldValueInvalid spec.containers[0].ports[0].hostPort"}},
		{name: "negative overhead", pod: corev1.Pod{Spec: corev1.PodSpec{Overhead: requests("cpu", "-100m")}},
			want: []string{"FieldValueInvalid spec.overhead[cpu]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, kinds(apicheck.Pod(&tt.pod))); diff != "" {
				t.Errorf("Pod() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNode(t *testing.T) {
	t.Parallel()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"zone": "a b"}}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{
		{Key: "a", Effect: "Never"},
		{Key: "b", Effect: corev1.TaintEffectNoSchedule},
		{Key: "b", Effect: corev1.TaintEffectNoSchedule},
		{Effect: corev1.TaintEffectNoExecute},
		{Key: "c"},
	}}}
	want := []string{"FieldValueInvalid metadata.labels[zone]", "FieldValueNotSupported spec.taints[0].effect",
		"FieldValueDuplicate spec.taints[2]", "FieldValueRequired spec.taints[3].key", "FieldValueRequired spec.taints[4].effect"}
	if diff := gocmp.Diff(want, kinds(apicheck.Node(n))); diff != "" {
		t.Errorf("Node() (-want +got):\n%s", diff)
	}
}

func TestNodeSelectorMatchFields(t *testing.T) {
	t.Parallel()
	term := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
		{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}},
		{Key: "metadata.labels", Operator: corev1.NodeSelectorOpExists},
	}}
	want := []string{"FieldValueInvalid t.matchFields[1].operator", "FieldValueNotSupported t.matchFields[1].key"}
	if diff := gocmp.Diff(want, kinds(apicheck.NodeSelectorTerm(field.NewPath("t"), term))); diff != "" {
		t.Errorf("NodeSelectorTerm() (-want +got):\n%s", diff)
	}
}

// TestPodDisruptionBudgetSpec: the budgets the API server rejects, each
// named by its field.
func TestPodDisruptionBudgetSpec(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	budget := func(minAvailable, maxUnavailable *intstr.IntOrString) *policyv1.PodDisruptionBudgetSpec {
		return &policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable, Selector: sel}
	}
	n := func(i int) *intstr.IntOrString { v := intstr.FromInt32(int32(i)); return &v }
	pct := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	for _, tc := range []struct {
		name string
		spec *policyv1.PodDisruptionBudgetSpec
		want []string // field: detail, in order
	}{
		{"minAvailable 1", budget(n(1), nil), nil},
		{"maxUnavailable 0", budget(nil, n(0)), nil},
		{"minAvailable 100%", budget(pct("100%"), nil), nil},
		{"maxUnavailable 0%", budget(nil, pct("0%")), nil},
		{"neither", budget(nil, nil), nil},
		{"both", budget(n(1), n(1)), []string{"spec: minAvailable and maxUnavailable cannot both be set"}},
		{"a negative count", budget(nil, n(-1)), []string{"spec.maxUnavailable: must be greater than or equal to 0"}},
		{"above 100%", budget(pct("150%"), nil), []string{"spec.minAvailable: must not be greater than 100%"}},
		{"a fraction", budget(nil, pct("10.5%")), []string{"spec.maxUnavailable: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"}},
		{"a word", budget(pct("half"), nil), []string{"spec.minAvailable: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"}},
		{"a bad selector", &policyv1.PodDisruptionBudgetSpec{MinAvailable: n(1), Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}},
			[]string{"spec.selector.matchExpressions[0].operator: Unsupported value: \"Near\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\""}},
	} {
		var got []string
		for _, e := range apicheck.PodDisruptionBudgetSpec(field.NewPath("spec"), tc.spec) {
			if e.Type == field.ErrorTypeNotSupported {
				got = append(got, e.Error())
				continue
			}
			got = append(got, e.Field+": "+e.Detail)
		}
		if d := gocmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tc.name, d)
		}
	}
}
