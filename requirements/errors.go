package requirements

import "fmt"

// IncompatibleError says why two requirement sets cannot hold together on one
// node: the key, the target's requirement (DoesNotExist when the target does
// not declare a custom key) and the incoming one. The sentence is built only
// when Error is called.
type IncompatibleError struct {
	Key      string
	Target   Requirement
	Incoming Requirement
	// Undefined is set when the target does not define Key and Key is not
	// well-known: a custom label must be declared (for example with Exists)
	// by the NodePool before a pod can require it.
	Undefined bool
	// Hint is the well-known key the user probably meant, if any.
	Hint string
}

func (e *IncompatibleError) Error() string {
	var msg string
	if e.Undefined {
		msg = fmt.Sprintf("label %q does not have known values (%s); a custom label must be declared by the NodePool", e.Key, e.Incoming)
	} else {
		msg = fmt.Sprintf("incompatible requirements, key %s, %s not in %s", e.Key, e.Incoming, e.Target)
	}
	if e.Hint != "" {
		msg += fmt.Sprintf(" (typo of %q?)", e.Hint)
	}
	return msg
}
