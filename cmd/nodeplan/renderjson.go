package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/nodeplan/nodeplan/scheduler"
)

// The plan of 100,000 pods is 160 MB of JSON, and encoding/json indents it
// in one pass after marshalling it whole. writePlan writes the same bytes
// with the long lists (NodeClaims, pods on existing nodes, pod errors,
// relaxations) encoded in chunks on every core and written in order: the
// document is first encoded with those lists empty, and each "key": [] at
// the top level is replaced by the list, each element encoded as
// encoding/json indents an element at that depth.

// listChunk is how many elements one goroutine encodes at a time.
const listChunk = 256

// writePlan writes the normalised plan as encoding/json's encoder would with
// two spaces of indent and no HTML escaping (without the final newline),
// encoding on up to workers goroutines at a time.
func writePlan(w io.Writer, res scheduler.Result, workers int) error {
	lists := []struct {
		key    string
		encode func(w io.Writer) error
	}{
		{"nodeClaims", func(w io.Writer) error { return writeList(w, res.NodeClaims, workers) }},
		{"existingNodes", func(w io.Writer) error { return writeList(w, res.ExistingNodes, workers) }},
		{"podErrors", func(w io.Writer) error { return writeList(w, res.PodErrors, workers) }},
		{"relaxations", func(w io.Writer) error { return writeList(w, res.Relaxations, workers) }},
	}
	skeleton := res
	skeleton.NodeClaims, skeleton.ExistingNodes = []scheduler.NodeClaim{}, []scheduler.NodePlacement{}
	skeleton.PodErrors, skeleton.Relaxations = []scheduler.PodError{}, []scheduler.Relaxation{}
	var doc bytes.Buffer
	if err := encodeIndented(&doc, skeleton, ""); err != nil {
		return err
	}
	rest := doc.Bytes()
	for _, l := range lists {
		mark := []byte("\n  \"" + l.key + "\": []")
		i := bytes.Index(rest, mark)
		if i < 0 {
			return fmt.Errorf("rendering the plan: no top-level %q", l.key)
		}
		cut := i + len(mark) - 1 // just before ']'
		if _, err := w.Write(rest[:cut-1]); err != nil {
			return err
		}
		if err := l.encode(w); err != nil {
			return err
		}
		rest = rest[cut+1:]
	}
	_, err := w.Write(rest)
	return err
}

// encodeIndented writes v as encoding/json's encoder does with indent "  "
// and the prefix of the depth v sits at, without the final newline: encoded
// compact, then indented by indentJSON (encoding/json's own indentation
// reads the document again through its full scanner, half the time of a
// 100,000-pod plan's rendering).
func encodeIndented(buf *bytes.Buffer, v any, prefix string) error {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("rendering the plan: %w", err)
	}
	buf.Write(indentJSON(buf.AvailableBuffer(), compact.Bytes()[:compact.Len()-1], prefix))
	return nil
}

// indentJSON appends src, compact JSON as encoding/json writes it (no space
// outside strings), indented as json.Indent(dst, src, prefix, "  ") would:
// a newline, the prefix and two spaces a level before each element and each
// closing bracket, ": " after a key, and empty objects and arrays as {} and
// [].
func indentJSON(dst, src []byte, prefix string) []byte {
	depth, open := 0, false // open: just after { or [ (the element's newline is due)
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, "  "...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			newline()
		}
		switch c {
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			dst = append(dst, c)
			open = true
			depth++
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		case '}', ']':
			depth--
			if !open {
				newline()
			}
			open = false
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// stringEnd returns the index just after the JSON string that starts at
// src[i] (a quote).
func stringEnd(src []byte, i int) int {
	j := i + 1
	for {
		j += bytes.IndexByte(src[j:], '"')
		backslashes := 0
		for k := j - 1; src[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1
		}
		j++
	}
}

// writeList writes elems as a JSON array at depth 1 of the document
// ("[]" when empty), encoding chunks of it on up to workers goroutines at
// a time and writing them in order.
func writeList[T any](w io.Writer, elems []T, workers int) error {
	if len(elems) == 0 {
		_, err := io.WriteString(w, "[]")
		return err
	}
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	chunks := (len(elems) + listChunk - 1) / listChunk
	window := 2 * max(1, workers)
	bufs := make([]bytes.Buffer, window)
	errs := make([]error, window)
	for first := 0; first < chunks; first += window {
		n := min(window, chunks-first)
		var wg sync.WaitGroup
		for k := range n {
			wg.Go(func() {
				bufs[k].Reset()
				errs[k] = encodeChunk(&bufs[k], elems, first+k)
			})
		}
		wg.Wait()
		for k := range n {
			if errs[k] != nil {
				return errs[k]
			}
			if _, err := w.Write(bufs[k].Bytes()); err != nil {
				return err
			}
		}
	}
	_, err := io.WriteString(w, "\n  ]")
	return err
}

// encodeChunk writes chunk c of elems, each element on a new line at depth
// 2 and separated by commas.
func encodeChunk[T any](buf *bytes.Buffer, elems []T, c int) error {
	for i := c * listChunk; i < min(len(elems), (c+1)*listChunk); i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		if err := encodeIndented(buf, elems[i], "    "); err != nil {
			return err
		}
	}
	return nil
}
