package benchdata

import "fmt"

// AWSMixedDefaultSeed is the seed gen-aws-mixed.py uses without --seed.
func AWSMixedDefaultSeed() int64 { return 7 }

// AWSMixed returns exactly the bytes that
//
//	python3 gen-aws-mixed.py --pods N --seed S --out DIR
//
// writes to DIR/workload.json: a kind: List of Deployments, Jobs, a
// StorageClass, PersistentVolumeClaims and Pods, DaemonSets and four
// NodePools for the built-in AWS catalog (us-east-1), rendered like Python's
// json.dump(..., indent=1, sort_keys=True), without a trailing newline.
//
// Replica counts scale with pods: a share f split over g groups holds
// max(g, int(pods*f)) replicas, the remainder going to the first groups
// (web 30%/10, api 20%/8, worker 15%/6, cache 10%/4, batch 10%/4,
// infer 5%/2, mesh 5%/2) plus max(1, int(pods*0.05)) stateful db pods. The
// total is pods when pods is a multiple of 100, a little less otherwise (each
// share truncates: 333 gives 328) and never below 37. The requests are drawn
// with random.Random(seed).choice in the script's order and do not depend on
// pods. Objects: 144 for 1,000 pods, 544 for 5,000, 2,044 for 20,000.
func AWSMixed(pods int, seed int64) []byte {
	g := awsMixedGen{n: pods, r: newPyRandom(seed)}
	var objs array
	objs = append(objs, g.web()...)
	objs = append(objs, g.api()...)
	objs = append(objs, g.workers()...)
	objs = append(objs, g.caches()...)
	objs = append(objs, g.batch()...)
	objs = append(objs, g.inference()...)
	objs = append(objs, g.mesh()...)
	objs = append(objs, g.stateful()...)
	objs = append(objs, daemonSets()...)
	objs = append(objs, nodePools()...)
	list := object{"apiVersion": "v1", "kind": "List", "items": objs}
	return appendPyJSON(nil, list, 0)
}

// awsMixedGen holds one generation's size and random stream; the order of
// its method calls in AWSMixed is the order of the script's draws.
type awsMixedGen struct {
	n int
	r *pyRandom
}

// share is the script's share(frac, groups): max(groups, int(n*frac))
// replicas split evenly over groups, the first total%groups groups getting
// one more. int() truncates the float64 product toward zero, as Go does.
func (g awsMixedGen) share(frac float64, groups int) []int {
	total := max(groups, int(float64(g.n)*frac))
	out := make([]int, groups)
	for i := range out {
		out[i] = total / groups
	}
	for i := range total - groups*(total/groups) {
		out[i]++
	}
	return out
}

func cpus() []string { return []string{"100m", "250m", "500m", "750m", "1", "1500m", "2"} }
func mems() []string { return []string{"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "3Gi", "4Gi"} }

// web: required zone spread, preferred (ScheduleAnyway) hostname spread.
func (g awsMixedGen) web() array {
	var out array
	for i, n := range g.share(0.30, 10) {
		lb := object{"app": fmt.Sprintf("web-%d", i)}
		cpu := choice(g.r, cpus()[:5])
		mem := choice(g.r, mems()[:5])
		out = append(out, controller{kind: "Deployment", name: fmt.Sprintf("web-%d", i), replicas: n, labels: lb,
			podSpec: object{
				"topologySpreadConstraints": array{
					spread("topology.kubernetes.io/zone", lb, "DoNotSchedule"),
					spread("kubernetes.io/hostname", lb, "ScheduleAnyway"),
				},
				"containers": array{container(cpu, mem)},
			}}.manifest())
	}
	return out
}

// api: preferred hostname anti-affinity, required zone spread.
func (g awsMixedGen) api() array {
	var out array
	for i, n := range g.share(0.20, 8) {
		lb := object{"app": fmt.Sprintf("api-%d", i)}
		cpu := choice(g.r, cpus()[2:])
		mem := choice(g.r, mems()[2:])
		out = append(out, controller{kind: "Deployment", name: fmt.Sprintf("api-%d", i), replicas: n, labels: lb,
			podSpec: object{
				"topologySpreadConstraints": array{spread("topology.kubernetes.io/zone", lb, "DoNotSchedule")},
				"affinity": object{"podAntiAffinity": object{"preferredDuringSchedulingIgnoredDuringExecution": array{
					object{"weight": 100, "podAffinityTerm": object{
						"labelSelector": object{"matchLabels": lb},
						"topologyKey":   "kubernetes.io/hostname",
					}},
				}}},
				"containers": array{container(cpu, mem)},
			}}.manifest())
	}
	return out
}

// workers: spot only.
func (g awsMixedGen) workers() array {
	var out array
	for i, n := range g.share(0.15, 6) {
		lb := object{"app": fmt.Sprintf("worker-%d", i)}
		cpu := choice(g.r, []string{"1", "2", "4"})
		mem := choice(g.r, []string{"2Gi", "4Gi", "8Gi"})
		out = append(out, controller{kind: "Deployment", name: fmt.Sprintf("worker-%d", i), replicas: n, labels: lb,
			podSpec: object{
				"nodeSelector": object{"karpenter.sh/capacity-type": "spot"},
				"containers":   array{container(cpu, mem)},
			}}.manifest())
	}
	return out
}

// caches: memory-heavy, required instance-category r.
func (g awsMixedGen) caches() array {
	var out array
	for i, n := range g.share(0.10, 4) {
		lb := object{"app": fmt.Sprintf("cache-%d", i)}
		mem := choice(g.r, []string{"8Gi", "16Gi", "24Gi"})
		out = append(out, controller{kind: "Deployment", name: fmt.Sprintf("cache-%d", i), replicas: n, labels: lb,
			podSpec: object{
				"affinity": object{"nodeAffinity": object{"requiredDuringSchedulingIgnoredDuringExecution": object{
					"nodeSelectorTerms": array{object{"matchExpressions": array{object{
						"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": array{"r"},
					}}}},
				}}},
				"containers": array{container("500m", mem)},
			}}.manifest())
	}
	return out
}

// batch: Jobs on the tainted arm64 batch pool.
func (g awsMixedGen) batch() array {
	var out array
	for i, n := range g.share(0.10, 4) {
		lb := object{"job": fmt.Sprintf("batch-%d", i)}
		out = append(out, controller{kind: "Job", name: fmt.Sprintf("batch-%d", i), replicas: n, labels: lb,
			podSpec: object{
				"tolerations":  array{object{"key": "batch", "operator": "Equal", "value": "true", "effect": "NoSchedule"}},
				"nodeSelector": object{"workload": "batch"},
				"containers":   array{container("2", "4Gi")},
			}}.manifest())
	}
	return out
}

// inference: one GPU each, tolerating the GPU pool's taint.
func (g awsMixedGen) inference() array {
	var out array
	for i, n := range g.share(0.05, 2) {
		lb := object{"app": fmt.Sprintf("infer-%d", i)}
		c := container("4", "16Gi")
		c["resources"].(object)["limits"] = object{"nvidia.com/gpu": "1"}
		out = append(out, controller{kind: "Deployment", name: fmt.Sprintf("infer-%d", i), replicas: n, labels: lb,
			podSpec: object{
				"tolerations": array{object{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}},
				"containers":  array{c},
			}}.manifest())
	}
	return out
}

// mesh: an init container larger than the app and a restartable sidecar.
func (g awsMixedGen) mesh() array {
	var out array
	for i, n := range g.share(0.05, 2) {
		lb := object{"app": fmt.Sprintf("mesh-%d", i)}
		migrate := container("1", "1Gi")
		migrate["name"] = "migrate"
		proxy := container("100m", "128Mi")
		proxy["name"] = "proxy"
		proxy["restartPolicy"] = "Always"
		out = append(out, controller{kind: "Deployment", name: fmt.Sprintf("mesh-%d", i), replicas: n, labels: lb,
			podSpec: object{
				"initContainers": array{migrate, proxy},
				"containers":     array{container("250m", "512Mi")},
			}}.manifest())
	}
	return out
}

// stateful: the ebs StorageClass (two zones), then per db pod its claim and
// the pod, which has required hostname anti-affinity against all db pods.
func (g awsMixedGen) stateful() array {
	out := array{object{
		"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": object{"name": "ebs"},
		"provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer",
		"allowedTopologies": array{object{"matchLabelExpressions": array{object{
			"key": "topology.ebs.csi.aws.com/zone", "values": array{"us-east-1a", "us-east-1b"},
		}}}},
	}}
	for j := range max(1, int(float64(g.n)*0.05)) {
		claim := fmt.Sprintf("data-db-%d", j)
		out = append(out,
			object{
				"apiVersion": "v1", "kind": "PersistentVolumeClaim",
				"metadata": object{"name": claim, "namespace": "default"},
				"spec": object{
					"accessModes": array{"ReadWriteOnce"}, "storageClassName": "ebs",
					"resources": object{"requests": object{"storage": "20Gi"}},
				},
			},
			object{
				"apiVersion": "v1", "kind": "Pod",
				"metadata": object{"name": fmt.Sprintf("db-%d", j), "namespace": "default", "labels": object{"app": "db"}},
				"spec": object{
					"containers": array{container("1", "4Gi")},
					"volumes":    array{object{"name": "data", "persistentVolumeClaim": object{"claimName": claim}}},
					"affinity": object{"podAntiAffinity": object{"requiredDuringSchedulingIgnoredDuringExecution": array{
						object{"labelSelector": object{"matchLabels": object{"app": "db"}}, "topologyKey": "kubernetes.io/hostname"},
					}}},
				},
			})
	}
	return out
}

// daemonSets: kube-proxy and node-exporter tolerate everything, log-agent
// nothing.
func daemonSets() array {
	var out array
	for _, d := range []struct {
		name, cpu, mem string
		tolerateAll    bool
	}{
		{"kube-proxy", "100m", "128Mi", true},
		{"node-exporter", "50m", "64Mi", true},
		{"log-agent", "200m", "256Mi", false},
	} {
		spec := object{"containers": array{container(d.cpu, d.mem)}}
		if d.tolerateAll {
			spec["tolerations"] = array{object{"operator": "Exists"}}
		}
		out = append(out, object{
			"apiVersion": "apps/v1", "kind": "DaemonSet",
			"metadata": object{"name": d.name, "namespace": "kube-system"},
			"spec": object{
				"selector": object{"matchLabels": object{"ds": d.name}},
				"template": object{"metadata": object{"labels": object{"ds": d.name}}, "spec": spec},
			},
		})
	}
	return out
}

// pool is one NodePool of the script's pools table.
type pool struct {
	name   string
	weight int
	limits object   // nil: no limits
	reqs   [][3]any // key, operator, values (array)
	taints array    // empty: no taints
	labels object   // empty: no template metadata
}

// nodePools: default (weight 10), reserved (50, cpu limit 200), gpu (20, GPU
// limit 32, tainted) and batch (20, arm64 spot, tainted and labelled).
func nodePools() array {
	pools := []pool{
		{name: "default", weight: 10, reqs: [][3]any{
			{"kubernetes.io/arch", "In", array{"amd64", "arm64"}},
			{"kubernetes.io/os", "In", array{"linux"}},
			{"karpenter.sh/capacity-type", "In", array{"spot", "on-demand"}},
			{"karpenter.k8s.aws/instance-category", "In", array{"c", "m", "r"}},
			{"karpenter.k8s.aws/instance-generation", "Gt", array{"4"}},
		}},
		{name: "reserved", weight: 50, limits: object{"cpu": "200"}, reqs: [][3]any{
			{"node.kubernetes.io/instance-type", "In", array{"m5.2xlarge", "m6i.2xlarge"}},
			{"karpenter.sh/capacity-type", "In", array{"on-demand"}},
		}},
		{name: "gpu", weight: 20, limits: object{"nvidia.com/gpu": "32"}, reqs: [][3]any{
			{"karpenter.k8s.aws/instance-family", "In", array{"g5", "g6"}},
			{"karpenter.sh/capacity-type", "In", array{"on-demand"}},
		}, taints: array{object{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}}},
		{name: "batch", weight: 20, reqs: [][3]any{
			{"kubernetes.io/arch", "In", array{"arm64"}},
			{"karpenter.sh/capacity-type", "In", array{"spot"}},
			{"karpenter.k8s.aws/instance-category", "In", array{"c", "m"}},
		}, taints: array{object{"key": "batch", "value": "true", "effect": "NoSchedule"}},
			labels: object{"workload": "batch"}},
	}
	var out array
	for _, p := range pools {
		out = append(out, p.manifest())
	}
	return out
}

func (p pool) manifest() object {
	reqs := array{}
	for _, r := range p.reqs {
		reqs = append(reqs, object{"key": r[0], "operator": r[1], "values": r[2]})
	}
	tmplSpec := object{
		"nodeClassRef": object{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
		"requirements": reqs,
	}
	tmpl := object{"spec": tmplSpec}
	spec := object{"template": tmpl, "weight": p.weight}
	if len(p.taints) > 0 {
		tmplSpec["taints"] = p.taints
	}
	if len(p.labels) > 0 {
		tmpl["metadata"] = object{"labels": p.labels}
	}
	if len(p.limits) > 0 {
		spec["limits"] = p.limits
	}
	return object{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": object{"name": p.name}, "spec": spec}
}

// controller is the script's dep(): a Deployment (replicas, selector) or a
// Job (parallelism, restartPolicy Never) in namespace default whose pod
// template carries labels and podSpec.
type controller struct {
	kind     string // "Deployment" or "Job"
	name     string
	replicas int
	labels   object // shared by the selector and the template; not modified
	podSpec  object // containers plus the extras; owned by the manifest
}

func (c controller) manifest() object {
	tmpl := object{"metadata": object{"labels": c.labels}, "spec": c.podSpec}
	spec := object{"replicas": c.replicas, "selector": object{"matchLabels": c.labels}, "template": tmpl}
	apiVersion := "apps/v1"
	if c.kind == "Job" {
		spec = object{"parallelism": c.replicas, "template": tmpl}
		c.podSpec["restartPolicy"] = "Never"
		apiVersion = "batch/v1"
	}
	return object{"apiVersion": apiVersion, "kind": c.kind, "metadata": object{"name": c.name, "namespace": "default"}, "spec": spec}
}

// container is the script's ctr(cpu, mem): one container named app.
func container(cpu, mem string) object {
	return object{
		"name": "app", "image": "registry.example/app:1",
		"resources": object{"requests": object{"cpu": cpu, "memory": mem}},
	}
}

// spread is one topology spread constraint with maxSkew 1 over labels.
func spread(key string, labels object, when string) object {
	return object{
		"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when,
		"labelSelector": object{"matchLabels": labels},
	}
}
