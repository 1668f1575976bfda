package kube

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// CompareNames orders pod names ("namespace/name") as kube-scheduler's
// queue meets the replicas of one workload: the controllers create them in
// ordinal order (a StatefulSet's web-2 before web-10, and the manifests'
// replicas likewise), so runs of digits compare by their value, the rest
// byte by byte. Equal values with different leading zeros ("07", "7")
// fall back to the bytes, so the order stays total.
func CompareNames(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			if c := compareDigits(a[i:ei], b[j:ej]); c != 0 {
				return c
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			if a[i] < b[j] {
				return -1
			}
			return 1
		}
		i, j = i+1, j+1
	}
	switch {
	case len(a)-i < len(b)-j:
		return -1
	case len(a)-i > len(b)-j:
		return 1
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitsEnd is the end of the run of digits of s starting at i.
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

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
