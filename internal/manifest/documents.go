package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"sigs.k8s.io/yaml"
)

// document is one document of a file, not yet decoded.
type document struct {
	// index is 1-based among the file's non-empty documents.
	index int
	// line is the 1-based line of the file where the document starts, so
	// that YAML errors can name lines of the file, not of the document.
	line int
	data []byte
	// isJSON is set when data is a JSON value (no YAML conversion needed).
	isJSON bool

	// json, warning and err are the result of convert.
	json    []byte
	warning string
	err     error
}

// splitFile is a file cut into documents.
type splitFile struct {
	name string
	docs []document
	// err is a syntax error that ended a JSON file early.
	err error
}

// splitDocuments cuts a file into documents: a JSON stream when the name
// ends in ".json" (or ".json.gz"), YAML otherwise.
func splitDocuments(f File) splitFile {
	if path.Ext(strings.TrimSuffix(strings.ToLower(f.Name), ".gz")) == ".json" {
		docs, err := splitJSON(f.Data)
		return splitFile{name: f.Name, docs: docs, err: err}
	}
	return splitFile{name: f.Name, docs: splitYAML(f.Data)}
}

// convertAll converts every document to JSON on all CPUs (parsing YAML is
// most of the cost of decoding). Each document is written by one worker
// only, and the results are read in input order afterwards.
func convertAll(docs []*document) {
	workers := min(runtime.GOMAXPROCS(0), len(docs))
	if workers <= 1 {
		for _, doc := range docs {
			doc.convert()
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(docs); i = int(next.Add(1)) - 1 {
				docs[i].convert()
			}
		})
	}
	wg.Wait()
}

func (doc *document) convert() { doc.json, doc.warning, doc.err = toJSON(*doc) }

// splitYAML splits a YAML stream on "---" lines (and "..." document ends).
// Documents holding only blank lines and comments are dropped and not
// counted, as kubectl drops them.
func splitYAML(data []byte) []document {
	var docs []document
	start, startLine, line := 0, 1, 1
	flush := func(end int) {
		if chunk := data[start:end]; !isBlankYAML(chunk) {
			docs = append(docs, document{index: len(docs) + 1, line: startLine, data: chunk})
		}
	}
	for pos := 0; pos < len(data); line++ {
		next := bytes.IndexByte(data[pos:], '\n')
		end := len(data)
		if next >= 0 {
			end = pos + next + 1
		}
		if isSeparator(data[pos:end]) {
			flush(pos)
			start, startLine = end, line+1
		}
		pos = end
	}
	flush(len(data))
	return docs
}

// isSeparator reports whether a line starts a new document ("---", possibly
// followed by a comment) or ends one ("...").
func isSeparator(line []byte) bool {
	l := strings.TrimRight(string(line), " \t\r\n")
	if l == "---" || l == "..." {
		return true
	}
	return strings.HasPrefix(l, "--- #") || strings.HasPrefix(l, "---\t#")
}

// isBlankYAML reports whether a chunk holds only blank lines, comments and
// directives.
func isBlankYAML(chunk []byte) bool {
	for l := range strings.Lines(string(chunk)) {
		t := strings.TrimSpace(l)
		if t != "" && t[0] != '#' && t[0] != '%' {
			return false
		}
	}
	return true
}

// splitJSON splits a stream of JSON values (one object, or several one
// after another). A syntax error ends the file and is returned with its line.
func splitJSON(data []byte) ([]document, error) {
	var docs []document
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return docs, fmt.Errorf("line %d: %s", lineAt(data, se.Offset), se.Error())
			}
			return docs, err
		}
		start := dec.InputOffset() - int64(len(raw))
		docs = append(docs, document{index: len(docs) + 1, line: lineAt(data, start), data: raw, isJSON: true})
	}
}

// lineAt returns the 1-based line of a byte offset.
func lineAt(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	return bytes.Count(data[:offset], []byte{'\n'}) + 1
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// toJSON converts a YAML document to JSON. Duplicate keys are accepted with
// a warning (the last one wins, as kubectl does); a syntax error names the
// line in the file.
func toJSON(doc document) (data []byte, warning string, err error) {
	if doc.isJSON {
		return doc.data, "", nil
	}
	data, strictErr := yaml.YAMLToJSONStrict(doc.data)
	if strictErr == nil {
		return data, "", nil
	}
	data, err = yaml.YAMLToJSON(doc.data)
	if err != nil {
		return nil, "", errors.New(yamlMessage(err, doc.line))
	}
	return data, yamlMessage(strictErr, doc.line), nil
}

// yamlMessage turns a YAML error into one line whose line numbers count
// from the top of the file.
func yamlMessage(err error, firstLine int) string {
	var lines []string
	for l := range strings.Lines(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	msg := ""
	if len(lines) > 0 {
		msg = lines[0]
		if len(lines) > 1 {
			msg += " " + strings.Join(lines[1:], "; ")
		}
	}
	return yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+firstLine-1)
	})
}
