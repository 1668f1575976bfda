package scheduler

import (
	"encoding/binary"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// What Solve derives from one pending pod object alone is kept in the Memo
// too (by the pod's address: the caller never modifies a pod a Solve with
// the Memo has read), so that a caller solving again and again over mostly
// the same pods (a disruption planner's simulations) pays for it once per
// pod rather than once per plan of every Solve: its class key (a hash of
// its namespace, labels and spec) and whether it passes the API server's
// checks (validatePod; only a pod that passes is remembered: the reasons
// of one that fails are made anew).

// pendingFacts is what the Memo keeps of a pending pod.
type pendingFacts struct {
	key, valid bool // which of the facts are known
	classKey   uint64
}

// podClassKey returns classKey(p), from m when m is not nil (only a key
// made without error is remembered).
func (m *Memo) podClassKey(p *corev1.Pod) (uint64, error) {
	if m == nil {
		return classKey(p)
	}
	m.mu.Lock()
	f := m.pending[p]
	m.mu.Unlock()
	if f.key {
		return f.classKey, nil
	}
	k, err := classKey(p)
	if err != nil {
		return k, err
	}
	m.mu.Lock()
	f = m.pending[p]
	f.key, f.classKey = true, k
	m.setPending(p, f)
	m.mu.Unlock()
	return k, nil
}

// podValid returns validatePod(p), from m when m is not nil.
func (m *Memo) podValid(p *corev1.Pod) *failure {
	if m == nil {
		return validatePod(p)
	}
	m.mu.Lock()
	f := m.pending[p]
	m.mu.Unlock()
	if f.valid {
		return nil
	}
	if bad := validatePod(p); bad != nil {
		return bad
	}
	m.mu.Lock()
	f = m.pending[p]
	f.valid = true
	m.setPending(p, f)
	m.mu.Unlock()
	return nil
}

// setPending stores a pod's facts (m.mu held).
func (m *Memo) setPending(p *corev1.Pod, f pendingFacts) {
	if m.pending == nil {
		m.pending = map[*corev1.Pod]pendingFacts{}
	}
	m.pending[p] = f
}

// The volume index (topology.Volumes, read only once made) depends on the
// schema and the volume objects alone; the Memo keeps the last one made,
// with what it was made of, so that Solves given the same objects share it.

// volsEntry is the Memo's volume index and what it was made of.
type volsEntry struct {
	schema  requirements.Schema
	objects string // the objects' addresses (volumeObjects)
	vols    *topology.Volumes
}

// volumes returns topology.NewVolumes of the arguments, from m when m is
// not nil and last made it of the same objects.
func (m *Memo) volumes(schema requirements.Schema, pvcs []*corev1.PersistentVolumeClaim, pvs []*corev1.PersistentVolume, classes []*storagev1.StorageClass) *topology.Volumes {
	if m == nil {
		return topology.NewVolumes(schema, pvcs, pvs, classes)
	}
	objects := volumeObjects(pvcs, pvs, classes)
	m.mu.Lock()
	e := m.vols
	m.mu.Unlock()
	if e != nil && e.schema == schema && e.objects == objects {
		return e.vols
	}
	e = &volsEntry{schema: schema, objects: objects, vols: topology.NewVolumes(schema, pvcs, pvs, classes)}
	m.mu.Lock()
	m.vols = e
	m.mu.Unlock()
	return e.vols
}

// volumeObjects names the volume objects by address, list by list.
func volumeObjects(pvcs []*corev1.PersistentVolumeClaim, pvs []*corev1.PersistentVolume, classes []*storagev1.StorageClass) string {
	b := make([]byte, 0, 8*(len(pvcs)+len(pvs)+len(classes)+3))
	b = appendAddresses(b, pvcs)
	b = appendAddresses(b, pvs)
	return string(appendAddresses(b, classes))
}

// appendAddresses appends the list's length and each element's address.
func appendAddresses[T any](b []byte, objs []*T) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(objs)))
	for _, o := range objs {
		b = binary.LittleEndian.AppendUint64(b, uint64(uintptr(unsafe.Pointer(o))))
	}
	return b
}
