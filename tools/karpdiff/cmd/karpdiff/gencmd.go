package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/nodeplan/nodeplan/tools/karpdiff/gen"
)

func genCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("karpdiff gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 1, "the first scenario's seed; scenario i has seed+i")
	count := fs.Int("count", 1, "how many scenarios")
	out := fs.String("out", "", "folder to write seed-NNNNNN/{scenario.yaml,catalog.json} into")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *out == "" || *count < 1 {
		fmt.Fprintln(stderr, "karpdiff gen: need --out DIR and --count >= 1")
		return exitInvalid
	}
	for i := range *count {
		s, err := gen.Generate(*seed + uint64(i))
		if err != nil {
			fmt.Fprintln(stderr, "error:", err)
			return exitFailure
		}
		dir := filepath.Join(*out, gen.DirName(s.Seed))
		if err := s.Write(dir); err != nil {
			fmt.Fprintln(stderr, "error:", err)
			return exitFailure
		}
		fmt.Fprintf(stdout, "%s\t%s\t%d pods\n", dir, s.Family, s.Pods)
	}
	return exitOK
}
