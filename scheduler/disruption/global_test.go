package disruption_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// antiPod adds a pod with required hostname anti-affinity to its app.
func (b *clusterBuilder) antiPod(name, node, cpu, app string) *corev1.Pod {
	p := b.pod(name, node, cpu)
	p.Labels["app"] = app
	p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: "kubernetes.io/hostname"}}}}
	return p
}

func TestGlobalSearch(t *testing.T) {
	global := []disruption.Option{disruption.WithSearch(disruption.SearchGlobal)}
	twoApart := func(b *clusterBuilder) {
		b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
		b.antiPod("a", "n1", "500m", "x")
		b.antiPod("b", "n1", "500m", "y")
	}
	runBehaviours(t, []behaviour{
		{id: "D-027", name: "Karpenter never replaces one node with two", pools: one(), build: func(b *clusterBuilder) {
			b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
			b.antiPod("a", "n1", "500m", "x")
			b.antiPod("b", "n1", "500m", "x")
		},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepTooManyNodes}},
		{id: "global", name: "m→n: one node becomes two cheaper ones", pools: one(), opts: global, build: func(b *clusterBuilder) {
			b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
			b.antiPod("a", "n1", "500m", "x")
			b.antiPod("b", "n1", "500m", "x")
		},
			wantCommands: []string{"GlobalConsolidation replace [n1] -> [m.small/on-demand m.small/on-demand]"}},
		{id: "global", name: "a command below the minimum saving is skipped", pools: one(),
			opts: append(global, disruption.WithMinSavings(1, 0)), build: twoApart,
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepMinSavings}},
		{id: "global", name: "a relative minimum works the same way", pools: one(),
			opts: append(global, disruption.WithMinSavings(0, 0.9)), build: twoApart,
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepMinSavings}},
		{id: "global", name: "another pool's pending pod does not block a pool's command",
			pools: []nodepool.NodePool{pool("default", od(), budgets(all())), pool("gpu", od(), budgets(all()), func(np *nodepool.NodePool) {
				np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
			})},
			opts: global, build: func(b *clusterBuilder) {
				for i := range 3 {
					b.node(fmt.Sprintf("n%d", i), "default", "m.large", "zone-a", "on-demand")
					b.pod(fmt.Sprintf("p%d", i), fmt.Sprintf("n%d", i), "1")
				}
				p := b.pod("train", "", "3")
				p.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
				p.Spec.NodeSelector = map[string]string{"karpenter.sh/nodepool": "gpu"}
			},
			wantCommands: []string{"GlobalConsolidation replace [n0 n1 n2] -> [m.medium/on-demand]"}},
		{id: "B.2", name: "Karpenter's multi-node launches the other pool's pending pod as its replacement",
			pools: []nodepool.NodePool{pool("default", od(), budgets(all())), pool("gpu", od(), budgets(all()), func(np *nodepool.NodePool) {
				np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
			})},
			build: func(b *clusterBuilder) {
				for i := range 3 {
					b.node(fmt.Sprintf("n%d", i), "default", "m.large", "zone-a", "on-demand")
					b.pod(fmt.Sprintf("p%d", i), fmt.Sprintf("n%d", i), "1")
				}
				p := b.pod("train", "", "3")
				p.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
				p.Spec.NodeSelector = map[string]string{"karpenter.sh/nodepool": "gpu"}
			},
			wantCommands: []string{"MultiNodeConsolidation replace [n0 n1] -> [m.medium/on-demand]", "SingleNodeConsolidation replace [n2] -> [m.medium/on-demand]"}},
	})
}
