package hint_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/internal/hint"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 3, 0},
		{"weight", "weight", 3, 0},
		{"weigth", "weight", 3, 2}, // a transposition is two edits
		{"requirement", "requirements", 3, 1},
		{"kitten", "sitting", 10, 3},
		{"kitten", "sitting", 3, 3}, // capped
		{"a", "abcdef", 3, 3},       // length difference alone reaches the limit
		{"zone", "", 10, 4},
	}
	for _, tt := range tests {
		if got := hint.Distance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
		if got := hint.Distance(tt.b, tt.a, tt.limit); got != tt.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d (symmetric)", tt.b, tt.a, tt.limit, got, tt.want)
		}
	}
}
