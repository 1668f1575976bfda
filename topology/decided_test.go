package topology_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestDecidedDomains: a host that carries slots for the domains its
// requirements decide (Host.Decided, shared by every host of one
// requirement set) is checked and counted exactly as one without, from the
// first use of the slots (filling them) to the later ones (reading them).
func TestDecidedDomains(t *testing.T) {
	t.Parallel()
	n := zoneNode("n", zoneA)
	newTracker := func(t *testing.T) (*topology.Tracker, *topology.Pod) {
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(n)}, nil,
			[]topology.ExistingPod{bound(n, web)})
		p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).
			Spread(hostKey, 1, corev1.ScheduleAnyway, web).Obj()))[0]
		return tr, p
	}
	sets := []requirements.Requirements{
		requirements.NewRequirements(requirements.In(zoneKey, zoneA)),
		requirements.NewRequirements(requirements.In(zoneKey, zoneB), requirements.In(ctKey, requirements.CapacityTypeSpot)),
		requirements.NewRequirements(requirements.In(zoneKey, zoneB, zoneC)),
		requirements.NewRequirements(),
	}
	// run records the pod on two claims of every set and checks it on a
	// third, in turn; with slots, the hosts of one set share theirs.
	run := func(t *testing.T, slots bool) []outcome {
		tr, p := newTracker(t)
		var out []outcome
		for i, reqs := range sets {
			var dd *topology.DecidedDomains
			if slots {
				dd = &topology.DecidedDomains{}
			}
			for _, name := range []string{"a", "b", "c"} {
				h := &topology.Host{Hostname: name + string(rune('0'+i)), Requirements: reqs, Decided: dd}
				out = append(out, check(tr, p, allTerms, h, nil), scopeOutcome(tr, p, allTerms, h, nil, topology.ExceptHostname))
				if name != "c" {
					tr.Record(p, allTerms, h)
				}
			}
		}
		return out
	}
	want := run(t, false)
	refusals := 0
	for _, o := range want {
		if o.Violation != nil {
			refusals++
		}
	}
	require.NotZero(t, refusals, "no check refused: the fixture tests nothing")
	if diff := gocmp.Diff(want, run(t, true)); diff != "" {
		t.Errorf("with slots (-without +with):\n%s", diff)
	}
}
