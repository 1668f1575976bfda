// Package kubecheck checks a plan the way kube-scheduler would meet it: do
// the pods actually bind where the plan puts them?
//
// It builds the cluster the plan leads to: the scenario's existing Nodes
// (startup and ephemeral taints of a Karpenter node still initialising
// removed, as after initialisation) with their bound pods, and one Node per
// NodeClaim with the labels the node will carry (the instance type's
// catalog labels, zone, capacity type, instance type, NodePool, hostname,
// the NodePool's template labels, the plan's labels), the NodePool's taints
// and the instance type's allocatable. DaemonSet pods go on every node that
// would run them. Then it runs kube-scheduler v1.37.2's own PreFilter and
// Filter plugins (k8s.io/kubernetes/pkg/scheduler/framework/plugins, the
// default profile without DynamicResources) for each placed pod, one at a
// time in queue order, against its planned node only and the pods bound so
// far; a pod that fails is retried after others bound, until nothing more
// binds. The pods planned on existing nodes go first, against the existing
// nodes alone (they bind as soon as they fit, a NodeClaim's node joins
// later); then every pod left, against all the nodes. Pods left are
// refused, with the failing plugin and its reasons.
//
// Before binding, each NodeClaim is checked as a launch: its NodePool
// exists and is dynamic, its instance type and an available offering in
// its zone and capacity type exist at the plan's price, the node's labels
// satisfy the NodePool's requirements, its minValues hold over the
// options that have an offering its requirements allow (the AWS provider's
// check when it creates the instance, under the Strict minValues policy the
// differential runs), the NodePool's limits and the capacity reservations
// hold. A claim that fails refuses all its pods.
//
// The check is independent of nodeplan's verify.Plan (scheduler/verify): it
// shares only the manifest reader and the catalog decoder with the library.
package kubecheck
