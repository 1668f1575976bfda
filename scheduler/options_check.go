package scheduler

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/apicheck"
	"github.com/nodeplan/nodeplan/internal/kube"
)

// check validates resolved options, so that no caller input reaches the
// solver in a form it could not handle: every problem is an *InputError
// naming the option (and, for a list, the index across every call of the
// option, in order), and all of them are returned together (errors.Join).
// It is what Solve and Resolve run first.
func (c *config) check() error {
	var errs []error
	errs = append(errs, c.checkPolicies()...)
	errs = append(errs, c.checkNumbers()...)
	errs = append(errs, checkNodes(c.nodes, c.memo)...)
	errs = append(errs, checkObjects("WithExistingNodes(boundPods)", "pod", c.boundPods, true)...)
	if !c.memo.listsPassed(c) {
		lists := c.checkLists()
		if len(lists) == 0 {
			c.memo.rememberLists(c)
		}
		errs = append(errs, lists...)
	}
	return errors.Join(errs...)
}

// checkLists checks the lists of cluster objects that stay the same from
// one solve to the next of a caller solving again and again (the
// DaemonSets, volumes and namespaces): the Memo remembers the last lists
// that passed (memo_lists.go).
func (c *config) checkLists() []error {
	var errs []error
	errs = append(errs, checkDaemonSets(c)...)
	errs = append(errs, checkObjects("WithVolumes(pvcs)", "PersistentVolumeClaim", c.pvcs, true)...)
	errs = append(errs, checkObjects("WithVolumes(pvs)", "PersistentVolume", c.pvs, false)...)
	errs = append(errs, checkObjects("WithVolumes(classes)", "StorageClass", c.storageClasses, false)...)
	errs = append(errs, checkObjects("WithNamespaces", "Namespace", c.namespaces, false)...)
	for i, pv := range c.pvs {
		if pv != nil && pv.Spec.NodeAffinity != nil && !c.memo.pvValid(pv) {
			errs = append(errs, fieldErrors("WithVolumes(pvs)", i,
				apicheck.NodeSelector(field.NewPath("spec", "nodeAffinity", "required"), pv.Spec.NodeAffinity.Required))...)
		}
	}
	for i, ns := range c.namespaces {
		if ns != nil {
			errs = append(errs, fieldErrors("WithNamespaces", i, apicheck.Labels(field.NewPath("metadata", "labels"), ns.Labels))...)
		}
	}
	return errs
}

func (c *config) checkPolicies() []error {
	var errs []error
	if !isPolicy(c.preference) {
		errs = append(errs, &InputError{Field: "WithPreferencePolicy", Index: -1, Message: policyMessage(c.preference)})
	}
	for k, p := range c.preferenceByKind {
		name := "WithPreferencePolicyFor(" + string(k) + ")"
		if !slices.Contains(PreferenceKinds(), k) {
			errs = append(errs, &InputError{Field: name, Index: -1, Message: fmt.Sprintf("unknown preference kind %q (kinds: %s)", k, kindList())})
		} else if !isPolicy(p) {
			errs = append(errs, &InputError{Field: name, Index: -1, Message: policyMessage(p)})
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return cmp.Compare(a.Error(), b.Error()) }) // map order
	if c.minValues != MinValuesStrict && c.minValues != MinValuesBestEffort {
		errs = append(errs, &InputError{Field: "WithMinValuesPolicy", Index: -1, Message: fmt.Sprintf("policy %q: want Strict or BestEffort", c.minValues)})
	}
	return errs
}

func isPolicy(p PreferencePolicy) bool {
	return p == PreferenceRespect || p == PreferenceHonor || p == PreferenceIgnore || p == PreferenceWhileFree
}

func policyMessage(p PreferencePolicy) string {
	return fmt.Sprintf("policy %q: want Respect, Honor, Ignore or WhileFree", p)
}

func kindList() string {
	var out []string
	for _, k := range PreferenceKinds() {
		out = append(out, string(k))
	}
	return strings.Join(out, ", ")
}

func (c *config) checkNumbers() []error {
	var errs []error
	if c.budget != nil && *c.budget < 0 {
		errs = append(errs, &InputError{Field: "WithImprovementBudget", Index: -1, Message: fmt.Sprintf("%d: must not be negative", *c.budget)})
	}
	if math.IsNaN(c.nodeCost) || math.IsInf(c.nodeCost, 0) || c.nodeCost < 0 {
		errs = append(errs, &InputError{Field: "WithNodeCost", Index: -1, Message: fmt.Sprintf("%v: must be a finite number, not negative", c.nodeCost)})
	}
	if c.maxOptions < 1 {
		errs = append(errs, &InputError{Field: "WithMaxInstanceTypeOptions", Index: -1, Message: fmt.Sprintf("%d: must be at least 1", c.maxOptions)})
	}
	return errs
}

// checkObjects checks a list an option gathered: no nil, a name, and no
// object given twice (by namespace/name when namespaced, a missing
// namespace reading as "default").
func checkObjects[T metav1.Object](option, kind string, objs []T, namespaced bool) []error {
	var errs []error
	type nsName struct{ ns, name string } // no string made per object
	first := make(map[nsName]int, len(objs))
	for i, o := range objs {
		if isNilPointer(o) {
			errs = append(errs, &InputError{Field: option, Index: i, Message: "nil " + kind})
			continue
		}
		if o.GetName() == "" {
			errs = append(errs, &InputError{Field: option, Index: i, Message: kind + " without metadata.name"})
			continue
		}
		key := nsName{name: o.GetName()}
		if namespaced {
			key.ns = kube.Namespace(o.GetNamespace()) // as kube.Key reads it
		}
		if j, dup := first[key]; dup {
			name := key.name
			if namespaced {
				name = kube.Key(key.ns, key.name)
			}
			errs = append(errs, &InputError{Field: option, Index: i, Message: fmt.Sprintf("%s %s is given twice (also at %d)", kind, name, j)})
			continue
		}
		first[key] = i
	}
	return errs
}

// isNilPointer reports whether o is a typed nil pointer in an interface.
func isNilPointer[T any](o T) bool {
	var zero T
	return any(o) == any(zero)
}

// checkNodes checks the existing nodes: checkObjects, and what the API
// server would reject in their labels and taints (a taint effect Never).
func checkNodes(nodes []*corev1.Node, memo *Memo) []error {
	errs := checkObjects("WithExistingNodes(nodes)", "node", nodes, false)
	for i, n := range nodes {
		if n != nil && !memo.nodeValid(n) {
			errs = append(errs, fieldErrors("WithExistingNodes(nodes)", i, apicheck.Node(n))...)
		}
	}
	return errs
}

// checkDaemonSets checks the DaemonSets: checkObjects, and their pod
// template as the API server would.
func checkDaemonSets(c *config) []error {
	errs := checkObjects("WithDaemonSets", "DaemonSet", c.daemonSets, true)
	for i, ds := range c.daemonSets {
		if ds != nil {
			t := &ds.Spec.Template
			fe := apicheck.Labels(field.NewPath("spec", "template", "metadata", "labels"), t.Labels)
			fe = append(fe, apicheck.PodSpec(field.NewPath("spec", "template", "spec"), &t.Spec)...)
			errs = append(errs, fieldErrors("WithDaemonSets", i, fe)...)
		}
	}
	return errs
}

// fieldErrors turns the field errors of the i-th object of an option into
// input errors.
func fieldErrors(option string, i int, fes field.ErrorList) []error {
	var errs []error
	for _, fe := range fes {
		errs = append(errs, &InputError{Field: option, Index: i, Message: fe.Error()})
	}
	return errs
}
