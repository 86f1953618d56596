//go:build !race

package web

// raceEnabled: see race_on_test.go.
const raceEnabled = false
