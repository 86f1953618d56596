// Package check answers the "check your numbers" API: it validates a student's request
// (shapes, limits, names), runs the lecture's equations in package models, and returns
// every intermediate and gradient as JSON-ready values. It knows nothing of HTTP: the
// limits of docs/api.md, the /cell decoder and the BLEU bounds are tested here without
// a server (decode_test.go, bleu_test.go, doc_test.go, fuzz_test.go), while the
// answers' values, keys and status codes are tested through the real routes in
// package web (web/api_test.go). Package web only limits the body's bytes, takes a
// compute slot and writes the answer. The /cell body is decoded here (DecodeCell),
// since its limits are checked while it is read.
package check
