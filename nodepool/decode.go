package nodepool

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/internal/strictjson"
)

// API versions and kind of a NodePool document.
const (
	APIVersionV1      = "karpenter.sh/v1"
	APIVersionV1beta1 = "karpenter.sh/v1beta1"
	Kind              = "NodePool"
)

// Decode decodes one NodePool document, YAML or JSON, strictly:
//   - apiVersion karpenter.sh/v1 decodes into NodePool as is;
//   - karpenter.sh/v1beta1 decodes with the v1beta1 schema and is converted
//     to v1 (see the v1beta1 notes below);
//   - any other apiVersion, or a kind other than NodePool, is an error;
//   - field names match case-sensitively, as the API server matches them, and
//     an unknown or duplicate field is an error naming its path, with the
//     field probably meant: `nodepool "a": spec.weigth: Forbidden: unknown
//     field (did you mean "weight"?)`;
//   - a value of the wrong type, a bad quantity or a bad duration is an error
//     naming its path (`spec.limits[cpu]`).
//
// Quantities may be numbers or strings (`cpu: 100`, `memory: 10M`);
// `expireAfter: Never` and `consolidateAfter: Never` are kept as written.
// A status block (as `kubectl get -o yaml` prints it) is accepted and dropped.
// Decode does not validate (see Validate); it fills in apiVersion and kind
// of a converted document as karpenter.sh/v1 NodePool.
//
// v1beta1 → v1: disruption.expireAfter moves to spec.template.spec.expireAfter
// (a document may also write it there; two different values are an error);
// consolidationPolicy WhenUnderutilized becomes WhenEmptyOrUnderutilized;
// nodeClassRef.apiVersion becomes nodeClassRef.group (a group written
// directly, as v1 does, is accepted too); spec.template.spec.kubelet and
// spec.template.spec.resources are accepted and dropped: in v1 the kubelet
// settings live on the provider's node class, and the instance catalog is
// where reserved resources and max pods are modelled.
//
// Errors are *InvalidError. Several documents in data are an error; see
// DecodeAll.
func Decode(data []byte) (NodePool, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return NodePool{}, err
	}
	switch len(docs) {
	case 0:
		return NodePool{}, invalid("", field.ErrorList{documentError(field.ErrorTypeRequired, "the document is empty")})
	case 1:
		return decodeDocument(docs[0])
	default:
		return NodePool{}, invalid("", field.ErrorList{documentError(field.ErrorTypeInvalid,
			fmt.Sprintf("%d documents; Decode takes one NodePool (see DecodeAll)", len(docs)))})
	}
}

// DecodeAll decodes every `---`-separated document of data as a NodePool
// (see Decode), in order. Empty documents are skipped. Errors of all
// documents are joined; each says its document's index among the non-empty
// documents, from 0.
func DecodeAll(data []byte) ([]NodePool, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, err
	}
	var (
		out  []NodePool
		errs []error
	)
	for i, doc := range docs {
		np, err := decodeDocument(doc)
		if err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", i, err))
			continue
		}
		out = append(out, np)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// splitDocuments returns the non-empty documents of data as JSON.
func splitDocuments(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, invalid("", field.ErrorList{documentError(field.ErrorTypeInvalid, err.Error())})
		}
		j, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return nil, invalid("", field.ErrorList{documentError(field.ErrorTypeInvalid, err.Error())})
		}
		if t := bytes.TrimSpace(j); len(t) == 0 || string(t) == "null" {
			continue
		}
		docs = append(docs, j)
	}
}

// documentError is an error about the whole document (no field path).
func documentError(t field.ErrorType, detail string) *field.Error {
	return &field.Error{Type: t, BadValue: field.OmitValueType{}, Detail: detail}
}

// header is what decodeDocument reads before it picks a schema. Fields are
// read leniently: a malformed name is reported by the strict pass.
type header struct {
	APIVersion, Kind, Name string
}

func readHeader(doc []byte) (header, error) {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return header{}, fmt.Errorf("a NodePool document must be an object: %w", err)
	}
	str := func(v any) string { s, _ := v.(string); return s }
	h := header{APIVersion: str(m["apiVersion"]), Kind: str(m["kind"])}
	if md, ok := m["metadata"].(map[string]any); ok {
		h.Name = str(md["name"])
	}
	return h, nil
}

func decodeDocument(doc []byte) (NodePool, error) {
	h, err := readHeader(doc)
	if err != nil {
		return NodePool{}, invalid("", field.ErrorList{documentError(field.ErrorTypeInvalid, err.Error())})
	}
	var errs field.ErrorList
	if h.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), h.Kind, []string{Kind}))
	}
	switch h.APIVersion {
	case APIVersionV1, APIVersionV1beta1:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), h.APIVersion, []string{APIVersionV1, APIVersionV1beta1}))
	}
	if len(errs) > 0 {
		return NodePool{}, invalid(h.Name, errs)
	}
	if h.APIVersion == APIVersionV1beta1 {
		var b v1beta1NodePool
		if errs := strictUnmarshal(doc, &b); len(errs) > 0 {
			return NodePool{}, invalid(h.Name, errs)
		}
		np, errs := b.convert()
		if len(errs) > 0 {
			return NodePool{}, invalid(h.Name, errs)
		}
		return np, nil
	}
	var d v1Document
	if errs := strictUnmarshal(doc, &d); len(errs) > 0 {
		return NodePool{}, invalid(h.Name, errs)
	}
	return d.NodePool, nil
}

// v1Document is a karpenter.sh/v1 NodePool as served by the API, status
// included (accepted and dropped).
type v1Document struct {
	NodePool `json:",inline"`
	Status   json.RawMessage `json:"status,omitempty"`
}

// strictUnmarshal decodes doc (JSON) into target as the API server does:
// case-sensitive field names, integers kept exact, unknown and duplicate
// fields reported with their paths.
func strictUnmarshal(doc []byte, target any) field.ErrorList {
	strictErrs, err := sigsjson.UnmarshalStrict(doc, target)
	if err != nil {
		return field.ErrorList{locateDecodeError(doc, reflect.TypeOf(target), err)}
	}
	var errs field.ErrorList
	for _, se := range strictErrs {
		fe, ok := se.(sigsjson.FieldError)
		if !ok {
			errs = append(errs, documentError(field.ErrorTypeInvalid, se.Error()))
			continue
		}
		path := field.NewPath(fe.FieldPath())
		if strings.HasPrefix(se.Error(), "duplicate") {
			errs = append(errs, field.Duplicate(path, field.OmitValueType{}))
			continue
		}
		detail := "unknown field"
		if hint := strictjson.FieldHint(reflect.TypeOf(target), fe.FieldPath()); hint != "" {
			detail += fmt.Sprintf(" (did you mean %q?)", hint)
		}
		errs = append(errs, field.Forbidden(path, detail))
	}
	return errs
}

// locateDecodeError turns a decode failure into a field error: the first
// value (in key order) that does not decode, found by strictjson.Locate,
// which walks the document alongside the Go type (the decoder does not say
// where a quantity or duration failed to parse).
func locateDecodeError(doc []byte, t reflect.Type, err error) *field.Error {
	if ok, offset := sigsjson.SyntaxErrorOffset(err); ok {
		return documentError(field.ErrorTypeInvalid, fmt.Sprintf("%v (at byte %d)", err, offset))
	}
	if errs := strictjson.Locate(doc, t); len(errs) > 0 {
		return errs[0]
	}
	return documentError(field.ErrorTypeInvalid, err.Error())
}
