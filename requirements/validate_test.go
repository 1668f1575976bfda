package requirements_test

import (
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// fieldErr is the part of a *field.Error that tests assert: what kind of
// problem, and where. Detail is prose and left out.
type fieldErr struct {
	Type  field.ErrorType
	Field string
}

func fieldErrs(errs field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range errs {
		out = append(out, fieldErr{Type: e.Type, Field: e.Field})
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func TestValidateExpression(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		path      *field.Path
		key       string
		op        requirements.Operator
		values    []string
		minValues *int
		want      []fieldErr
	}{
		{name: "valid In", key: team, op: requirements.OpIn, values: []string{"a", "b"}, minValues: ptr(2)},
		{name: "valid NotIn", key: team, op: requirements.OpNotIn, values: []string{"a"}},
		{name: "valid Exists", key: team, op: requirements.OpExists},
		{name: "valid DoesNotExist", key: team, op: requirements.OpDoesNotExist},
		{name: "valid Gt 0", key: "cpu", op: requirements.OpGt, values: []string{"0"}},
		{name: "valid Lte", key: "cpu", op: requirements.OpLte, values: []string{"64"}, minValues: ptr(50)},
		{name: "valid Exists with minValues", key: zone, op: requirements.OpExists, minValues: ptr(3)},
		{
			name: "unknown operator", key: team, op: "Near", values: []string{"a"},
			want: []fieldErr{{Type: field.ErrorTypeNotSupported, Field: "team.operator"}},
		},
		{
			name: "unknown operator under a path", path: field.NewPath("spec", "requirements").Index(3), key: team, op: "",
			want: []fieldErr{{Type: field.ErrorTypeNotSupported, Field: "spec.requirements[3].operator"}},
		},
		{
			name: "Gt without values", key: "cpu", op: requirements.OpGt,
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "cpu.values"}},
		},
		{
			name: "Lt with two values", key: "cpu", op: requirements.OpLt, values: []string{"1", "2"},
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "cpu.values"}},
		},
		{
			name: "Gte negative", key: "cpu", op: requirements.OpGte, values: []string{"-1"},
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "cpu.values[0]"}, {Type: field.ErrorTypeInvalid, Field: "cpu.values[0]"}},
		},
		{
			name: "Lte not an integer", key: "cpu", op: requirements.OpLte, values: []string{"four"},
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "cpu.values[0]"}},
		},
		{
			name: "Gt past int64", key: "cpu", op: requirements.OpGt, values: []string{"9223372036854775808"},
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "cpu.values[0]"}},
		},
		{
			name: "In without values", key: team, op: requirements.OpIn,
			want: []fieldErr{{Type: field.ErrorTypeRequired, Field: "team.values"}},
		},
		{
			name: "NotIn without values", key: team, op: requirements.OpNotIn, values: []string{},
			want: []fieldErr{{Type: field.ErrorTypeRequired, Field: "team.values"}},
		},
		{
			name: "Exists with values", key: team, op: requirements.OpExists, values: []string{"a"},
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "team.values"}},
		},
		{
			name: "DoesNotExist with values", key: team, op: requirements.OpDoesNotExist, values: []string{"a"},
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "team.values"}},
		},
		{
			name: "invalid label value", key: team, op: requirements.OpIn, values: []string{"ok", "-bad", "also bad"},
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "team.values[1]"}, {Type: field.ErrorTypeInvalid, Field: "team.values[2]"}},
		},
		{
			name: "label value too long", key: team, op: requirements.OpNotIn, values: []string{strings.Repeat("a", 64)},
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "team.values[0]"}},
		},
		{
			name: "invalid key", path: field.NewPath("req"), key: "bad key", op: requirements.OpExists,
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "req.key"}},
		},
		{
			// IsQualifiedName reports both "must be non-empty" and the pattern.
			name: "empty key", path: field.NewPath("req"), key: "", op: requirements.OpExists,
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "req.key"}, {Type: field.ErrorTypeInvalid, Field: "req.key"}},
		},
		{
			name: "key with an invalid prefix", path: field.NewPath("req"), key: "-x.io/team", op: requirements.OpExists,
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: "req.key"}},
		},
		{
			name: "minValues 0", key: zone, op: requirements.OpExists, minValues: ptr(0),
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: zone + ".minValues"}},
		},
		{
			name: "minValues 51", key: zone, op: requirements.OpExists, minValues: ptr(51),
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: zone + ".minValues"}},
		},
		{
			name: "minValues larger than In's values", key: zone, op: requirements.OpIn, values: []string{"z1", "z2"}, minValues: ptr(3),
			want: []fieldErr{{Type: field.ErrorTypeInvalid, Field: zone + ".minValues"}},
		},
		{
			name: "every problem at once", path: field.NewPath("r"), key: "bad key", op: requirements.OpIn, values: []string{"-x"}, minValues: ptr(2),
			want: []fieldErr{
				{Type: field.ErrorTypeInvalid, Field: "r.key"},
				{Type: field.ErrorTypeInvalid, Field: "r.values[0]"},
				{Type: field.ErrorTypeInvalid, Field: "r.minValues"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errs := requirements.DefaultSchema().ValidateExpression(tt.path, tt.key, tt.op, tt.values, tt.minValues)
			if diff := gocmp.Diff(tt.want, fieldErrs(errs)); diff != "" {
				t.Errorf("ValidateExpression() mismatch (-want +got):\n%s\n%v", diff, errs)
			}
			for _, e := range errs {
				if tt.path == nil && !strings.HasPrefix(e.Field, tt.key+".") {
					t.Errorf("error %q does not name key %q in its path", e, tt.key)
				}
			}
		})
	}
}

// TestValidateExpressionNamesKeyAndOperator: the detail says which key and
// operator, so an aggregated error is readable on its own.
func TestValidateExpressionNamesKeyAndOperator(t *testing.T) {
	t.Parallel()
	errs := requirements.DefaultSchema().ValidateExpression(nil, "example.com/cpu", requirements.OpGt, []string{"x"}, nil)
	got := errs.ToAggregate().Error()
	for _, want := range []string{"example.com/cpu.values[0]", `key "example.com/cpu"`, "operator Gt"} {
		if !strings.Contains(got, want) {
			t.Errorf("error %q does not contain %q", got, want)
		}
	}
}

func TestValidateLabels(t *testing.T) {
	t.Parallel()
	labels := map[string]string{"z-ok": "v", "b key": "v", "a": "-bad", "c": ""}
	errs := requirements.DefaultSchema().ValidateLabels(field.NewPath("spec", "nodeSelector"), labels)
	want := []fieldErr{
		{Type: field.ErrorTypeInvalid, Field: "spec.nodeSelector[a]"},
		{Type: field.ErrorTypeInvalid, Field: "spec.nodeSelector[b key]"},
	}
	// The errors come in key order, whatever the map order.
	for range 10 {
		if diff := gocmp.Diff(want, fieldErrs(requirements.DefaultSchema().ValidateLabels(field.NewPath("spec", "nodeSelector"), labels))); diff != "" {
			t.Fatalf("ValidateLabels() mismatch (-want +got):\n%s\n%v", diff, errs)
		}
	}
}
