package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/nodepool"
)

// File is one input file: its name (used in errors, and to tell a JSON
// stream, named *.json or *.json.gz, from YAML) and its bytes, decompressed.
type File struct {
	Name string
	Data []byte
}

// Input is everything the manifests hold, in input order (files in the order
// given, documents in file order, workload pods by ordinal).
type Input struct {
	// Pods are the pending pods to place: Pods without spec.nodeName and
	// the pods of workloads.
	Pods []*corev1.Pod
	// BoundPods are pods with spec.nodeName, already running on a node.
	BoundPods      []*corev1.Pod
	Nodes          []*corev1.Node
	NodePools      []nodepool.NodePool
	DaemonSets     []*appsv1.DaemonSet
	PVCs           []*corev1.PersistentVolumeClaim
	PVs            []*corev1.PersistentVolume
	StorageClasses []*storagev1.StorageClass
	Namespaces     []*corev1.Namespace
	// Cluster holds what only a running cluster's dump has (cluster.go).
	Cluster ClusterObjects
	// Warnings are the things skipped or guessed, one line each, in input
	// order.
	Warnings []string
}

// Decode reads every document of every file. The error, when not nil, is an
// Errors listing every problem; the Input then holds what could be decoded
// and must not be solved.
func Decode(files []File) (Input, error) {
	return decode(files, MaxPods)
}

// MaxPods bounds the pending pods an input may hold, so that a typo in
// replicas cannot exhaust memory.
const MaxPods = 1_000_000

func decode(files []File, maxPods int) (Input, error) {
	d := decoder{seen: map[string]string{}, maxPods: maxPods}
	split := make([]splitFile, len(files))
	var docs []*document
	for i, f := range files {
		split[i] = splitDocuments(f)
		for j := range split[i].docs {
			docs = append(docs, &split[i].docs[j])
		}
	}
	convertAll(docs)
	for _, f := range split {
		d.file(f)
	}
	d.finish()
	if len(d.errs) > 0 {
		return d.in, d.errs
	}
	return d.in, nil
}

type decoder struct {
	in      Input
	errs    Errors
	maxPods int
	// seen maps "Kind namespace/name" to where the object was first defined.
	seen map[string]string
	// claims are the PersistentVolumeClaims StatefulSets would create,
	// added at the end unless the input defines them itself.
	claims []*corev1.PersistentVolumeClaim
}

// at is where an object sits in the input, and which object it is.
type at struct {
	file      string
	doc       int
	item      string
	kind      string
	namespace string
	name      string
}

func (a at) String() string {
	return strings.TrimSuffix(location(a.file, a.doc, a.item, "", "", ""), ": ")
}

func (d *decoder) fail(a at, err error) {
	d.errs = append(d.errs, &Error{File: a.file, Document: a.doc, Item: a.item, Kind: a.kind, Namespace: a.namespace, Name: a.name, Err: err})
}

func (d *decoder) failAll(a at, errs field.ErrorList) {
	for _, e := range errs {
		d.fail(a, e)
	}
}

func (d *decoder) warn(a at, format string, args ...any) {
	d.in.Warnings = append(d.in.Warnings, location(a.file, a.doc, a.item, a.kind, a.namespace, a.name)+singleLine(fmt.Sprintf(format, args...)))
}

func (d *decoder) file(f splitFile) {
	if f.err != nil {
		d.fail(at{file: f.name, doc: len(f.docs) + 1}, f.err)
	} else if len(f.docs) == 0 {
		d.warn(at{file: f.name}, "no documents")
	}
	for _, doc := range f.docs {
		a := at{file: f.name, doc: doc.index}
		if doc.err != nil {
			d.fail(a, doc.err)
			continue
		}
		if doc.warning != "" {
			d.warn(a, "%s (the last value is used)", doc.warning)
		}
		d.value(a, doc.json, 0)
	}
}

// maxListDepth bounds Lists inside Lists.
const maxListDepth = 4

// head is what every object shares, read leniently before the object
// itself is decoded.
type head struct {
	apiVersion string
	kind       string
	name       string
	namespace  string
	fields     map[string]json.RawMessage
}

func readHead(data []byte) (head, bool) {
	var h head
	if err := json.Unmarshal(data, &h.fields); err != nil || h.fields == nil {
		return h, false
	}
	_ = json.Unmarshal(h.fields["apiVersion"], &h.apiVersion)
	_ = json.Unmarshal(h.fields["kind"], &h.kind)
	var meta struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	}
	_ = json.Unmarshal(h.fields["metadata"], &meta)
	h.name, h.namespace = meta.Name, meta.Namespace
	return h, true
}

func (d *decoder) value(a at, data []byte, depth int) {
	h, ok := readHead(data)
	if !ok {
		if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
			d.warn(a, "empty document; skipped")
		} else {
			d.warn(a, "not an object; skipped")
		}
		return
	}
	if _, isList := h.fields["items"]; h.kind == "List" || (isList && strings.HasSuffix(h.kind, "List")) {
		d.list(a, h, depth)
		return
	}
	k, known := kindOf(h.kind)
	if !known {
		d.unknown(a, h)
		return
	}
	a.kind, a.name = h.kind, h.name
	if k.namespaced {
		a.namespace = kube.Namespace(h.namespace)
	}
	if len(k.apiVersions) > 0 && !slices.Contains(k.apiVersions, h.apiVersion) {
		if h.apiVersion == "" {
			d.warn(a, "no apiVersion; decoded as %s %s", k.apiVersions[0], h.kind)
		} else {
			d.warn(a, "apiVersion %q is not an apiVersion of %s; decoded as %s %s", h.apiVersion, h.kind, k.apiVersions[0], h.kind)
		}
	}
	k.decode(d, a, h, data)
}

func (d *decoder) list(a at, h head, depth int) {
	a.kind = h.kind
	if depth >= maxListDepth {
		d.fail(a, fmt.Errorf("Lists nested more than %d deep", maxListDepth))
		return
	}
	raw, ok := h.fields["items"]
	if !ok {
		return // an empty List
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		d.fail(a, field.Invalid(field.NewPath("items"), field.OmitValueType{}, "want a list of objects"))
		return
	}
	for i, item := range items {
		name := fmt.Sprintf("items[%d]", i)
		if a.item != "" {
			name = a.item + "." + name
		}
		d.value(at{file: a.file, doc: a.doc, item: name}, item, depth+1)
	}
}

// unknown warns about a document that is not one of the kinds the input
// format knows.
func (d *decoder) unknown(a at, h head) {
	_, hasTypes := h.fields["instanceTypes"]
	_, hasClaims := h.fields["nodeClaims"]
	_, hasSummary := h.fields["summary"]
	switch {
	case h.kind != "":
		d.warn(a, "skipped kind %s", quoted(h.kind))
	case hasTypes:
		d.warn(a, "skipped: an instance-type catalog, not a manifest (a catalog is given separately)")
	case hasClaims && hasSummary:
		d.warn(a, "skipped: a plan (solver output), not a manifest")
	default:
		d.warn(a, "skipped: no kind")
	}
}

// claim records that an object is defined here; a second definition of the
// same object is an error.
func (d *decoder) claim(a at, kind, namespace, name string) bool {
	key := kind + " " + name
	if namespace != "" {
		key = kind + " " + namespace + "/" + name
	}
	if first, dup := d.seen[key]; dup {
		d.fail(a, fmt.Errorf("%s is defined twice (first in %s)", key, first))
		return false
	}
	d.seen[key] = a.String()
	return true
}

// finish adds the claims of StatefulSets that the input does not define and
// warns about pods bound to nodes that are not in the input.
func (d *decoder) finish() {
	for _, c := range d.claims {
		if _, ok := d.seen["PersistentVolumeClaim "+c.Namespace+"/"+c.Name]; !ok {
			d.in.PVCs = append(d.in.PVCs, c)
		}
	}
	nodes := map[string]bool{}
	for _, n := range d.in.Nodes {
		nodes[n.Name] = true
	}
	missing := map[string]int{}
	for _, p := range d.in.BoundPods {
		if !nodes[p.Spec.NodeName] {
			missing[p.Spec.NodeName]++
		}
	}
	for _, n := range slices.Sorted(maps.Keys(missing)) {
		d.in.Warnings = append(d.in.Warnings, fmt.Sprintf("%d pod(s) bound to node %q, which is not in the input; they are ignored", missing[n], n))
	}
}
