package aws

import (
	"embed"
	"fmt"
)

// Paths of the embedded files.
const (
	catalogFile = "data/us-east-1.json"
	pricesFile  = "data/prices-on-demand.csv"
)

// data is the package's only variable, because go:embed needs one. An
// embed.FS is read-only, and ReadFile returns a fresh copy each call.
//
//go:embed data/us-east-1.json data/prices-on-demand.csv
var data embed.FS

// readData returns a fresh copy of an embedded file.
func readData(name string) ([]byte, error) {
	b, err := data.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("built-in AWS catalog: %w", err)
	}
	return b, nil
}
