package disruption_test

import (
	"encoding/json"
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// TestThinnedGhosts: full nodes in two zones carry many pods of Deployments
// spread over the zones (required and preferred) or keeping away from
// each other by zone; a few half-empty nodes carry more of them. The
// simulations fold the full nodes into ghosts and thin their pods
// (thin.go); the commands must be those of the full simulation, under both
// searches, and verify.
func TestThinnedGhosts(t *testing.T) {
	b := newCluster(t)
	spread := func(p *corev1.Pod, app string, when corev1.UnsatisfiableConstraintAction) {
		p.Labels["app"] = app
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
			WhenUnsatisfiable: when, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
	}
	apart := func(p *corev1.Pod, app string) {
		p.Labels["app"] = app
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: "kubernetes.io/hostname"}}}}
	}
	i := 0
	for _, zone := range []string{"zone-a", "zone-b"} {
		for n := range 6 {
			name := fmt.Sprintf("full-%s-%d", zone, n)
			b.node(name, "default", "m.small", zone, "on-demand")
			spread(b.pod(fmt.Sprintf("web-%d", i), name, "800m"), "web", corev1.DoNotSchedule)
			spread(b.pod(fmt.Sprintf("api-%d", i), name, "800m"), "api", corev1.ScheduleAnyway)
			apart(b.pod(fmt.Sprintf("db-%d", i), name, "200m"), "db")
			i++
		}
		for n := range 3 {
			name := fmt.Sprintf("half-%s-%d", zone, n)
			b.node(name, "default", "m.large", zone, "on-demand")
			spread(b.pod(fmt.Sprintf("web-%d", i), name, "1"), "web", corev1.DoNotSchedule)
			spread(b.pod(fmt.Sprintf("api-%d", i), name, "500m"), "api", corev1.ScheduleAnyway)
			i++
		}
	}
	pools := []nodepool.NodePool{pool("default", od(), budgets(all()))}
	for _, search := range []disruption.Search{disruption.SearchKarpenter, disruption.SearchGlobal} {
		var view disruption.Result
		plan := func(opts ...disruption.Option) string {
			res, err := disruption.Plan(b.c, pools, b.catalog, testNow(), append(opts, disruption.WithSearch(search), disruption.WithoutRepack())...)
			require.NoError(t, err)
			view = res
			out, err := json.Marshal(res.Commands)
			require.NoError(t, err)
			return string(out)
		}
		full := plan(disruption.WithFullSimulation(), disruption.WithoutCache())
		if diff := gocmp.Diff(full, plan(disruption.WithoutCache())); diff != "" {
			t.Errorf("%s: thinning changes the commands (-full +view):\n%s", search, diff)
		}
		require.NotEmpty(t, view.Commands, "%s: the cluster must consolidate", search)
		require.Positive(t, view.Stats.Thinned, "%s: no simulation thinned a ghost: the test tests nothing", search)
		checkCommands(t, string(search), randomCase{cluster: b.c, pools: pools}, b.catalog, view)
	}
}
