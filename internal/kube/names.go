package kube

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// CompareNames orders pod names ("namespace/name") as kube-scheduler's
// queue meets the replicas of one workload: the controllers create them in
// ordinal order (a StatefulSet's web-2 before web-10, and the manifests'
// replicas likewise). A name is its stem and the run of digits it ends
// with: stems compare byte by byte (so the order between workloads is the
// names' byte order, as before), then the trailing numbers by value, then
// the whole names byte by byte ("web-07" before "web-7"), so the order is
// total.
func CompareNames(a, b string) int {
	sa, sb := digitsStart(a), digitsStart(b)
	if c := strings.Compare(a[:sa], b[:sb]); c != 0 {
		return c
	}
	if c := compareDigits(a[sa:], b[sb:]); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// digitsStart is where the run of digits s ends with begins (len(s) when
// it ends with none).
func digitsStart(s string) int {
	i := len(s)
	for i > 0 && isDigit(s[i-1]) {
		i--
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// compareDigits compares two runs of digits by value (leading zeros
// ignored).
func compareDigits(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// QueueOrder is kube-scheduler's queue order of two pending pods named
// an and bn: higher priority first, then the one created first, then
// CompareNames.
func QueueOrder(a, b *corev1.Pod, an, bn string) int {
	if pa, pb := priority(a), priority(b); pa != pb {
		if pa > pb {
			return -1
		}
		return 1
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return CompareNames(an, bn)
}

func priority(p *corev1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}
