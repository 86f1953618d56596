// Package sim is the stepping engine behind every lesson page. A lesson supplies a
// Model (what happens at each time step, for one parameter set); sim wraps it in a
// Run that steps forward and back, seeks, plays, resets, re-parameterises and trains,
// and encodes what happened as protocol messages (docs/protocol.md). sim knows nothing
// of HTTP or websockets: package web moves its messages.
//
// Everything is deterministic: the same parameter values (including the seed) and the
// same commands produce byte-identical messages.
package sim
