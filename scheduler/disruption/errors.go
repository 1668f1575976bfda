package disruption

import "strings"

// InputError is invalid input to Plan: the object and the field at fault.
// Plan returns every input error it finds, joined (errors.Join).
type InputError struct {
	Kind      string
	Namespace string
	Name      string
	// Field is a field path ("spec.disruption.budgets[0].schedule"); empty
	// when the object as a whole is at fault.
	Field   string
	Message string
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind)
	if e.Name != "" {
		b.WriteString(" ")
		if e.Namespace != "" {
			b.WriteString(e.Namespace + "/")
		}
		b.WriteString(e.Name)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Message)
	return b.String()
}
