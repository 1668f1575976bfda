package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// version is nodeplan's release.
const version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // the output could not be written
	exitInvalid = 2 // invalid input or usage
)

const mainUsage = `nodeplan plans the nodes Karpenter would launch for pending pods.

Usage:
  nodeplan solve -f PATH [-f PATH ...] [flags]   plan nodes for the pods in manifests
  nodeplan consolidate -f PATH [flags]           plan which running nodes to delete or replace
  nodeplan catalog [flags]                       list the instance types a plan draws from
  nodeplan version                               print the version

Run "nodeplan COMMAND -h" for the flags of a command.
`

// run is the command line: args without the program name. It returns the
// exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage)
		return exitInvalid
	}
	switch args[0] {
	case "solve":
		return solveCommand(args[1:], stdout, stderr)
	case "catalog":
		return catalogCommand(args[1:], stdout, stderr)
	case "consolidate":
		return consolidateCommand(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		return versionCommand(stdout)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, mainUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "nodeplan: unknown command %q\n\n%s", args[0], mainUsage)
	return exitInvalid
}

func versionCommand(stdout io.Writer) int {
	var b strings.Builder
	fmt.Fprintf(&b, "nodeplan %s\n", version)
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(&b, "go: %s\n", bi.GoVersion)
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			fmt.Fprintf(&b, "module: %s %s\n", bi.Main.Path, v)
		}
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			if settings["vcs.modified"] == "true" {
				rev += " (modified)"
			}
			fmt.Fprintf(&b, "revision: %s\n", rev)
		}
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, "built from a commit of: %s\n", t)
		}
	}
	return write(stdout, b.String())
}

// write writes the whole output at once, so that a failure leaves no half
// output behind the exit status.
func write(w io.Writer, s string) int {
	if _, err := io.WriteString(w, s); err != nil {
		return exitFailure
	}
	return exitOK
}

// parseFlags parses flags that may come before, between or after
// positional arguments (`nodeplan solve dir -o json`), and returns the
// positional ones. Everything after "--" is positional.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// listFlag is a repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// errorLines renders an error as one line per problem: the errors of a
// manifest.Errors, an aggregate, a joined error or an invalid NodePool each
// get their own line, and no line holds a newline.
func errorLines(err error) []string {
	if err == nil {
		return nil
	}
	// Only the error itself is unpacked, not its chain: a wrapper (a
	// *manifest.Error) carries the location its parts would lose.
	var errs []error
	switch e := err.(type) {
	case manifest.Errors:
		for _, x := range e {
			errs = append(errs, x)
		}
	case *nodepool.InvalidError:
		for _, x := range e.Errs {
			errs = append(errs, x)
		}
	case utilerrors.Aggregate:
		errs = e.Errors()
	case interface{ Unwrap() []error }:
		errs = e.Unwrap()
	}
	if len(errs) == 0 {
		return []string{oneLine(err.Error())}
	}
	var lines []string
	for _, e := range errs {
		lines = append(lines, errorLines(e)...)
	}
	return lines
}

// readErrors renders the error of manifest.ReadFiles, one line per path,
// in the command line's words.
func readErrors(err error) []string {
	lines := errorLines(err)
	for i, l := range lines {
		lines[i] = strings.Replace(l, "read only when recursive", "read only with -R", 1)
	}
	return lines
}

// prefixed returns lines each prefixed by prefix.
func prefixed(prefix string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = prefix + l
	}
	return out
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// printLines writes each line to w with a prefix ("error: ", "warning: ").
func printLines(w io.Writer, prefix string, lines []string) {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(prefix)
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, _ = io.WriteString(w, b.String())
}
