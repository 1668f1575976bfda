package scheduler

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// Settings is what a list of options says about the input, resolved over
// the defaults and validated as Solve validates them: the public reading of
// options for code that must see the input as Solve sees it, such as the
// plan checker in scheduler/verify, without depending on how Solve works.
//
// The slices are fresh, in the order the options gave them (several calls
// of one option add up); the objects in them are the caller's and must not
// be modified. Options that only steer the search (WithSeed,
// WithImprovementBudget, WithNodeCost, WithPreferenceCost) are not
// settings of the input and are left out.
type Settings struct {
	// Nodes and BoundPods are WithExistingNodes' lists.
	Nodes     []*corev1.Node
	BoundPods []*corev1.Pod
	// DaemonSets is WithDaemonSets' list, each as Solve charges it: a
	// DaemonSet whose live pod (a bound pod it owns) asks for other
	// requests than its template is a copy asking as that pod does
	// (B-151).
	DaemonSets []*appsv1.DaemonSet
	// PVCs, PVs and StorageClasses are WithVolumes' lists.
	PVCs           []*corev1.PersistentVolumeClaim
	PVs            []*corev1.PersistentVolume
	StorageClasses []*storagev1.StorageClass
	// Namespaces is WithNamespaces' list.
	Namespaces []*corev1.Namespace
	// Preferences is the policy of every kind of preference (every kind of
	// PreferenceKinds is present): WithPreferencePolicyFor's for the kinds
	// it names, else WithPreferencePolicy's (default PreferenceRespect).
	Preferences map[PreferenceKind]PreferencePolicy
	// MinValues is WithMinValuesPolicy's policy (default MinValuesStrict).
	MinValues MinValuesPolicy
	// Schema is WithSchema's vocabulary, nil when not set (see SchemaFor).
	Schema *requirements.Schema
	// MaxInstanceTypeOptions is WithMaxInstanceTypeOptions' cap (default
	// 100).
	MaxInstanceTypeOptions int
}

// Resolve applies opts over the defaults and validates them exactly as
// Solve does: the error is Solve's for the same options (one *InputError
// per problem, errors.Join), and a nil Option is skipped.
func Resolve(opts ...Option) (Settings, error) {
	c, err := resolve(opts)
	if err != nil {
		return Settings{}, err
	}
	s := Settings{
		Nodes:                  slices.Clone(c.nodes),
		BoundPods:              slices.Clone(c.boundPods),
		DaemonSets:             slices.Clone(c.daemonSets),
		PVCs:                   slices.Clone(c.pvcs),
		PVs:                    slices.Clone(c.pvs),
		StorageClasses:         slices.Clone(c.storageClasses),
		Namespaces:             slices.Clone(c.namespaces),
		Preferences:            make(map[PreferenceKind]PreferencePolicy, len(PreferenceKinds())),
		MinValues:              c.minValues,
		MaxInstanceTypeOptions: c.maxOptions,
	}
	for _, k := range PreferenceKinds() {
		s.Preferences[k] = c.policyFor(k)
	}
	if c.schema != nil {
		schema := *c.schema
		s.Schema = &schema
	}
	return s, nil
}

// SchemaFor returns the label vocabulary Solve uses with catalog: the one
// WithSchema set, else the catalog's (requirements.DefaultSchema extended
// with the catalog's label keys and the offering keys).
func (s Settings) SchemaFor(catalog instancetypes.Catalog) requirements.Schema {
	if s.Schema != nil {
		return *s.Schema
	}
	return catalog.Schema()
}
