package instancetypes

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of JSON values, so hostile input cannot
// exhaust the stack. The catalog format nests four levels deep.
const maxDepth = 64

// SyntaxError is malformed JSON: the document cannot be read past Offset, so
// no further errors are reported.
type SyntaxError struct {
	// Offset is the byte offset of the error; Line and Column (1-based,
	// columns in bytes) locate it for people.
	Offset, Line, Column int
	Msg                  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("catalog JSON: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// scanner reads JSON values from a byte slice, one token at a time, without
// reflection. It checks the grammar of RFC 8259 (strings must be valid
// UTF-8) and never panics.
type scanner struct {
	data  []byte
	pos   int
	depth int
}

func (s *scanner) errorf(format string, args ...any) error {
	pos := min(s.pos, len(s.data))
	line := 1 + bytes.Count(s.data[:pos], []byte{'\n'})
	col := pos + 1
	if nl := bytes.LastIndexByte(s.data[:pos], '\n'); nl >= 0 {
		col = pos - nl
	}
	return &SyntaxError{Offset: pos, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// peek skips whitespace and returns the next byte (0 at the end).
func (s *scanner) peek() byte {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

func (s *scanner) unexpected(want string) error {
	if s.pos >= len(s.data) {
		return s.errorf("unexpected end of input, expected %s", want)
	}
	return s.errorf("unexpected %q, expected %s", rune(s.data[s.pos]), want)
}

func (s *scanner) consume(c byte) error {
	if s.peek() != c {
		return s.unexpected(strconv.QuoteRune(rune(c)))
	}
	s.pos++
	return nil
}

// null consumes a null literal if one comes next.
func (s *scanner) null() (bool, error) {
	if s.peek() != 'n' {
		return false, nil
	}
	return true, s.literal("null")
}

func (s *scanner) literal(word string) error {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(word)) {
		return s.unexpected("a JSON value")
	}
	s.pos += len(word)
	return nil
}

// object reads an object and calls member for each key; member must consume
// the value. The key slice is only valid during the call.
func (s *scanner) object(member func(key []byte) error) error {
	if err := s.consume('{'); err != nil {
		return err
	}
	if s.depth++; s.depth > maxDepth {
		return s.errorf("nesting deeper than %d", maxDepth)
	}
	defer func() { s.depth-- }()
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		if s.peek() != '"' {
			return s.unexpected("a string key")
		}
		key, err := s.stringBytes()
		if err != nil {
			return err
		}
		if err := s.consume(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.unexpected("',' or '}'")
		}
	}
}

// array reads an array and calls elem for each index; elem must consume the
// value.
func (s *scanner) array(elem func(i int) error) error {
	if err := s.consume('['); err != nil {
		return err
	}
	if s.depth++; s.depth > maxDepth {
		return s.errorf("nesting deeper than %d", maxDepth)
	}
	defer func() { s.depth-- }()
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.unexpected("',' or ']'")
		}
	}
}

// stringBytes reads a string and returns its decoded bytes. Without escapes
// the result aliases the input; with escapes it is a fresh slice.
func (s *scanner) stringBytes() ([]byte, error) {
	if err := s.consume('"'); err != nil {
		return nil, err
	}
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			out := s.data[start:s.pos]
			s.pos++
			return out, nil
		case c == '\\':
			return s.escapedString(start)
		case c < 0x20:
			return nil, s.errorf("control character %q in string", rune(c))
		case c < utf8.RuneSelf:
			s.pos++
		default:
			r, size := utf8.DecodeRune(s.data[s.pos:])
			if r == utf8.RuneError && size == 1 {
				return nil, s.errorf("invalid UTF-8 in string")
			}
			s.pos += size
		}
	}
	return nil, s.errorf("unexpected end of input in string")
}

// escapedString finishes a string that contains escapes; s.pos is at the
// first backslash and start at the first byte of the string.
func (s *scanner) escapedString(start int) ([]byte, error) {
	out := append([]byte(nil), s.data[start:s.pos]...)
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return out, nil
		case c == '\\':
			if s.pos+1 >= len(s.data) {
				return nil, s.errorf("unexpected end of input in string")
			}
			e := s.data[s.pos+1]
			s.pos += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, err := s.unicodeEscape()
				if err != nil {
					return nil, err
				}
				out = utf8.AppendRune(out, r)
			default:
				s.pos -= 2
				return nil, s.errorf("invalid escape %q in string", "\\"+string(rune(e)))
			}
		case c < 0x20:
			return nil, s.errorf("control character %q in string", rune(c))
		case c < utf8.RuneSelf:
			out = append(out, c)
			s.pos++
		default:
			r, size := utf8.DecodeRune(s.data[s.pos:])
			if r == utf8.RuneError && size == 1 {
				return nil, s.errorf("invalid UTF-8 in string")
			}
			out = append(out, s.data[s.pos:s.pos+size]...)
			s.pos += size
		}
	}
	return nil, s.errorf("unexpected end of input in string")
}

// unicodeEscape reads the XXXX of \uXXXX (s.pos just past the u), joining a
// surrogate pair; a lone surrogate becomes U+FFFD, as in encoding/json.
func (s *scanner) unicodeEscape() (rune, error) {
	r, ok := s.hex4()
	if !ok {
		return 0, s.errorf("invalid \\u escape in string")
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	if bytes.HasPrefix(s.data[s.pos:], []byte(`\u`)) {
		save := s.pos
		s.pos += 2
		if r2, ok := s.hex4(); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, nil
			}
		}
		s.pos = save
	}
	return utf8.RuneError, nil
}

func (s *scanner) hex4() (rune, bool) {
	if s.pos+4 > len(s.data) {
		return 0, false
	}
	var r rune
	for _, c := range s.data[s.pos : s.pos+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	s.pos += 4
	return r, true
}

// number reads a number and returns its text, checked against the JSON
// grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() ([]byte, error) {
	s.peek()
	start := s.pos
	if s.pos < len(s.data) && s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return nil, s.unexpected("a digit")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return nil, s.unexpected("a digit")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return nil, s.unexpected("a digit")
		}
	}
	return s.data[start:s.pos], nil
}

func (s *scanner) digits() int {
	n := 0
	for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

// skip reads any value and returns its text.
func (s *scanner) skip() ([]byte, error) {
	c := s.peek()
	start := s.pos
	var err error
	switch {
	case c == '{':
		err = s.object(func([]byte) error { _, err := s.skip(); return err })
	case c == '[':
		err = s.array(func(int) error { _, err := s.skip(); return err })
	case c == '"':
		_, err = s.stringBytes()
	case c == 't':
		err = s.literal("true")
	case c == 'f':
		err = s.literal("false")
	case c == 'n':
		err = s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		_, err = s.number()
	default:
		err = s.unexpected("a JSON value")
	}
	if err != nil {
		return nil, err
	}
	return s.data[start:s.pos], nil
}

// end checks that only whitespace follows the document.
func (s *scanner) end() error {
	if s.peek() != 0 || s.pos < len(s.data) {
		return s.errorf("unexpected %q after the end of the document", rune(s.data[s.pos]))
	}
	return nil
}
