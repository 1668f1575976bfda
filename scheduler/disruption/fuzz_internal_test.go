package disruption

import (
	"strconv"
	"testing"
	"time"
)

// fires reports whether the schedule fires at the minute of t (UTC).
func (s Schedule) fires(t time.Time) bool {
	t = t.UTC()
	return s.month&(1<<uint(t.Month())) != 0 && s.dayMatches(t) &&
		s.hour&(1<<uint(t.Hour())) != 0 && s.minute&(1<<uint(t.Minute())) != 0
}

// FuzzParseSchedule: a budget schedule never panics the parser; one it
// accepts parses the same from its String, and Next is the first minute
// after t it fires at: on a minute, after t, firing, and (when it is at
// most two days away, or never comes) no minute before it fires.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"0 9 * * *", "@daily", "*/15 8-17 * * mon-fri", "0 0 31 2 *", "5/10 * ? * *",
		"0 0 1,15 * 0", "@hourly", "1-30/5 0 * jan-mar *", "* * * * *", "0 0 29 2 *", "@weekly", "59 23 31 12 sat"} {
		f.Add(s, int64(1748858400)) // 2025-06-02T10:00:00Z
	}
	f.Add("0 12 * * 3", int64(0))
	f.Add("0 0 1 1 *", int64(4102444740)) // 2099-12-31T23:59:00Z
	f.Fuzz(func(t *testing.T, spec string, unix int64) {
		s, err := ParseSchedule(spec)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty error", spec)
			}
			return
		}
		again, err := ParseSchedule(s.String())
		if err != nil || again != s {
			t.Fatalf("%q: parsing its String gives %+v, %v; want %+v", spec, again, err, s)
		}
		// Any second from 1970 to about 2200.
		const span = int64(230 * 365 * 24 * 3600)
		unix %= span
		if unix < 0 {
			unix += span
		}
		from := time.Unix(unix, 0).UTC()
		next := s.Next(from)
		const brute = 48 * time.Hour
		if next.IsZero() {
			for m := from.Truncate(time.Minute).Add(time.Minute); m.Sub(from) <= brute; m = m.Add(time.Minute) {
				if s.fires(m) {
					t.Fatalf("%q: Next(%s) says never, but it fires at %s", spec, from, m)
				}
			}
			return
		}
		if !next.After(from) || next.Second() != 0 || next.Nanosecond() != 0 || next.Location() != time.UTC {
			t.Fatalf("%q: Next(%s) = %s: want a UTC minute after it", spec, from, next)
		}
		if next.Year() > from.Year()+5 {
			t.Fatalf("%q: Next(%s) = %s: more than five years on", spec, from, next)
		}
		if !s.fires(next) {
			t.Fatalf("%q: Next(%s) = %s, which the schedule does not fire at", spec, from, next)
		}
		if next.Sub(from) <= brute {
			for m := from.Truncate(time.Minute).Add(time.Minute); m.Before(next); m = m.Add(time.Minute) {
				if s.fires(m) {
					t.Fatalf("%q: Next(%s) = %s, but it fires earlier, at %s", spec, from, next, m)
				}
			}
		}
	})
}

// FuzzParseBudgetNodes: a budget's nodes never panic the parser; an
// accepted value is a count of at least 0 or a percentage from 0 to 100
// (written back, it parses the same), and a percentage of a pool of n
// nodes allows from 0 to n of them, rounded up.
func FuzzParseBudgetNodes(f *testing.F) {
	for _, s := range []string{"10%", "0", "5", "100%", "110%", "-1", "+3", "3.5", "", "%", "10 %", "007", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := parseBudgetNodes(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty error", s)
			}
			return
		}
		if b.count < 0 || (b.percent && b.count > 100) {
			t.Fatalf("%q: accepted as %+v", s, b)
		}
		written := strconv.Itoa(b.count)
		if b.percent {
			written += "%"
		}
		if again, err := parseBudgetNodes(written); err != nil || again.count != b.count || again.percent != b.percent {
			t.Fatalf("%q: %q parses as %+v, %v; want %+v", s, written, again, err, b)
		}
		for _, n := range []int{0, 1, 3, 7, 10, 99, 100, 1001} {
			v := b.value(n)
			if !b.percent {
				if v != b.count {
					t.Fatalf("%q: value(%d) = %d, want the count %d", s, n, v, b.count)
				}
				continue
			}
			if v < 0 || v > n || v*100 < b.count*n || (v-1)*100 >= b.count*n && v > 0 {
				t.Fatalf("%q: value(%d) = %d, want %d%% of %d rounded up", s, n, v, b.count, n)
			}
		}
	})
}

// FuzzParseDoNotDisrupt: the pod annotation never panics; "true" always
// protects, a duration protects for a positive time, anything else is
// as if absent.
func FuzzParseDoNotDisrupt(f *testing.F) {
	for _, s := range []string{"true", "false", "", "5m", "1h30m", "-5m", "0s", "banana", "True", "9223372036854775807ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		kind, d := parseDoNotDisrupt(v)
		switch kind {
		case dndAlways:
			if v != "true" || d != 0 {
				t.Fatalf("%q: always, for %s", v, d)
			}
		case dndDuration:
			if want, err := time.ParseDuration(v); err != nil || d <= 0 || d != want {
				t.Fatalf("%q: a duration of %s (time.ParseDuration: %s, %v)", v, d, want, err)
			}
		case dndNone:
			if v == "true" || d != 0 {
				t.Fatalf("%q: none, for %s", v, d)
			}
			if want, err := time.ParseDuration(v); err == nil && want > 0 {
				t.Fatalf("%q: none, but it is the duration %s", v, want)
			}
		default:
			t.Fatalf("%q: kind %d", v, kind)
		}
	})
}
