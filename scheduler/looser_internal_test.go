package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestHonoursAll(t *testing.T) {
	for _, tc := range []struct {
		name        string
		own, theirs [][]string
		want        bool
	}{
		{"same broken", [][]string{{"a"}, nil}, [][]string{{"a"}, nil}, true},
		{"fewer broken", [][]string{{"a", "b"}, {"c"}}, [][]string{{"b"}, nil}, true},
		{"one more broken", [][]string{{"a"}, nil}, [][]string{{"a"}, {"c"}}, false},
		{"another broken instead", [][]string{{"a"}, nil}, [][]string{{"b"}, nil}, false},
		{"unplaced in theirs", [][]string{{"a"}, nil}, [][]string{nil, nil}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := honoursAll(tc.own, tc.theirs); got != tc.want {
				t.Errorf("honoursAll = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLooserApplies(t *testing.T) {
	plain := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain"}}
	soft := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "soft"}, Spec: corev1.PodSpec{
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway}}}}
	hard := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "hard"}, Spec: corev1.PodSpec{
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule}}}}
	respect := config{preference: PreferenceRespect}
	honor := config{preference: PreferenceHonor}
	unjudged := config{preference: PreferenceRespect, noRelaxations: true}
	perKind := config{preference: PreferenceRespect, preferenceByKind: map[PreferenceKind]PreferencePolicy{PreferTopologySpread: PreferenceIgnore}}
	many := make([]*corev1.Pod, looserMaxPods+1)
	for i := range many {
		many[i] = soft
	}
	got := map[string]bool{
		"respect soft":      looserApplies([]*corev1.Pod{plain, soft}, respect),
		"respect hard":      looserApplies([]*corev1.Pod{plain, hard}, respect),
		"honor soft":        looserApplies([]*corev1.Pod{soft}, honor),
		"per-kind soft":     looserApplies([]*corev1.Pod{soft}, perKind),
		"too many soft":     looserApplies(many, respect),
		"respect nil entry": looserApplies([]*corev1.Pod{nil, soft}, respect),
		"unjudged soft":     looserApplies([]*corev1.Pod{soft}, unjudged),
	}
	want := map[string]bool{"respect soft": true, "respect hard": false, "honor soft": false, "per-kind soft": false, "too many soft": false, "respect nil entry": true, "unjudged soft": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("looserApplies (-want +got):\n%s", diff)
	}
}
