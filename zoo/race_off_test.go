//go:build !race

package zoo

// raceEnabled: see race_on_test.go.
const raceEnabled = false
