package data

import "math/rand/v2"

// The market series of the deep-RNN lesson: a slow regime and a fast day-to-day
// component (lecture 4.5's bull and bear markets).
const (
	regimeSwitch = 0.04 // P(the regime flips on a given day): regimes last about 25 days
	RegimeDrift  = 0.5  // μ: the mean daily move is +μ in a bull market, −μ in a bear market
	FastAR       = -0.7 // φ: day-to-day moves partly undo the previous day's (mean reversion)
	fastNoise    = 0.5  // σ of the daily shock ε_t
)

// MarketSeries is one generated series of T+1 days: x_t = μ r_t + f_t with the slow
// regime r_t ∈ {−1 (bear), +1 (bull)}, a Markov chain that rarely flips, and the fast
// component f_t = φ f_{t−1} + σ ε_t, ε_t ~ N(0, 1).
type MarketSeries struct {
	X      []float64 // x_1..x_{T+1}: the model reads x_1..x_T and predicts x_{t+1}
	Regime []float64 // r_t, ±1
	Fast   []float64 // f_t
}

// NewMarketSeries draws a series of T+1 days from rng.
func NewMarketSeries(rng *rand.Rand, T int) MarketSeries {
	n := T + 1
	s := MarketSeries{X: make([]float64, n), Regime: make([]float64, n), Fast: make([]float64, n)}
	r, f := 1.0, 0.0
	if rng.IntN(2) == 0 {
		r = -1
	}
	for t := range n {
		if t > 0 && rng.Float64() < regimeSwitch {
			r = -r
		}
		f = FastAR*f + fastNoise*rng.NormFloat64()
		s.Regime[t], s.Fast[t], s.X[t] = r, f, RegimeDrift*r+f
	}
	return s
}

// Bull reports whether day t (0-based) is in a bull market.
func (s MarketSeries) Bull(t int) bool { return s.Regime[t] > 0 }
