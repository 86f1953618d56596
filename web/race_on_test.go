//go:build race

package web

// raceEnabled: the race detector slows the server's Go 5–10×, so the tests that time
// a page against the clock (TestBrowserNetworkBudget) allow it more time.
const raceEnabled = true
