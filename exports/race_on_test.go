//go:build race

package exports

// raceEnabled: the race detector slows drawing ~10×, and drawing is not where this
// package's goroutines meet, so under it the tests draw PNGs at figures.MinWidth.
const raceEnabled = true
