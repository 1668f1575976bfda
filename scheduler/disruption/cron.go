package disruption

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is a budget's cron schedule: five fields (minute, hour, day of
// month, month, day of week) or a macro (@yearly, @annually, @monthly,
// @weekly, @daily, @midnight, @hourly), always in UTC, as Karpenter reads
// spec.disruption.budgets[].schedule (the standard cron syntax of
// robfig/cron: lists "1,15", ranges "1-5", steps "*/10", "1-30/5" and
// "5/10" (5 to the maximum), "?" for "*", month and weekday names "jan",
// "mon" in any case; day of week 0–6 from Sunday). When both day fields
// are restricted a day matches either; when one is "*" or "?" it must
// match the other.
type Schedule struct {
	spec                          string
	minute, hour, dom, month, dow uint64
}

// starBit marks a field written "*" or "?" (without a step): it decides how
// the two day fields combine.
const starBit = 1 << 63

type cronField struct {
	name     string
	min, max int
	names    []string // names[i] is the value min+i
}

func cronFields() []cronField {
	return []cronField{
		{name: "minute", min: 0, max: 59},
		{name: "hour", min: 0, max: 23},
		{name: "day of month", min: 1, max: 31},
		{name: "month", min: 1, max: 12, names: []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
		{name: "day of week", min: 0, max: 6, names: []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
	}
}

func cronMacros() map[string]string {
	return map[string]string{
		"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
		"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
	}
}

// ParseSchedule parses a budget schedule (see Schedule).
func ParseSchedule(s string) (Schedule, error) {
	spec := strings.TrimSpace(s)
	if strings.HasPrefix(spec, "@") {
		m, ok := cronMacros()[strings.ToLower(spec)]
		if !ok {
			return Schedule{}, fmt.Errorf("unknown macro %q: want @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly", spec)
		}
		spec = m
	}
	parts := strings.Fields(spec)
	if len(parts) != 5 {
		return Schedule{}, fmt.Errorf("%q has %d fields: want 5 (minute hour day-of-month month day-of-week) or a macro such as @daily", s, len(parts))
	}
	var out [5]uint64
	for i, f := range cronFields() {
		bits, err := f.parse(parts[i])
		if err != nil {
			return Schedule{}, fmt.Errorf("%s field %q: %w", f.name, parts[i], err)
		}
		out[i] = bits
	}
	return Schedule{spec: s, minute: out[0], hour: out[1], dom: out[2], month: out[3], dow: out[4]}, nil
}

// parse reads one field: comma-separated ranges.
func (f cronField) parse(s string) (uint64, error) {
	var out uint64
	for _, part := range strings.Split(s, ",") {
		b, err := f.parseRange(part)
		if err != nil {
			return 0, err
		}
		out |= b
	}
	return out, nil
}

// parseRange reads "*", "?", "N", "N-M", each optionally "/STEP".
func (f cronField) parseRange(s string) (uint64, error) {
	rangePart, stepPart, hasStep := strings.Cut(s, "/")
	lo, hi, extra := f.min, f.max, uint64(0)
	switch {
	case rangePart == "*" || rangePart == "?":
		extra = starBit
	default:
		a, b, isRange := strings.Cut(rangePart, "-")
		var err error
		if lo, err = f.value(a); err != nil {
			return 0, err
		}
		hi = lo
		if isRange {
			if hi, err = f.value(b); err != nil {
				return 0, err
			}
		} else if hasStep {
			hi = f.max // "N/step" means N to the maximum
		}
	}
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepPart)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("step %q: want a positive integer", stepPart)
		}
		step = n
		if step > 1 {
			extra = 0
		}
	}
	if lo > hi {
		return 0, fmt.Errorf("range %d-%d runs backwards", lo, hi)
	}
	var out uint64
	for v := lo; v <= hi; v += step {
		out |= 1 << uint(v)
	}
	return out | extra, nil
}

// value reads a number or a name within the field's bounds.
func (f cronField) value(s string) (int, error) {
	for i, n := range f.names {
		if strings.EqualFold(s, n) {
			return f.min + i, nil
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if v < f.min || v > f.max {
		return 0, fmt.Errorf("%d is out of range %d-%d", v, f.min, f.max)
	}
	return v, nil
}

// Next returns the first minute strictly after t (in UTC) that the schedule
// fires, or the zero time when it never fires within five years (say, the
// 31st of February).
func (s Schedule) Next(t time.Time) time.Time {
	t = t.UTC().Truncate(time.Minute).Add(time.Minute)
	limit := t.Year() + 5
	for t.Year() <= limit {
		switch {
		case s.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
		case s.hour&(1<<uint(t.Hour())) == 0:
			t = t.Truncate(time.Hour).Add(time.Hour)
		case s.minute&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

func (s Schedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.dom&starBit != 0 || s.dow&starBit != 0 {
		return dom && dow
	}
	return dom || dow
}

// String returns the schedule as written.
func (s Schedule) String() string { return s.spec }
