package benchdata

import (
	"maps"
	"slices"
	"strconv"
)

// object and array are the JSON values the generators build. Only object,
// array, string and int occur; appendPyJSON panics on any other type, which
// would be a bug in this package, not bad input.
type (
	object = map[string]any
	array  = []any
)

// appendPyJSON appends v as Python's json.dump(v, f, indent=1, sort_keys=True)
// writes it: keys in code point order (byte order of UTF-8), one member per
// line indented by one space per level, "," at line ends and ": " after keys,
// "{}" and "[]" for empty containers, and no trailing newline. For example
// {"b": [1], "a": {}} becomes
//
//	{
//	 "a": {},
//	 "b": [
//	  1
//	 ]
//	}
func appendPyJSON(dst []byte, v any, depth int) []byte {
	switch v := v.(type) {
	case object:
		if len(v) == 0 {
			return append(dst, "{}"...)
		}
		dst = append(dst, '{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNewline(dst, depth+1)
			dst = appendPyString(dst, k)
			dst = append(dst, ": "...)
			dst = appendPyJSON(dst, v[k], depth+1)
		}
		return append(appendNewline(dst, depth), '}')
	case array:
		if len(v) == 0 {
			return append(dst, "[]"...)
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNewline(dst, depth+1)
			dst = appendPyJSON(dst, e, depth+1)
		}
		return append(appendNewline(dst, depth), ']')
	case string:
		return appendPyString(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	default:
		panic("benchdata: unsupported JSON value type")
	}
}

func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ')
	}
	return dst
}

// appendPyString quotes s as json.dumps does with ensure_ascii=True: printable
// ASCII (' ' to '~') is kept except '"' and '\\', which get a backslash;
// \b \f \n \r \t use their short forms; every other code point is \uXXXX in
// lower-case hex, as a UTF-16 surrogate pair above U+FFFF ("😀" is
// "\ud83d\ude00"). Invalid UTF-8, which a Python str cannot hold, is read as
// U+FFFD.
func appendPyString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u4 := func(dst []byte, c rune) []byte {
		return append(dst, '\\', 'u', hex[c>>12&0xf], hex[c>>8&0xf], hex[c>>4&0xf], hex[c&0xf])
	}
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', byte(c))
		case c >= ' ' && c <= '~':
			dst = append(dst, byte(c))
		case c == '\b':
			dst = append(dst, `\b`...)
		case c == '\f':
			dst = append(dst, `\f`...)
		case c == '\n':
			dst = append(dst, `\n`...)
		case c == '\r':
			dst = append(dst, `\r`...)
		case c == '\t':
			dst = append(dst, `\t`...)
		case c > 0xffff:
			c -= 0x10000
			dst = u4(u4(dst, 0xd800|(c>>10)&0x3ff), 0xdc00|c&0x3ff)
		default:
			dst = u4(dst, c)
		}
	}
	return append(dst, '"')
}
