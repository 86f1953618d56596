package check

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"unroll/models"
)

// TestAppendJSONIsMarshal: CellResponse.AppendJSON writes the bytes json.Marshal writes,
// for every kind, with and without gradients, and for numbers of every form.
func TestAppendJSONIsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, kind := range []string{"rnn", "gru", "lstm"} {
		for _, withDH := range []bool{false, true} {
			const d, h, T = 3, 4, 5
			req := &CellRequest{Kind: kind, Params: map[string][][]float64{}}
			mat := func(r, c int, scale float64) [][]float64 {
				m := make([][]float64, r)
				for i := range m {
					m[i] = make([]float64, c)
					for j := range m[i] {
						m[i][j] = (2*rng.Float64() - 1) * math.Pow(10, scale*(2*rng.Float64()-1))
					}
				}
				return m
			}
			for _, n := range paramNames[models.Kind(kind)] {
				switch n[:3] {
				case "W_x":
					req.Params[n] = mat(d, h, 8)
				case "W_h":
					req.Params[n] = mat(h, h, 8)
				default:
					req.Params[n] = mat(1, h, 8)
				}
			}
			req.X = mat(T, d, 12)
			req.X[0][0], req.X[1][0], req.X[2][0] = math.Copysign(0, -1), 1e-7, 1e21
			if withDH {
				req.DH = mat(T, h, 30)
			}
			resp, err := Cell(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := resp.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (dh %v): AppendJSON\n%s\nwant json.Marshal\n%s", kind, withDH, got, want)
			}
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1e-6, 9.99e-7, 1e-7, 1.5e-300, 5e-324, 1e20, 1e21, -1e21, math.MaxFloat64, 0.1, 1.0 / 3, 123456789} {
		got, _ := appendFloat(nil, x)
		want, _ := json.Marshal(x)
		if !bytes.Equal(got, want) {
			t.Errorf("appendFloat(%v) = %s, want %s", x, got, want)
		}
	}
	if _, err := appendFloat(nil, math.NaN()); err == nil {
		t.Error("appendFloat(NaN) gave no error")
	}
}
