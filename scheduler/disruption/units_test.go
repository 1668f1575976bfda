package disruption

import (
	"math"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestScheduleNext(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		spec, after, want string
	}{
		{"@daily", "2025-06-02T12:00:00Z", "2025-06-03T00:00:00Z"},
		{"@midnight", "2025-06-02T00:00:00Z", "2025-06-03T00:00:00Z"}, // strictly after
		{"@hourly", "2025-06-02T12:30:10Z", "2025-06-02T13:00:00Z"},
		{"@weekly", "2025-06-02T12:00:00Z", "2025-06-08T00:00:00Z"}, // the next Sunday
		{"@monthly", "2025-06-02T12:00:00Z", "2025-07-01T00:00:00Z"},
		{"@yearly", "2025-06-02T12:00:00Z", "2026-01-01T00:00:00Z"},
		{"*/15 * * * *", "2025-06-02T12:07:00Z", "2025-06-02T12:15:00Z"},
		{"0 9 * * mon-fri", "2025-06-06T10:00:00Z", "2025-06-09T09:00:00Z"}, // Friday → Monday
		{"0 9 * * MON-FRI", "2025-06-06T10:00:00Z", "2025-06-09T09:00:00Z"},
		{"30 2 1,15 * *", "2025-06-02T00:00:00Z", "2025-06-15T02:30:00Z"},
		{"0 0 1 * 1", "2025-06-03T00:00:00Z", "2025-06-09T00:00:00Z"}, // both days restricted: either matches
		{"0 0 * jan *", "2025-06-03T00:00:00Z", "2026-01-01T00:00:00Z"},
		{"5/20 * * * *", "2025-06-02T12:06:00Z", "2025-06-02T12:25:00Z"},
		{"0 0 31 2 *", "2025-06-02T12:00:00Z", "0001-01-01T00:00:00Z"}, // never
	} {
		s, err := ParseSchedule(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if got := s.Next(at(tc.after)); !got.Equal(at(tc.want)) {
			t.Errorf("%q after %s: got %s, want %s", tc.spec, tc.after, got.Format(time.RFC3339), tc.want)
		}
	}
}

func TestScheduleErrors(t *testing.T) {
	for _, spec := range []string{"", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
		"* * * * 7", "*/0 * * * *", "5-1 * * * *", "@every 1h", "@fortnightly", "a * * * *", "* * * foo *"} {
		if _, err := ParseSchedule(spec); err == nil {
			t.Errorf("%q: parsed, want an error", spec)
		}
	}
}

// C: percentages round up; the tightest active budget for the reason wins.
func TestBudgetValue(t *testing.T) {
	for _, tc := range []struct {
		nodes string
		count int
		want  int
	}{
		{"10%", 5, 1}, {"50%", 3, 2}, {"30%", 10, 3}, {"20%", 5, 1}, {"0%", 10, 0}, {"100%", 10, 10}, {"3", 10, 3}, {"10%", 0, 0},
	} {
		b, err := parseBudgetNodes(tc.nodes)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.value(tc.count); got != tc.want {
			t.Errorf("%s of %d: %d, want %d", tc.nodes, tc.count, got, tc.want)
		}
	}
	for _, bad := range []string{"110%", "-1", "1.5", "abc", "%", ""} {
		if _, err := parseBudgetNodes(bad); err == nil {
			t.Errorf("%q: parsed, want an error", bad)
		}
	}
	now := time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)
	s, _ := ParseSchedule("0 9 * * *")
	bs := []budget{{count: 50, percent: true}, {count: 0, reasons: []Reason{ReasonUnderutilized}, schedule: &s, duration: 2 * time.Hour}}
	if got := allowedDisruptions(bs, ReasonUnderutilized, 10, now); got != 0 {
		t.Errorf("inside the window: %d, want 0", got)
	}
	if got := allowedDisruptions(bs, ReasonEmpty, 10, now); got != 5 {
		t.Errorf("another reason: %d, want 5", got)
	}
	if got := allowedDisruptions(bs, ReasonUnderutilized, 10, now.Add(2*time.Hour)); got != 5 {
		t.Errorf("after the window: %d, want 5", got)
	}
	if got := allowedDisruptions(nil, ReasonDrifted, 10, now); got != math.MaxInt32 {
		t.Errorf("no budget: %d, want unbounded", got)
	}
}

// D-128: eviction cost.
func TestEvictionCost(t *testing.T) {
	pod := func(cost string, prio *int32) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
		if cost != "" {
			p.Annotations = map[string]string{AnnotationPodDeletionCost: cost}
		}
		p.Spec.Priority = prio
		return p
	}
	one, minus := int32(1), int32(-1)
	huge := int32(-40_000_000)
	got := []float64{evictionCost(pod("", nil)), evictionCost(pod("100", nil)), evictionCost(pod("-100", nil)),
		evictionCost(pod("2147483647", nil)), evictionCost(pod("", &one)), evictionCost(pod("", &minus)),
		evictionCost(pod("", &huge)), evictionCost(pod("x", nil))}
	want := []float64{1, 1 + 100/math.Pow(2, 27), 1 - 100/math.Pow(2, 27), 10, 1 + 1/math.Pow(2, 25), 1 - 1/math.Pow(2, 25), -0.1920928955078125, 1}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// D-239, D-241: the Balanced score on the RFC's numbers.
func TestBalancedScore(t *testing.T) {
	rfc := poolTotal{cost: 58.08, disruption: 90}
	for _, tc := range []struct {
		id                  string
		savings, disruption float64
		total               poolTotal
		want                float64
	}{
		{"D-239 replace 2xl→large", 7.26, 4, rfc, 2.8125},
		{"D-239 delete xlarge", 4.84, 5, rfc, 1.5},
		{"D-239 rejected", 2.42, 9, rfc, 0.41666666666666663},
		{"D-239 uniform pool at the boundary", 2.42, 9, poolTotal{cost: 48.40, disruption: 90}, 0.5},
		{"D-241 no savings", 0, 4, rfc, 0},
		{"D-241 negative savings", -1, 4, rfc, 0},
		{"D-241 no pool cost", 1, 4, poolTotal{disruption: 90}, 0},
		{"D-241 no disruption", 1, 0, rfc, math.Inf(1)},
	} {
		if got := score(tc.savings, tc.disruption, tc.total); math.Abs(got-tc.want) > 1e-9 && !(math.IsInf(got, 1) && math.IsInf(tc.want, 1)) {
			t.Errorf("%s: %v, want %v", tc.id, got, tc.want)
		}
	}
}

// A.2: do-not-disrupt values.
func TestDoNotDisrupt(t *testing.T) {
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	started := metav1.NewTime(now.Add(-time.Minute))
	for _, tc := range []struct {
		value   string
		start   *metav1.Time
		blocked bool
	}{
		{"true", &started, true}, {"false", &started, false}, {"banana", &started, false}, {"-5m", &started, false},
		{"2m", &started, true}, {"30s", &started, false}, {"5m", nil, true},
	} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: map[string]string{AnnotationDoNotDisrupt: tc.value}}}
		p.Status.StartTime = tc.start
		if got, _ := newPod(p).doNotDisruptUntil(now); got != tc.blocked {
			t.Errorf("%q: blocked %v, want %v", tc.value, got, tc.blocked)
		}
	}
}
