package scheduler

import (
	"slices"
	"strconv"
	"strings"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// What newPool derives from a NodePool's template, the catalog and the
// DaemonSets (the pool's usable types, their DaemonSet overhead and
// allocatable less it, the zones and capacity types they offer) does not
// change from one Solve to the next over the same catalog and DaemonSet
// objects: the Memo keeps it, so that a caller solving again and again
// (a disruption planner) pays for it once per pool rather than once per
// solve (two vectors per instance type). Shared by every plan and Solve
// that reads it: never written once made.
type poolTypes struct {
	types     binpack.TypeSet
	usable    []binpack.Vec
	ds        []binpack.Vec
	dsSets    [][]int
	noTypes   string
	noTypesDS bool
	zones     []string
	cts       []string
	reqs      requirements.Requirements
	// keep holds the DaemonSets the key names by address, so that no
	// other object takes one of the addresses while the Memo holds it.
	keep []*appsv1.DaemonSet
}

// poolMemoKey is what poolTypes depends on: the prepared catalog, the
// schema the DaemonSets are read with, the DaemonSet objects (by address:
// the Memo's callers never modify them), and the template's requirements
// and taints (by content).
type poolMemoKey struct {
	prepared   *PreparedCatalog
	schema     requirements.Schema
	daemonSets string
	template   string
}

// poolKey returns the key of template t's types under the solve's
// catalog, schema and DaemonSets.
func (s *solver) poolKey(t nodepool.Template) poolMemoKey {
	var ds strings.Builder
	for _, d := range s.cfg.daemonSets {
		ds.WriteString(strconv.FormatUint(uint64(uintptr(unsafe.Pointer(d))), 16))
		ds.WriteByte(0)
	}
	var tb strings.Builder
	tb.WriteString(t.Requirements.Fingerprint())
	for _, taint := range t.Taints {
		tb.WriteString("\x00" + taint.Key + "=" + taint.Value + ":" + string(taint.Effect))
	}
	return poolMemoKey{prepared: s.cfg.prepared, schema: s.schema, daemonSets: ds.String(), template: tb.String()}
}

// poolTypesOf returns template t's poolTypes, from the Memo when the solve
// has one and its catalog was prepared by the caller (WithPrepared: a
// catalog prepared for one solve is never seen again).
func (s *solver) poolTypesOf(t nodepool.Template) *poolTypes {
	m := s.cfg.memo
	if m == nil || s.cfg.ownPrepared {
		return s.newPoolTypes(t)
	}
	key := s.poolKey(t)
	m.mu.Lock()
	pt, ok := m.poolTypes[key]
	m.mu.Unlock()
	if ok {
		return pt
	}
	pt = s.newPoolTypes(t)
	pt.keep = slices.Clone(s.cfg.daemonSets)
	m.mu.Lock()
	if m.poolTypes == nil {
		m.poolTypes = map[poolMemoKey]*poolTypes{}
	}
	m.poolTypes[key] = pt
	m.mu.Unlock()
	return pt
}
