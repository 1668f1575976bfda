package manifest

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Error is one problem in the input: the file, the document (1-based; 0 when
// the problem concerns the whole file), the item of a List, the object, and
// the cause, usually a *field.Error that names the field.
//
// It reads as
//
//	pods.yaml: document 2 (Pod default/web): spec.containers[0].resources.requests.cpu: Invalid value: "1x": quantities must match ...
type Error struct {
	File     string
	Document int
	// Item is the position inside a List ("items[3]"), "" otherwise.
	Item string
	// Kind, Namespace and Name identify the object, as far as they are known.
	Kind      string
	Namespace string
	Name      string
	Err       error
}

func (e *Error) Error() string {
	return location(e.File, e.Document, e.Item, e.Kind, e.Namespace, e.Name) + singleLine(e.Err.Error())
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// location renders the "file: document N, items[i] (Kind ns/name): " prefix
// shared by errors and warnings. Names with spaces or control characters
// are quoted, so that every message stays on one line.
func location(file string, doc int, item, kind, namespace, name string) string {
	file, kind, namespace, name = quoted(file), quoted(kind), quoted(namespace), quoted(name)
	var b strings.Builder
	b.WriteString(file)
	if doc > 0 {
		fmt.Fprintf(&b, ": document %d", doc)
	}
	if item != "" {
		b.WriteString(", ")
		b.WriteString(item)
	}
	if kind != "" {
		b.WriteString(" (")
		b.WriteString(kind)
		switch {
		case name == "":
		case namespace != "":
			b.WriteString(" " + namespace + "/" + name)
		default:
			b.WriteString(" " + name)
		}
		b.WriteString(")")
	}
	b.WriteString(": ")
	return b.String()
}

// Errors is every problem Decode found, in input order. Its Error joins them
// one per line.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// quoted returns s, or s quoted when it holds a space or a character that
// is not printable.
func quoted(s string) string {
	for _, r := range s {
		if r == ' ' || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// singleLine escapes line breaks, so that a message quoting user input stays
// on one line.
func singleLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}
