package scheduler

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// The DaemonSets, volumes and namespaces a caller solving again and again
// gives are mostly the same lists of the same objects on every call, and
// checking them (a name each, no duplicate, the API server's rules on
// DaemonSet templates, volume node affinity and namespace labels) reads
// every object. The Memo remembers the last lists that passed, object by
// object (the caller never modifies an object a Solve with the Memo has
// read), and Solve checks them again only when a list differs.

// checkedLists are the last lists that passed config.checkLists.
type checkedLists struct {
	daemonSets     []*appsv1.DaemonSet
	pvcs           []*corev1.PersistentVolumeClaim
	pvs            []*corev1.PersistentVolume
	storageClasses []*storagev1.StorageClass
	namespaces     []*corev1.Namespace
}

// listsPassed reports whether c's lists are, object for object, the last
// ones that passed the checks (false when m is nil).
func (m *Memo) listsPassed(c *config) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	l := m.lists
	m.mu.Unlock()
	return l != nil && slices.Equal(l.daemonSets, c.daemonSets) && slices.Equal(l.pvcs, c.pvcs) && slices.Equal(l.pvs, c.pvs) &&
		slices.Equal(l.storageClasses, c.storageClasses) && slices.Equal(l.namespaces, c.namespaces)
}

// rememberLists remembers c's lists as passed (nothing when m is nil).
func (m *Memo) rememberLists(c *config) {
	if m == nil {
		return
	}
	l := &checkedLists{daemonSets: slices.Clone(c.daemonSets), pvcs: slices.Clone(c.pvcs), pvs: slices.Clone(c.pvs),
		storageClasses: slices.Clone(c.storageClasses), namespaces: slices.Clone(c.namespaces)}
	m.mu.Lock()
	m.lists = l
	m.mu.Unlock()
}
