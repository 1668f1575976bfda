package scheduler

import (
	"testing"

	"github.com/nodeplan/nodeplan/requirements"
)

// TestKarpenterIntersect: a required term and a preferred term that leave
// a key no value read as DoesNotExist where Karpenter's intersection is an
// In of nothing (one side lists values, the other In, NotIn or
// DoesNotExist), and stay empty where Karpenter's does too (Exists, a
// numeric bound); keys they agree on, or only one names, are untouched.
func TestKarpenterIntersect(t *testing.T) {
	const key, other = "gpu-name", "team"
	gt := func(n string) requirements.Requirement {
		r, err := requirements.New(key, requirements.OpGt, n)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	cases := []struct {
		name      string
		alt, pref requirements.Requirement
		want      string // the key's requirement after, "empty" for none
	}{
		{"In meets DoesNotExist", requirements.DoesNotExist(key), requirements.In(key, "fake", "nvid"), requirements.DoesNotExist(key).String()},
		{"In meets disjoint In", requirements.In(key, "a"), requirements.In(key, "b"), requirements.DoesNotExist(key).String()},
		{"In meets covering NotIn", requirements.NotIn(key, "a"), requirements.In(key, "a"), requirements.DoesNotExist(key).String()},
		{"In meets In, overlapping", requirements.In(key, "a", "b"), requirements.In(key, "b"), requirements.In(key, "b").String()},
		{"Exists meets DoesNotExist: empty", requirements.Exists(key), requirements.DoesNotExist(key), "empty"},
		{"a bound meets In: empty", gt("5"), requirements.In(key, "3"), "empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			alt := requirements.NewRequirements(tc.alt, requirements.In(other, "a"))
			got := karpenterIntersect(alt, requirements.NewRequirements(tc.pref)).Get(key)
			s := got.String()
			if got.IsEmpty() {
				s = "empty"
			}
			if s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
			if o := karpenterIntersect(alt, requirements.NewRequirements(tc.pref)).Get(other); o.String() != requirements.In(other, "a").String() {
				t.Errorf("%s changed to %s", other, o)
			}
		})
	}
}
