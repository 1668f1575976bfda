package benchdata

import "testing"

// TestAppendPyJSON pins the rendering against
// json.dumps(v, indent=1, sort_keys=True) of CPython 3.11.
func TestAppendPyJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    any
		want string
	}{
		{name: "empty object", v: object{}, want: `{}`},
		{name: "empty array", v: array{}, want: `[]`},
		{name: "negative int", v: -3, want: `-3`},
		{
			name: "ensure_ascii escapes",
			v:    "a\"\\\n\r\t\b\f\x01\x7f é € 😀 \u2028 <>&/",
			want: `"a\"\\\n\r\t\b\f\u0001\u007f \u00e9 \u20ac \ud83d\ude00 \u2028 <>&/"`,
		},
		{
			name: "sorted keys, one space per level, no trailing newline",
			v: object{
				"e": object{"y": array{1, object{"z": "q"}}},
				"d": -3, "c": array{}, "b": array{"x"}, "a": object{},
			},
			want: "{\n \"a\": {},\n \"b\": [\n  \"x\"\n ],\n \"c\": [],\n \"d\": -3,\n \"e\": {\n" +
				"  \"y\": [\n   1,\n   {\n    \"z\": \"q\"\n   }\n  ]\n }\n}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := string(appendPyJSON(nil, tt.v, 0)); got != tt.want {
				t.Errorf("appendPyJSON() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
