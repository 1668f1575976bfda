package disruption_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// TestLiveDaemonSetCharged: a DaemonSet asks for 3 cpu in its template but
// its running pod, admitted under a LimitRange, for 50m (B-151). n2 has no
// pod of it yet, so a simulation charges n2 the DaemonSet as it will run
// there: as its live pod asks, which leaves room for n1's 1-cpu pod, and n1
// goes; charged at the template's 3 cpu, n2 (4 cpu, 1 taken) would hold
// nothing and n1 would stay for PodsDoNotFit. n2's own pod is
// do-not-disrupt, so only n1 can go.
func TestLiveDaemonSetCharged(t *testing.T) {
	runBehaviours(t, []behaviour{
		{id: "B-151", name: "a DaemonSet's live pod, not its template, is what a node without it yet is charged",
			pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.medium", "zone-a", "on-demand")
				b.node("n2", "default", "m.medium", "zone-a", "on-demand")
				b.daemonPod("agent-n1", "n1") // 50m, owned by DaemonSet agent
				b.pod("app-n1", "n1", "1")
				annotate(b.pod("app-n2", "n2", "1"), disruption.AnnotationDoNotDisrupt, "true")
				tmpl := testutil.Pod("agent").CPU("3").Memory("64Mi").Obj()
				b.c.DaemonSets = append(b.c.DaemonSets, testutil.DaemonSet("agent", tmpl))
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"},
			wantKept:     map[string]disruption.KeepReason{"n2": disruption.KeepPodDoNotDisrupt}},
	})
}
