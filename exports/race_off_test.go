//go:build !race

package exports

// raceEnabled: see race_on_test.go.
const raceEnabled = false
