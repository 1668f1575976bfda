// Package strictjson decodes JSON into Kubernetes and Karpenter API types
// the way the API server does (case-sensitive field names, integers kept
// exact, unknown and duplicate fields reported), and says where a value
// does not fit: it walks the JSON tree alongside the Go type and decodes
// each leaf alone, so every bad value gets a field path (encoding/json
// reports only the first, and a quantity's parse error carries no path).
// It also suggests the field a misspelled one meant.
//
// internal/manifest (every core kind) and nodepool (NodePools) use it, so
// the walk is written once.
//
// Flow: strictjson sits on apimachinery's field errors and sigs.k8s.io/json.
package strictjson

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/nodeplan/nodeplan/internal/hint"
)

// Unmarshal decodes JSON into obj the way the API server does: field names
// are case-sensitive, integers stay integers. Unknown and duplicate fields
// are returned as strict errors, each naming its field path; obj is still
// decoded. A value that cannot be decoded (a quantity that does not parse,
// a string where a number belongs) is a fatal error, returned as a list of
// field errors with paths (encoding/json reports only the first such value,
// and a quantity's parse error carries no path at all).
func Unmarshal(data []byte, obj any) (strict []error, fatal field.ErrorList) {
	strict, err := kjson.UnmarshalStrict(data, obj)
	if err == nil {
		return strict, nil
	}
	fatal = Locate(data, reflect.TypeOf(obj))
	if len(fatal) == 0 {
		fatal = field.ErrorList{field.Invalid(nil, field.OmitValueType{}, strings.TrimPrefix(err.Error(), "json: "))}
	}
	return nil, fatal
}

// Locate finds every value of data that cannot be decoded into t, by
// walking the JSON tree alongside t and decoding each leaf alone, in key
// order. Malformed JSON is one error without a path.
func Locate(data []byte, t reflect.Type) field.ErrorList {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return field.ErrorList{field.Invalid(nil, field.OmitValueType{}, err.Error())}
	}
	var errs field.ErrorList
	walk(v, t, nil, &errs)
	return errs
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func walk(v any, t reflect.Type, path *field.Path, errs *field.ErrorList) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		leaf(v, t, path, errs)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			leaf(v, t, path, errs)
			return
		}
		fields := Fields(t)
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if ft, ok := fields[k]; ok {
				walk(obj[k], ft, child(path, k), errs)
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			leaf(v, t, path, errs)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			walk(obj[k], t.Elem(), keyOf(path, k), errs)
		}
	case reflect.Slice, reflect.Array:
		arr, ok := v.([]any)
		if !ok || t.Elem().Kind() == reflect.Uint8 {
			leaf(v, t, path, errs)
			return
		}
		for i, x := range arr {
			walk(x, t.Elem(), indexOf(path, i), errs)
		}
	case reflect.Interface:
	default:
		leaf(v, t, path, errs)
	}
}

// leaf decodes one value alone and records why it does not fit t.
func leaf(v any, t reflect.Type, path *field.Path, errs *field.ErrorList) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	err = kjson.UnmarshalCaseSensitivePreserveInts(data, reflect.New(t).Interface())
	if err == nil {
		return
	}
	var bad any = field.OmitValueType{}
	switch x := v.(type) {
	case string:
		bad = x
	case json.Number:
		bad = x.String()
	case bool:
		bad = x
	}
	var detail string
	if kind := jsonKind(v); kind != want(t) && want(t) != "" {
		detail = "want " + want(t) + ", got " + kind
		if kind == "boolean" && want(t) == "string" {
			detail += " (YAML reads an unquoted yes, no, on, off, y or n as a boolean: quote it)"
		}
	} else {
		detail = strings.TrimPrefix(err.Error(), "json: ")
	}
	*errs = append(*errs, field.Invalid(path, bad, detail))
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return "null"
}

// want names the JSON shape a Go type decodes from ("" when it has its own
// decoder and so may accept several shapes).
func want(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "list"
	}
	return ""
}

// Fields maps the JSON names of a struct's fields to their types,
// flattening inline and embedded structs as encoding/json does.
func Fields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (f.Anonymous && name == "") || slices.Contains(strings.Split(opts, ","), "inline") {
			if ft.Kind() == reflect.Struct {
				for k, v := range Fields(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func child(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

func keyOf(p *field.Path, key string) *field.Path {
	if p == nil {
		return field.NewPath("").Key(key)
	}
	return p.Key(key)
}

func indexOf(p *field.Path, i int) *field.Path {
	if p == nil {
		return field.NewPath("").Index(i)
	}
	return p.Index(i)
}

// FieldHint returns the field of the object that holds the last element of
// path (a dotted field path such as "spec.template.spec.requirement")
// closest to that element: the same name in another case, or one within two
// edits ("requirement" → "requirements"). "" when nothing is close or the
// path does not lead to a struct of t.
func FieldHint(t reflect.Type, path string) string {
	segs := strings.Split(path, ".")
	for _, seg := range segs[:len(segs)-1] {
		name, rest, _ := strings.Cut(seg, "[")
		t = deref(t)
		if t.Kind() != reflect.Struct {
			return ""
		}
		ft, ok := Fields(t)[name]
		if !ok {
			return ""
		}
		t = ft
		for range strings.Count(rest, "]") {
			t = deref(t)
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Map {
				return ""
			}
			t = t.Elem()
		}
	}
	t = deref(t)
	if t.Kind() != reflect.Struct {
		return ""
	}
	unknown := segs[len(segs)-1]
	best, bestScore := "", 3
	for _, name := range slices.Sorted(maps.Keys(Fields(t))) {
		score := hint.Distance(unknown, name, bestScore)
		if strings.EqualFold(unknown, name) {
			score = 0
		}
		if score < bestScore {
			best, bestScore = name, score
		}
	}
	return best
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
