package kube_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/internal/kube"
)

func TestNamespaceAndKey(t *testing.T) {
	t.Parallel()
	got := []string{kube.Namespace(""), kube.Namespace("shop"), kube.Key("", "web-0"), kube.Key("shop", "web-0")}
	want := []string{"default", "shop", "default/web-0", "shop/web-0"}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestIsGone(t *testing.T) {
	t.Parallel()
	now := metav1.Now()
	tests := []struct {
		name string
		pod  corev1.Pod
		want bool
	}{
		{name: "running", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning}}},
		{name: "pending phase", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending}}},
		{name: "succeeded", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, want: true},
		{name: "failed", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed}}, want: true},
		{name: "being deleted", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &now}}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := kube.IsGone(&tt.pod); got != tt.want {
				t.Errorf("IsGone = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDaemonSetOwners(t *testing.T) {
	t.Parallel()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{
		{Kind: "ReplicaSet", Name: "web"}, {Kind: "DaemonSet", Name: "agent"}, {Kind: "DaemonSet", Name: "mesh"}}}}
	if diff := gocmp.Diff([]string{"agent", "mesh"}, kube.DaemonSetOwners(p)); diff != "" {
		t.Errorf("DaemonSetOwners (-want +got):\n%s", diff)
	}
	if got := kube.DaemonSetOwners(&corev1.Pod{}); got != nil {
		t.Errorf("DaemonSetOwners of an unowned pod = %v, want none", got)
	}
}

func TestWithRequired(t *testing.T) {
	t.Parallel()
	r := corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}}
	own := corev1.NodeSelectorRequirement{Key: "team", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}}
	terms := func(p *corev1.Pod) []corev1.NodeSelectorTerm {
		return p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}

	bare := &corev1.Pod{}
	got := kube.WithRequired(bare, r)
	if diff := gocmp.Diff([]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{r}}}, terms(got)); diff != "" {
		t.Errorf("no affinity: terms (-want +got):\n%s", diff)
	}
	if bare.Spec.Affinity != nil {
		t.Errorf("the pod given was changed: %v", bare.Spec.Affinity)
	}

	p := &corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{own}}, {}}}}}}}
	want := []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{own, r}}, {}}
	if diff := gocmp.Diff(want, terms(kube.WithRequired(p, r))); diff != "" {
		t.Errorf("two terms, one empty: terms (-want +got):\n%s", diff)
	}
	if len(terms(p)[0].MatchExpressions) != 1 {
		t.Errorf("the pod given was changed: %v", terms(p))
	}
}
