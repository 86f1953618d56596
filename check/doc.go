// Package check answers the "check your numbers" API: it validates a student's request
// (shapes, limits, names), runs the lecture's equations in package models, and returns
// every intermediate and gradient as JSON-ready values. It knows nothing of HTTP, so
// every rule API.md states is unit-tested here without a server; package web only
// limits the body's bytes, takes a compute slot and writes the answer. The /cell body
// is decoded here (DecodeCell), since its limits are checked while it is read.
package check
