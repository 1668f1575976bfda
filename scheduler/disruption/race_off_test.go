//go:build !race

package disruption_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
