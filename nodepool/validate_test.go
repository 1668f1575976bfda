package nodepool_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
)

// pool is the valid NodePool the validation cases start from.
func pool() *testutil.NodePoolBuilder {
	return testutil.NodePool("np").Requirement(requirementsArch, corev1.NodeSelectorOpIn, "amd64")
}

const requirementsArch = "kubernetes.io/arch"

func ptr[T any](v T) *T { return &v }

// TestValidate has one case per admission rule: the smallest NodePool that
// breaks it, and the error (kind and path) it must give.
func TestValidate(t *testing.T) {
	const req0 = `nodepool "np": spec.template.spec.requirements[0]`
	const req1 = `nodepool "np": spec.template.spec.requirements[1]`
	const tmpl = `nodepool "np": spec.template`
	tests := []struct {
		name string
		np   nodepool.NodePool
		want []fieldErr
	}{
		{name: "valid", np: pool().Obj()},
		{
			name: "valid with everything",
			np: pool().Weight(100).Label("team", "a").Annotation("example.com/x", "y").
				Taint("gpu", "true", corev1.TaintEffectNoSchedule).Taint("gpu", "true", corev1.TaintEffectNoExecute).
				StartupTaint("gpu", "true", corev1.TaintEffectNoSchedule).
				Limit(corev1.ResourceCPU, "0").Limit(nodepool.ResourceNodes, "10").
				NodeClassRef("karpenter.k8s.aws", "EC2NodeClass", "default").ExpireAfter("1h30m").
				ConsolidationPolicy(nodepool.ConsolidationWhenEmpty).ConsolidateAfter("Never").
				Budget(nodepool.Budget{Nodes: "100%"}).
				Budget(nodepool.Budget{Nodes: "3", Schedule: ptr("@daily"), Duration: &metav1.Duration{Duration: time.Hour}}).
				Obj(),
		},
		{name: "name missing", np: testutil.NodePool("").Obj(), want: []fieldErr{{field.ErrorTypeRequired, `nodepool: metadata.name`}}},
		{name: "name not a DNS subdomain", np: testutil.NodePool("GPU_pool").Obj(), want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "GPU_pool": metadata.name`}}},
		{
			name: "name longer than a label value",
			np:   testutil.NodePool(strings.Repeat("a", 64)).Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, fmt.Sprintf("nodepool %q: metadata.name", strings.Repeat("a", 64))}},
		},
		{name: "weight 0", np: pool().Weight(0).Obj(), want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "np": spec.weight`}}},
		{name: "weight 101", np: pool().Weight(101).Obj(), want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "np": spec.weight`}}},
		{name: "replicas negative", np: pool().Replicas(-1).Obj(), want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "np": spec.replicas`}}},
		{
			name: "more than 100 requirements counting labels",
			np: func() nodepool.NodePool {
				b := pool()
				for i := range 60 {
					b.Requirement(fmt.Sprintf("k%d", i), corev1.NodeSelectorOpExists)
				}
				for i := range 40 {
					b.Label(fmt.Sprintf("l%d", i), "v")
				}
				return b.Obj()
			}(),
			want: []fieldErr{{field.ErrorTypeTooMany, `nodepool "np": spec.template.spec.requirements`}},
		},
		{
			name: "unsupported operator",
			np:   testutil.NodePool("np").Requirement("team", "Matches", "a").Obj(),
			want: []fieldErr{{field.ErrorTypeNotSupported, req0 + ".operator"}},
		},
		{
			name: "In without values",
			np:   testutil.NodePool("np").Requirement("team", corev1.NodeSelectorOpIn).Obj(),
			want: []fieldErr{{field.ErrorTypeRequired, req0 + ".values"}},
		},
		{
			name: "Exists with values",
			np:   testutil.NodePool("np").Requirement("team", corev1.NodeSelectorOpExists, "a").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".values"}},
		},
		{
			name: "Gt not an integer",
			np:   testutil.NodePool("np").Requirement(labelLocalNVMe, corev1.NodeSelectorOpGt, "99Gi").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".values[0]"}},
		},
		{
			name: "Gt negative",
			np:   testutil.NodePool("np").Requirement(labelLocalNVMe, corev1.NodeSelectorOpGt, "-1").Obj(),
			// Negative, and not a valid label value either.
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".values[0]"}, {field.ErrorTypeInvalid, req0 + ".values[0]"}},
		},
		{
			name: "Lt with two values",
			np:   testutil.NodePool("np").Requirement(labelLocalNVMe, corev1.NodeSelectorOpLt, "1", "2").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".values"}},
		},
		{
			name: "invalid key",
			np:   testutil.NodePool("np").Requirement("bad key", corev1.NodeSelectorOpExists).Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".key"}},
		},
		{
			name: "invalid value",
			np:   testutil.NodePool("np").Requirement("team", corev1.NodeSelectorOpIn, "a b").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".values[0]"}},
		},
		{
			name: "minValues 0",
			np:   pool().MinValues(0).Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".minValues"}},
		},
		{
			name: "minValues 51",
			np:   testutil.NodePool("np").Requirement(labelInstanceFamily, corev1.NodeSelectorOpExists).MinValues(51).Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".minValues"}},
		},
		{
			name: "minValues above the In values",
			np:   testutil.NodePool("np").Requirement(labelInstanceFamily, corev1.NodeSelectorOpIn, "m5", "c5").MinValues(3).Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".minValues"}},
		},
		{
			name: "restricted domain karpenter.sh",
			np:   pool().Requirement("karpenter.sh/team", corev1.NodeSelectorOpExists).Obj(),
			want: []fieldErr{{field.ErrorTypeForbidden, req1 + ".key"}},
		},
		{
			name: "restricted provider domain karpenter.k8s.aws",
			np:   pool().Requirement("karpenter.k8s.aws/team", corev1.NodeSelectorOpExists).Obj(),
			want: []fieldErr{{field.ErrorTypeForbidden, req1 + ".key"}},
		},
		{
			name: "karpenter.sh/nodepool requirement",
			np:   pool().Requirement("karpenter.sh/nodepool", corev1.NodeSelectorOpIn, "other").Obj(),
			want: []fieldErr{{field.ErrorTypeForbidden, req1 + ".key"}},
		},
		{
			name: "kubernetes.io/hostname requirement",
			np:   pool().Requirement("kubernetes.io/hostname", corev1.NodeSelectorOpIn, "node-1").Obj(),
			want: []fieldErr{{field.ErrorTypeForbidden, req1 + ".key"}},
		},
		{
			name: "karpenter.sh/nodepool label",
			np:   pool().Label("karpenter.sh/nodepool", "other").Obj(),
			want: []fieldErr{{field.ErrorTypeForbidden, tmpl + ".metadata.labels[karpenter.sh/nodepool]"}},
		},
		{
			name: "kubernetes.io/hostname label",
			np:   pool().Label("kubernetes.io/hostname", "node-1").Obj(),
			want: []fieldErr{{field.ErrorTypeForbidden, tmpl + ".metadata.labels[kubernetes.io/hostname]"}},
		},
		{
			name: "restricted label domain",
			np:   pool().Label("karpenter.sh/team", "a").Obj(),
			want: []fieldErr{{field.ErrorTypeForbidden, tmpl + ".metadata.labels[karpenter.sh/team]"}},
		},
		{
			name: "invalid label value",
			np:   pool().Label("team", "a/b").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, tmpl + ".metadata.labels[team]"}},
		},
		{
			name: "invalid label key",
			np:   pool().Label("-team", "a").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, tmpl + ".metadata.labels[-team]"}},
		},
		{
			name: "invalid annotation key",
			np:   pool().Annotation("not a key", "a").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, tmpl + ".metadata.annotations"}},
		},
		{
			name: "capacity-type with no valid value",
			np:   testutil.NodePool("np").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "bogus").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, req0 + ".values"}},
		},
		{
			name: "capacity-type with one valid value is accepted (B-042)",
			np:   testutil.NodePool("np").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "spot", "bogus").Obj(),
		},
		{
			name: "capacity-type NotIn an unknown value is accepted",
			np:   testutil.NodePool("np").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpNotIn, "bogus").Obj(),
		},
		{
			name: "capacity-type label with an unknown value",
			np:   pool().Label("karpenter.sh/capacity-type", "bogus").Obj(),
			want: []fieldErr{{field.ErrorTypeNotSupported, tmpl + ".metadata.labels[karpenter.sh/capacity-type]"}},
		},
		{
			name: "taint effect unknown",
			np:   pool().Taint("gpu", "true", "NoRun").Obj(),
			want: []fieldErr{{field.ErrorTypeNotSupported, tmpl + ".spec.taints[0].effect"}},
		},
		{
			name: "taint effect missing",
			np:   pool().Taint("gpu", "true", "").Obj(),
			want: []fieldErr{{field.ErrorTypeNotSupported, tmpl + ".spec.taints[0].effect"}},
		},
		{
			name: "taint key missing",
			np:   pool().Taint("", "true", corev1.TaintEffectNoSchedule).Obj(),
			want: []fieldErr{{field.ErrorTypeRequired, tmpl + ".spec.taints[0].key"}},
		},
		{
			name: "taint value invalid",
			np:   pool().Taint("gpu", "not valid", corev1.TaintEffectNoSchedule).Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, tmpl + ".spec.taints[0].value"}},
		},
		{
			name: "duplicate taint key and effect",
			np: pool().Taint("gpu", "true", corev1.TaintEffectNoSchedule).
				Taint("gpu", "false", corev1.TaintEffectNoSchedule).Obj(),
			want: []fieldErr{{field.ErrorTypeDuplicate, tmpl + ".spec.taints[1]"}},
		},
		{
			name: "duplicate startup taint key and effect",
			np: pool().StartupTaint("agent", "", corev1.TaintEffectNoExecute).
				StartupTaint("agent", "", corev1.TaintEffectNoExecute).Obj(),
			want: []fieldErr{{field.ErrorTypeDuplicate, tmpl + ".spec.startupTaints[1]"}},
		},
		{
			name: "negative limit",
			np:   pool().Limit(corev1.ResourceCPU, "-1").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "np": spec.limits[cpu]`}},
		},
		{name: "expireAfter in days", np: pool().ExpireAfter("30d").Obj(), want: []fieldErr{{field.ErrorTypeInvalid, tmpl + ".spec.expireAfter"}}},
		{name: "expireAfter fractional", np: pool().ExpireAfter("1.5h").Obj(), want: []fieldErr{{field.ErrorTypeInvalid, tmpl + ".spec.expireAfter"}}},
		{name: "expireAfter negative", np: pool().ExpireAfter("-1h").Obj(), want: []fieldErr{{field.ErrorTypeInvalid, tmpl + ".spec.expireAfter"}}},
		{name: "expireAfter never, lower case", np: pool().ExpireAfter("never").Obj(), want: []fieldErr{{field.ErrorTypeInvalid, tmpl + ".spec.expireAfter"}}},
		{name: "expireAfter Never", np: pool().ExpireAfter("Never").Obj()},
		{
			name: "terminationGracePeriod negative",
			np: func() nodepool.NodePool {
				np := pool().Obj()
				np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: -time.Second}
				return np
			}(),
			want: []fieldErr{{field.ErrorTypeInvalid, tmpl + ".spec.terminationGracePeriod"}},
		},
		{
			name: "consolidateAfter not a duration",
			np:   pool().ConsolidateAfter("soon").Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "np": spec.disruption.consolidateAfter`}},
		},
		{
			name: "consolidationPolicy of v1beta1",
			np:   pool().ConsolidationPolicy("WhenUnderutilized").Obj(),
			want: []fieldErr{{field.ErrorTypeNotSupported, `nodepool "np": spec.disruption.consolidationPolicy`}},
		},
		{
			name: "budget nodes not a number",
			np:   pool().Budget(nodepool.Budget{Nodes: "ten"}).Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "np": spec.disruption.budgets[0].nodes`}},
		},
		{
			name: "budget nodes above 100%",
			np:   pool().Budget(nodepool.Budget{Nodes: "101%"}).Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "np": spec.disruption.budgets[0].nodes`}},
		},
		{
			name: "budget reason unknown",
			np:   pool().Budget(nodepool.Budget{Nodes: "1", Reasons: []string{"Expired"}}).Obj(),
			want: []fieldErr{{field.ErrorTypeNotSupported, `nodepool "np": spec.disruption.budgets[0].reasons[0]`}},
		},
		{
			name: "budget schedule without duration",
			np:   pool().Budget(nodepool.Budget{Nodes: "1", Schedule: ptr("@daily")}).Obj(),
			want: []fieldErr{{field.ErrorTypeRequired, `nodepool "np": spec.disruption.budgets[0].duration`}},
		},
		{
			name: "budget schedule not cron",
			np:   pool().Budget(nodepool.Budget{Nodes: "1", Schedule: ptr("daily"), Duration: &metav1.Duration{Duration: time.Hour}}).Obj(),
			want: []fieldErr{{field.ErrorTypeInvalid, `nodepool "np": spec.disruption.budgets[0].schedule`}},
		},
		{
			name: "budget duration without schedule is accepted (the seed writes it)",
			np:   pool().Budget(nodepool.Budget{Nodes: "10%", Duration: &metav1.Duration{Duration: time.Hour}}).Obj(),
		},
		{
			name: "nodeClassRef without name",
			np:   pool().NodeClassRef("karpenter.k8s.aws", "EC2NodeClass", "").Obj(),
			want: []fieldErr{{field.ErrorTypeRequired, tmpl + ".spec.nodeClassRef.name"}},
		},
		{
			name: "apiVersion other than v1",
			np: func() nodepool.NodePool {
				np := pool().Obj()
				np.APIVersion = nodepool.APIVersionV1beta1
				return np
			}(),
			want: []fieldErr{{field.ErrorTypeNotSupported, `nodepool "np": apiVersion`}},
		},
		{
			name: "every error is reported",
			np:   testutil.NodePool("np").Weight(0).Requirement("team", corev1.NodeSelectorOpIn).Taint("", "", "x").Obj(),
			want: []fieldErr{
				{field.ErrorTypeInvalid, `nodepool "np": spec.weight`},
				{field.ErrorTypeRequired, req0 + ".values"},
				{field.ErrorTypeRequired, tmpl + ".spec.taints[0].key"},
				{field.ErrorTypeNotSupported, tmpl + ".spec.taints[0].effect"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			errs := nodepool.Validate(tc.np, testSchema())
			if diff := gocmp.Diff(tc.want, fieldErrs(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nerrors: %v", diff, errs)
			}
			for _, e := range errs {
				if !strings.HasPrefix(e.Error(), "nodepool") {
					t.Errorf("error does not name the NodePool: %v", e)
				}
			}
		})
	}
}

// TestValidateMessage pins one message whole: the pool, the path, the
// value and the supported operators.
func TestValidateMessage(t *testing.T) {
	np := testutil.NodePool("gpu").Requirement("team", "Matches", "a").Obj()
	errs := nodepool.Validate(np, testSchema())
	want := `nodepool "gpu": spec.template.spec.requirements[0].operator: Unsupported value: "Matches": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"`
	if diff := gocmp.Diff(want, errs.ToAggregate().Error()); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}
