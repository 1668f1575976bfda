// Package requirements is the label algebra of nodeplan.
//
// It owns one idea: a set of label requirements that can be intersected,
// compared and explained. A [Requirement] is the set of states one label key may
// take on a node: a set of values, and whether the label may be absent. Every
// operator of Kubernetes node selectors and Karpenter maps onto that model:
//
//	In [a b]        {a, b}                          label required
//	NotIn [a]       every value except a            label may be absent
//	Exists          every value                     label required
//	DoesNotExist    no value                        label must be absent
//	Gt N / Gte N    integers >= N+1 / >= N          label required
//	Lt N / Lte N    integers <= N-1 / <= N          label required
//
// Because NotIn, Exists and DoesNotExist are complements rather than
// enumerations, intersection is plain set intersection, and two requirements
// are compatible exactly when their intersection is not empty. The "both sides
// negative" rule of Karpenter (NotIn vs DoesNotExist is compatible) falls out
// of the model: both allow the label to be absent.
//
// [Requirements] is a set of requirements keyed by label, with the rules that
// decide what an undefined key means: a well-known label that a NodePool does
// not mention may take any value the cloud offers, while a custom label must
// be declared by the NodePool (for example with Exists) before a pod can ask
// for it. Which labels are well-known is a [Schema] the caller passes; nothing
// here is global.
//
// The package also turns Kubernetes selectors (node selector requirements and
// terms, a pod's nodeSelector plus one required affinity term, plain label
// maps) into requirements, validates user-written requirements, and matches
// taints against tolerations.
//
// Flow: requirements is the bottom of the dependency graph. instancetypes,
// nodepool and topology build on it; binpack and scheduler use all of them.
// It knows nothing of resources, prices or placement.
package requirements
