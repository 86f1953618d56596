package check

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"unroll/models"
)

// FuzzCell feeds arbitrary bodies to the /api/v1/cell logic (DecodeCell, then Cell): it
// must answer with a response or a *Error, never panic and never return another kind of
// error, and a decoded request stays within the limits.
func FuzzCell(f *testing.F) {
	f.Add(`{"kind":"rnn","params":{"W_xh":[[1]],"W_hh":[[0.5]],"b_h":[0]},"x":[[1],[2]],"dh":[[1],[1]]}`)
	f.Add(`{"kind":"gru","params":{"W_xr":[[1]],"W_hr":[[1]],"b_r":[1],"W_xz":[[1]],"W_hz":[[1]],"b_z":[1],"W_xh":[[1]],"W_hh":[[1]],"b_h":[1]},"x":[[1]]}`)
	f.Add(`{"kind":"lstm","params":{},"x":[[1]],"c0":[1]}`)
	f.Add(`{"kind":"rnn","params":{"W_xh":[[1e308]],"W_hh":[[1e308]],"b_h":[0]},"x":[[1e308],[1e308]],"dh":[[1],[1]]}`)
	f.Add(`{"KIND":"rnn","Params":{"W_xh":[[1,null]],"W_hh":[[0.5]],"b_h":[0]},"x":[[1],[2]],"x":[[1]]}`)
	f.Add(`{"kind":"rnn","params":{"W_xh":[[[1]]]},"x":[[1e400]]} {}`)
	f.Fuzz(func(t *testing.T, body string) {
		req, err := DecodeCell(strings.NewReader(body))
		var bad *Error
		if err != nil {
			if !errors.As(err, &bad) {
				t.Fatalf("DecodeCell returned %T %v, want *check.Error", err, err)
			}
			syntax := strings.HasPrefix(bad.Msg, "the body is not valid JSON") || bad.Msg == "the JSON body ends too early" ||
				bad.Msg == "the body is empty: send a JSON object"
			if syntax && json.Valid([]byte(body)) {
				t.Fatalf("DecodeCell calls valid JSON invalid: %s", bad.Msg)
			}
			return
		}
		if !json.Valid([]byte(body)) {
			t.Fatalf("DecodeCell accepted invalid JSON")
		}
		n := len(req.H0) + len(req.C0)
		for _, m := range append([][][]float64{req.X, req.DH}, slices.Collect(maps.Values(req.Params))...) {
			for _, row := range m {
				n += len(row)
			}
		}
		if len(req.X) > MaxSteps || len(req.DH) > MaxSteps || len(req.Params) > 21 || n > MaxCellNumbers {
			t.Fatalf("DecodeCell let through %d rows of x, %d of dh, %d params, %d numbers", len(req.X), len(req.DH), len(req.Params), n)
		}
		if len(req.X) > 8 || len(req.X) > 0 && len(req.X[0]) > 8 {
			return // keep each run fast; the limits are tested in package web
		}
		_, err = Cell(req)
		if err != nil && !errors.As(err, &bad) {
			t.Fatalf("Cell returned %T %v, want *check.Error", err, err)
		}
	})
}

// FuzzBLEU does the same for /api/v1/bleu.
func FuzzBLEU(f *testing.F) {
	f.Add(`{"candidate":"the cat the cat on the mat","references":["the cat is on the mat"],"max_n":2}`)
	f.Add(`{"candidates":["a b"],"references":[["a b c"]],"weights":"d2l"}`)
	f.Add(`{"candidate":"","references":[""]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var req BLEURequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		res, err := BLEU(&req)
		var bad *Error
		if err != nil && !errors.As(err, &bad) {
			t.Fatalf("BLEU returned %T %v, want *check.Error", err, err)
		}
		if err == nil && (res.BLEU < 0 || res.BLEU > 1) {
			t.Fatalf("BLEU = %v, outside [0, 1]", res.BLEU)
		}
	})
}

// FuzzTER does the same for /api/v1/ter.
func FuzzTER(f *testing.F) {
	f.Add(`{"candidate":"sat on the mat the cat","references":["the cat sat on the mat"]}`)
	f.Add(`{"candidates":["a b"],"references":[["a b c"]]}`)
	f.Add(`{"candidate":"","references":[""]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var req TERRequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		res, err := TER(&req)
		var bad *Error
		if err != nil && !errors.As(err, &bad) {
			t.Fatalf("TER returned %T %v, want *check.Error", err, err)
		}
		if s, ok := res.(*models.TERResult); ok && (s.TER < 0 || len(s.Operations) != s.Edits) {
			t.Fatalf("TER = %v with %d operations for %d edits", s.TER, len(s.Operations), s.Edits)
		}
	})
}
