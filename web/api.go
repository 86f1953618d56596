package web

import (
	"errors"
	"net/http"

	"unroll/check"
)

const (
	// maxCellBody fits the largest legal request (an lstm with d = h = 256 and T = 512
	// is ~800k numbers, under 20 MB of JSON) and nothing much bigger.
	maxCellBody = 32 << 20
	// maxBLEUBody is generous for a page of sentences; a corpus is sent in pieces.
	maxBLEUBody = 4 << 20
)

// cell serves POST /api/v1/cell: decode, check.Cell, encode.
func (s *Server) cell(w http.ResponseWriter, r *http.Request) {
	var req check.CellRequest
	if !decodeBody(w, r, maxCellBody, &req) {
		return
	}
	if !s.acquire(w, r) {
		return
	}
	resp, err := check.Cell(&req)
	s.release()
	s.answer(w, resp, err)
}

// bleu serves POST /api/v1/bleu: decode, check.BLEU, encode.
func (s *Server) bleu(w http.ResponseWriter, r *http.Request) {
	var req check.BLEURequest
	if !decodeBody(w, r, maxBLEUBody, &req) {
		return
	}
	resp, err := check.BLEU(&req)
	s.answer(w, resp, err)
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
		writeJSON(w, http.StatusOK, resp)
	}
}

// acquire takes one of the compute slots, so a burst of large requests queues instead
// of starving the lessons; it gives up when the client goes away.
func (s *Server) acquire(w http.ResponseWriter, r *http.Request) bool {
	select {
	case s.compute <- struct{}{}:
		return true
	case <-r.Context().Done():
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled while waiting for the server")
		return false
	}
}

func (s *Server) release() { <-s.compute }
