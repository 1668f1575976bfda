package scheduler_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduler"
)

// TestReasonCodesDocumented keeps docs/REASONS.md and ReasonCodes in step:
// the table lists every code, once each, in the same order.
func TestReasonCodesDocumented(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../docs/REASONS.md")
	require.NoError(t, err)
	var documented []scheduler.ReasonCode
	for _, m := range regexp.MustCompile("(?m)^\\| `(\\w+)` \\|").FindAllStringSubmatch(string(page), -1) {
		documented = append(documented, scheduler.ReasonCode(m[1]))
	}
	if diff := gocmp.Diff(scheduler.ReasonCodes(), documented); diff != "" {
		t.Errorf("docs/REASONS.md's table (-ReasonCodes +documented):\n%s", diff)
	}
	if unique := slices.Compact(slices.Sorted(slices.Values(scheduler.ReasonCodes()))); len(unique) != len(scheduler.ReasonCodes()) {
		t.Error("ReasonCodes lists a code twice")
	}
}

// TestPodErrorCodesKeepTheirNames pins the codes pod errors carried before
// violations shared the list: programs branch on them in the plan's JSON.
func TestPodErrorCodesKeepTheirNames(t *testing.T) {
	t.Parallel()
	want := []scheduler.ReasonCode{"InvalidPod", "DynamicResources", "NoNodePool", "IncompatibleRequirements",
		"UndefinedLabel", "UntoleratedTaint", "NoInstanceType", "InsufficientResources", "NoOffering", "LimitsExceeded",
		"MinValues", "TopologySpread", "PodAffinity", "PodAntiAffinity", "VolumeTopology", "HostPort", "Reservation",
		"DaemonSetOverhead"}
	if diff := gocmp.Diff(want, scheduler.ReasonCodes()[:len(want)]); diff != "" {
		t.Errorf("pod error codes (-before +now):\n%s", diff)
	}
}
