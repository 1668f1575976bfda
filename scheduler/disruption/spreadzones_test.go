package disruption_test

import (
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// zoneSpreadCluster is three zones of spot nodes: web pods spread over the
// zones (maxSkew 1, DoNotSchedule), webInA of them in zone-a, one in each
// other zone. Node a1 holds one web pod; a2, in zone-a too, is full (and
// holds the other web pods of zone-a); b1 and c1 have room. Every pod but
// a1's is do-not-disrupt, so a1 is the only candidate.
func zoneSpreadCluster(t *testing.T, webInA int) *clusterBuilder {
	b := &clusterBuilder{t: t, catalog: zonesCatalog(t, "zone-a", "zone-b", "zone-c")}
	web := func(name, node string) {
		p := testutil.Pod(name).CPU("500m").Memory("256Mi").Label("app", "web").OwnedBy("ReplicaSet", "web").NodeName(node).
			Spread("topology.kubernetes.io/zone", 1, corev1.DoNotSchedule, map[string]string{"app": "web"}).Obj()
		p.Status.Phase = corev1.PodRunning
		b.c.Pods = append(b.c.Pods, p)
		if node != "a1" {
			annotate(p, "karpenter.sh/do-not-disrupt", "true")
		}
	}
	for _, n := range []struct{ name, typ, zone string }{{"a1", "m.small", "zone-a"}, {"a2", "m.small", "zone-a"}, {"b1", "m.xlarge", "zone-b"}, {"c1", "m.xlarge", "zone-c"}} {
		b.claimFor(b.node(n.name, "default", n.typ, n.zone, "spot"))
	}
	web("w-a1", "a1")
	for i := 1; i < webInA; i++ {
		web(fmt.Sprintf("w-a2-%d", i), "a2")
	}
	web("w-b1", "b1")
	web("w-c1", "c1")
	it, ok := b.catalog.Get("m.small")
	require.True(t, ok)
	alloc := it.Allocatable()
	room := alloc.Cpu().MilliValue() - int64(webInA-1)*500 - 100
	annotate(b.pod("filler", "a2", fmt.Sprintf("%dm", room)), "karpenter.sh/do-not-disrupt", "true")
	return b
}

// TestZoneSpreadKeepsPodInZone: a pod whose required zone spread is even
// cannot leave its zone when its node goes, so a1's web pod needs a new
// NodeClaim (spot, refused with spot-to-spot off) although b1 and c1 have
// room for it. The check before the simulation proves it and names the
// zone; the commands are those of the search without the check. When
// zone-a holds more web pods than the other zones, the pod may leave and
// a1 goes.
func TestZoneSpreadKeepsPodInZone(t *testing.T) {
	for _, search := range []disruption.Search{disruption.SearchKarpenter, disruption.SearchGlobal} {
		t.Run(string(search), func(t *testing.T) {
			b := zoneSpreadCluster(t, 1)
			pools := []nodepool.NodePool{pool("default", []string{"spot", "on-demand"}, budgets(all()))}
			res, err := disruption.Plan(b.c, pools, b.catalog, testNow(), disruption.WithSearch(search))
			require.NoError(t, err)
			require.Empty(t, res.Commands)
			require.Positive(t, res.Stats.Prefiltered, "the check ruled a1 out before simulating")
			a1, ok := candState(res, "a1")
			require.True(t, ok)
			require.NotNil(t, a1.Details)
			require.Equal(t, disruption.KeepSpotToSpot, a1.Reason, a1.Message)
			require.Equal(t, "default/w-a1", a1.Details.Pod)
			require.Equal(t, "zone-a", a1.Details.Zone, a1.Message)
			require.Contains(t, a1.Message, "no other node of zone zone-a")

			unfiltered, err := disruption.Plan(b.c, pools, b.catalog, testNow(), disruption.WithSearch(search), disruption.WithoutPrefilter())
			require.NoError(t, err)
			require.Empty(t, unfiltered.Commands)
			a1, _ = candState(unfiltered, "a1")
			require.Equal(t, disruption.KeepSpotToSpot, a1.Reason, a1.Message)

			uneven := zoneSpreadCluster(t, 2)
			res, err = disruption.Plan(uneven.c, pools, uneven.catalog, testNow(), disruption.WithSearch(search))
			require.NoError(t, err)
			require.Len(t, res.Commands, 1, "zone-a holds 2 web pods, the others 1: a1's may leave")
			cmd := res.Commands[0]
			require.Equal(t, "a1", cmd.Nodes[0].Name)
			require.Empty(t, cmd.Replacements)
			got, _ := json.Marshal(res.Commands)
			unfiltered, err = disruption.Plan(uneven.c, pools, uneven.catalog, testNow(), disruption.WithSearch(search), disruption.WithoutPrefilter())
			require.NoError(t, err)
			want, _ := json.Marshal(unfiltered.Commands)
			require.JSONEq(t, string(want), string(got))
		})
	}
}
