package strictjson_test

import (
	"reflect"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/strictjson"
)

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestUnmarshal(t *testing.T) {
	t.Parallel()
	var p corev1.Pod
	strict, fatal := strictjson.Unmarshal([]byte(`{"metadata":{"name":"a","nmae":"b"},"spec":{"containers":[{"name":"c"}]}}`), &p)
	if len(fatal) > 0 || len(strict) != 1 || p.Name != "a" {
		t.Fatalf("Unmarshal = %v, %v, %q; want one strict error, the pod decoded", strict, fatal, p.Name)
	}
	_, fatal = strictjson.Unmarshal([]byte(`{"spec":{"priority":"high","containers":[{"name":"c","resources":{"requests":{"cpu":"1x","memory":"2Gi"}}}]}}`), &p)
	want := []string{
		`spec.containers[0].resources.requests[cpu]: Invalid value: "1x": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
		`spec.priority: Invalid value: "high": want integer, got string`,
	}
	if diff := gocmp.Diff(want, errorStrings(fatal)); diff != "" {
		t.Errorf("every bad value, with its path (-want +got):\n%s", diff)
	}
}

func TestLocateYAMLBooleanHint(t *testing.T) {
	t.Parallel()
	got := errorStrings(strictjson.Locate([]byte(`{"metadata":{"labels":{"on":true}}}`), reflect.TypeFor[corev1.Pod]()))
	want := []string{"metadata.labels[on]: Invalid value: true: want string, got boolean (YAML reads an unquoted yes, no, on, off, y or n as a boolean: quote it)"}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

type inner struct {
	Weight int32 `json:"weight"`
}

type outer struct {
	inner    `json:",inline"`
	Template struct {
		Requirements []string `json:"requirements"`
	} `json:"template"`
	Hidden string `json:"-"`
}

func TestFieldsAndHint(t *testing.T) {
	t.Parallel()
	fields := strictjson.Fields(reflect.TypeFor[outer]())
	var names []string
	for n := range fields {
		names = append(names, n)
	}
	if len(names) != 2 || fields["weight"] == nil || fields["template"] == nil {
		t.Errorf("Fields = %v; want weight (inline) and template", names)
	}
	tests := []struct{ path, want string }{
		{"weigth", "weight"},
		{"Weight", "weight"},
		{"template.requirement", "requirements"},
		{"template.zzz", ""},
		{"nothing.here", ""},
	}
	for _, tt := range tests {
		if got := strictjson.FieldHint(reflect.TypeFor[outer](), tt.path); got != tt.want {
			t.Errorf("FieldHint(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
