package web

import (
	"errors"
	"fmt"
	"net/http"

	"unroll/check"
	"unroll/sim"
)

const (
	// maxCellBody is an outer guard on upload size only: check.DecodeCell bounds the
	// memory of a request by its limits while it reads (the numbers of the largest legal
	// request, 6.3 MB, plus a 4 KiB buffer), whatever the body. The largest legal request
	// (an lstm with d = h = 256 and T = 512: 787,968 numbers) with 17-significant-digit
	// numbers is 19.4 MiB compact, 20.1 MiB with Python's default ", " separators and
	// 25.7 MiB indented by two spaces, so 32 MiB keeps every such body legal.
	maxCellBody = 32 << 20
	// maxBLEUBody is generous for a page of sentences; a corpus is sent in pieces.
	// check.BLEU's limits bound the work and the answer (see check.MaxSentenceWords).
	maxBLEUBody = 4 << 20
	// maxTERBody is maxBLEUBody: the same sentences, bounded by the same limits
	// (check.MaxSentenceWords) and by check.MaxTERCells.
	maxTERBody = maxBLEUBody
)

// cell serves POST /api/v1/cell: decode while checking the limits, check.Cell, encode.
//
// The compute slot is taken after decoding, not before: a slow uploader must not hold
// a slot for the 30 s of the server's read timeout while the lessons wait, and decoding
// needs no slot to be bounded, since check.DecodeCell holds at most the numbers of the
// largest legal request and stops at the first limit it meets.
func (s *Server) cell(w http.ResponseWriter, r *http.Request) {
	if bodyTooLarge(w, r, maxCellBody) {
		return
	}
	req, err := check.DecodeCell(http.MaxBytesReader(w, r.Body, maxCellBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than the %d-byte limit", tooBig.Limit))
		return
	}
	if err != nil {
		s.answer(w, nil, err)
		return
	}
	release, ok := s.acquire(w, r)
	if !ok {
		return
	}
	resp, err := check.Cell(req)
	release()
	s.answer(w, resp, err)
}

// bleu serves POST /api/v1/bleu: decode, check.BLEU (limits first, then the score) in
// a compute slot, encode.
func (s *Server) bleu(w http.ResponseWriter, r *http.Request) {
	if bodyTooLarge(w, r, maxBLEUBody) {
		return
	}
	var req check.BLEURequest
	if !decodeBody(w, r, maxBLEUBody, &req) {
		return
	}
	release, ok := s.acquire(w, r)
	if !ok {
		return
	}
	resp, err := check.BLEU(&req)
	release()
	s.answer(w, resp, err)
}

// ter serves POST /api/v1/ter: decode, check.TER (limits first, then the score) in a
// compute slot, encode.
func (s *Server) ter(w http.ResponseWriter, r *http.Request) {
	if bodyTooLarge(w, r, maxTERBody) {
		return
	}
	var req check.TERRequest
	if !decodeBody(w, r, maxTERBody, &req) {
		return
	}
	release, ok := s.acquire(w, r)
	if !ok {
		return
	}
	resp, err := check.TER(&req)
	release()
	s.answer(w, resp, err)
}

// bodyTooLarge answers 413 without reading the body when its declared length is over
// limit (http.MaxBytesReader catches a body that does not declare it).
func bodyTooLarge(w http.ResponseWriter, r *http.Request, limit int64) bool {
	if r.ContentLength <= limit {
		return false
	}
	writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than the %d-byte limit", limit))
	return true
}

// answer writes resp, or a 400 naming what was wrong when err is invalid input.
func (s *Server) answer(w http.ResponseWriter, resp any, err error) {
	var bad *check.Error
	switch {
	case errors.As(err, &bad):
		writeError(w, http.StatusBadRequest, bad.Msg)
	case err != nil:
		panic(err) // a bug, not bad input: ServeHTTP logs it and answers 500
	default:
		if a, ok := resp.(appender); ok {
			writeAppended(w, a)
			return
		}
		writeJSON(w, http.StatusOK, resp)
	}
}

// appender is an answer that writes its own JSON, byte for byte what json.Marshal
// writes, into one buffer (check.CellResponse: up to 29 MB of numbers, which
// json.Marshal writes with 210 MB of intermediate buffers).
type appender interface {
	AppendJSON([]byte) ([]byte, error)
}

// writeAppended is writeJSON for an appender.
func writeAppended(w http.ResponseWriter, a appender) {
	body, err := a.AppendJSON(nil)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "the server could not encode its answer")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	_, _ = w.Write([]byte("\n"))
}

// acquire takes a CPU slot of the server's scheduler at Interactive priority (ahead
// of every page's training), so a burst of large requests queues instead of starving
// the lessons; it gives up when the client goes away. The caller calls release when
// its computation is done.
func (s *Server) acquire(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	t, err := s.sched.Acquire(r.Context(), sim.Interactive)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled while waiting for the server")
		return nil, false
	}
	return t.Release, true
}
