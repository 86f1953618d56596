//go:build race

package zoo

// raceEnabled: the race detector slows training ~10×, so the tests that train a
// model for many steps run in .ci/run's separate step without -race.
const raceEnabled = true
