package nodepool_test

import (
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/nodepool"
)

func port(host int32, ip string, protocol corev1.Protocol) corev1.ContainerPort {
	return corev1.ContainerPort{ContainerPort: host, HostPort: host, HostIP: ip, Protocol: protocol}
}

// TestPodHostPorts: the ports kube-scheduler's NodePorts plugin counts.
func TestPodHostPorts(t *testing.T) {
	always, onFailure := corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyOnFailure
	tcp := func(ip string, p int32) nodepool.HostPort {
		return nodepool.HostPort{IP: ip, Port: p, Protocol: corev1.ProtocolTCP}
	}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want []nodepool.HostPort
	}{
		{name: "no ports", spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}},
		{name: "container port without a host port", spec: corev1.PodSpec{Containers: []corev1.Container{{Ports: []corev1.ContainerPort{{ContainerPort: 80}}}}}},
		{name: "defaults: IP 0.0.0.0, protocol TCP", spec: corev1.PodSpec{Containers: []corev1.Container{{Ports: []corev1.ContainerPort{port(80, "", "")}}}},
			want: []nodepool.HostPort{tcp("0.0.0.0", 80)}},
		{name: "IP and protocol kept", spec: corev1.PodSpec{Containers: []corev1.Container{{Ports: []corev1.ContainerPort{port(53, "10.0.0.1", corev1.ProtocolUDP)}}}},
			want: []nodepool.HostPort{{IP: "10.0.0.1", Port: 53, Protocol: corev1.ProtocolUDP}}},
		{name: "every container, in order", spec: corev1.PodSpec{Containers: []corev1.Container{
			{Ports: []corev1.ContainerPort{port(81, "", "")}}, {Ports: []corev1.ContainerPort{port(80, "", "")}}}},
			want: []nodepool.HostPort{tcp("0.0.0.0", 81), tcp("0.0.0.0", 80)}},
		{name: "a sidecar's ports first, a plain init container's not held", spec: corev1.PodSpec{
			InitContainers: []corev1.Container{
				{Name: "setup", Ports: []corev1.ContainerPort{port(70, "", "")}},
				{Name: "retry", RestartPolicy: &onFailure, Ports: []corev1.ContainerPort{port(71, "", "")}},
				{Name: "proxy", RestartPolicy: &always, Ports: []corev1.ContainerPort{port(72, "", "")}}},
			Containers: []corev1.Container{{Ports: []corev1.ContainerPort{port(80, "", "")}}}},
			want: []nodepool.HostPort{tcp("0.0.0.0", 72), tcp("0.0.0.0", 80)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tc.want, nodepool.PodHostPorts(&tc.spec)); diff != "" {
				t.Errorf("PodHostPorts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHostPortClashes: same port and protocol, on one IP or a wildcard.
func TestHostPortClashes(t *testing.T) {
	hp := func(ip string, p int32, protocol corev1.Protocol) nodepool.HostPort {
		return nodepool.HostPort{IP: ip, Port: p, Protocol: protocol}
	}
	tests := []struct {
		name string
		a, b nodepool.HostPort
		want bool
	}{
		{name: "same IP", a: hp("10.0.0.1", 80, "TCP"), b: hp("10.0.0.1", 80, "TCP"), want: true},
		{name: "other IPs", a: hp("10.0.0.1", 80, "TCP"), b: hp("10.0.0.2", 80, "TCP")},
		{name: "0.0.0.0 takes every IP", a: hp("0.0.0.0", 80, "TCP"), b: hp("10.0.0.2", 80, "TCP"), want: true},
		{name: "every IP is taken by 0.0.0.0", a: hp("10.0.0.2", 80, "TCP"), b: hp("0.0.0.0", 80, "TCP"), want: true},
		{name: ":: takes every IP", a: hp("::", 80, "TCP"), b: hp("10.0.0.2", 80, "TCP"), want: true},
		{name: "unset IP takes every IP", a: hp("", 80, "TCP"), b: hp("10.0.0.2", 80, "TCP"), want: true},
		{name: "other port", a: hp("0.0.0.0", 80, "TCP"), b: hp("0.0.0.0", 81, "TCP")},
		{name: "other protocol", a: hp("0.0.0.0", 53, "TCP"), b: hp("0.0.0.0", 53, "UDP")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.a.Clashes(tc.b); got != tc.want {
				t.Errorf("%v.Clashes(%v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if got := tc.b.Clashes(tc.a); got != tc.want {
				t.Errorf("symmetric: %v.Clashes(%v) = %v, want %v", tc.b, tc.a, got, tc.want)
			}
		})
	}
}

// TestHostPortClash: the first port of a that clashes, and with which.
func TestHostPortClash(t *testing.T) {
	a := []nodepool.HostPort{{IP: "10.0.0.1", Port: 80, Protocol: "TCP"}, {IP: "0.0.0.0", Port: 53, Protocol: "UDP"}, {IP: "0.0.0.0", Port: 443, Protocol: "TCP"}}
	b := []nodepool.HostPort{{IP: "0.0.0.0", Port: 443, Protocol: "TCP"}, {IP: "10.0.0.9", Port: 53, Protocol: "UDP"}}
	x, y, clash := nodepool.HostPortClash(a, b)
	if diff := gocmp.Diff("0.0.0.0:53/UDP 10.0.0.9:53/UDP true", fmt.Sprint(x, y, clash)); diff != "" {
		t.Errorf("HostPortClash (-want +got):\n%s", diff)
	}
	if _, _, clash := nodepool.HostPortClash(a[:1], b); clash {
		t.Error("HostPortClash: 10.0.0.1:80/TCP clashes with nothing of b")
	}
}
