//go:build !race

package lessons

// raceEnabled: see race_on_test.go.
const raceEnabled = false
