package nodepool

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// HostPort is one host port a pod holds on its node: (IP, port, protocol).
// Two pods cannot share a node when they hold clashing host ports (see
// Clashes).
type HostPort struct {
	// IP is the container port's hostIP, or "0.0.0.0" when unset.
	IP   string `json:"ip"`
	Port int32  `json:"port"`
	// Protocol is TCP when unset.
	Protocol corev1.Protocol `json:"protocol"`
}

func (p HostPort) String() string { return fmt.Sprintf("%s:%d/%s", p.IP, p.Port, p.Protocol) }

func compareHostPorts(a, b HostPort) int {
	return cmp.Or(cmp.Compare(a.Port, b.Port), cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.IP, b.IP))
}

// Clashes reports whether p and q cannot be held on one node: the same port
// and protocol, on the same IP or with either on a wildcard IP (0.0.0.0,
// "::", or unset), which takes every IP. kube-scheduler's NodePorts filter
// treats only 0.0.0.0 as a wildcard; "::" is one too here, which can only
// keep a pod off a node kube-scheduler would allow, never the reverse.
func (p HostPort) Clashes(q HostPort) bool {
	wild := func(ip string) bool { return ip == "" || ip == "0.0.0.0" || ip == "::" }
	return p.Port == q.Port && p.Protocol == q.Protocol && (p.IP == q.IP || wild(p.IP) || wild(q.IP))
}

// HostPortClash returns the first port of a (in order) that clashes with a
// port of b, and that port; clash is false when none does.
func HostPortClash(a, b []HostPort) (x, y HostPort, clash bool) {
	for _, x := range a {
		for _, y := range b {
			if x.Clashes(y) {
				return x, y, true
			}
		}
	}
	return HostPort{}, HostPort{}, false
}

// PodHostPorts returns the host ports a pod holds on its node, the way
// kube-scheduler's NodePorts plugin counts them: the ports with a host
// port (> 0) of its restartable init containers (sidecars, restartPolicy
// Always, which run as long as the pod) and of its containers, in that
// order; an unset IP is 0.0.0.0 and an unset protocol TCP. Other init
// containers finish before the containers start, so their ports are not
// held. The result shares nothing with spec.
func PodHostPorts(spec *corev1.PodSpec) []HostPort {
	var out []HostPort
	add := func(c *corev1.Container) {
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				out = append(out, HostPort{IP: cmp.Or(p.HostIP, "0.0.0.0"), Port: p.HostPort, Protocol: cmp.Or(p.Protocol, corev1.ProtocolTCP)})
			}
		}
	}
	for i := range spec.InitContainers {
		if c := &spec.InitContainers[i]; c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(c)
		}
	}
	for i := range spec.Containers {
		add(&spec.Containers[i])
	}
	return out
}

// sortedHostPorts is PodHostPorts sorted, each port once.
func sortedHostPorts(spec *corev1.PodSpec) []HostPort {
	out := PodHostPorts(spec)
	slices.SortFunc(out, compareHostPorts)
	return slices.Compact(out)
}
