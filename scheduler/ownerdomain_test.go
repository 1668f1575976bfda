package scheduler

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// keptOut only narrows: a pod it changes matches a node exactly when the
// pod as given does and the node is not in the domain kept out; the pods
// it does not name are the same objects, and the input is not written.
func TestKeptOutOnlyNarrows(t *testing.T) {
	term := func(exprs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: exprs}
	}
	withTerms := func(name string, terms ...corev1.NodeSelectorTerm) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
		if terms != nil {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
			}}
		}
		return p
	}
	zoneA := corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}
	large := corev1.NodeSelectorRequirement{Key: "size", Operator: corev1.NodeSelectorOpIn, Values: []string{"large"}}
	pods := []*corev1.Pod{
		withTerms("plain"),
		withTerms("one-term", term(zoneA)),
		withTerms("two-terms", term(zoneA), term(large)),
		withTerms("with-empty-term", term(), term(zoneA)),
		withTerms("only-empty-term", term()),
		withTerms("untouched", term(zoneA)),
		nil,
	}
	before := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		if p != nil {
			before[i] = p.DeepCopy()
		}
	}
	counted := map[string]bool{"default/plain": true, "default/one-term": true, "default/two-terms": true, "default/with-empty-term": true, "default/only-empty-term": true}
	out := keptOut(pods, counted, "size", "small")
	require.Len(t, out, len(pods))

	var nodes []*corev1.Node
	for _, zone := range []string{"a", "b", ""} {
		for _, size := range []string{"small", "large", ""} {
			labels := map[string]string{}
			if zone != "" {
				labels["zone"] = zone
			}
			if size != "" {
				labels["size"] = size
			}
			nodes = append(nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: zone + "/" + size, Labels: labels}})
		}
	}
	for i, p := range pods {
		if p == nil {
			require.Nil(t, out[i])
			continue
		}
		require.Equal(t, before[i], p, "input pod %s written", p.Name)
		if !counted[p.Namespace+"/"+p.Name] {
			require.Same(t, p, out[i], "pod %s copied though not named", p.Name)
			continue
		}
		for _, n := range nodes {
			was, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(n)
			require.NoError(t, err)
			now, err := nodeaffinity.GetRequiredNodeAffinity(out[i]).Match(n)
			require.NoError(t, err)
			require.Equal(t, was && n.Labels["size"] != "small", now, "pod %s on node %s", p.Name, n.Name)
		}
	}
}
