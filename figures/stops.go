package figures

import (
	"errors"
	"image/color"
	"math"

	"gonum.org/v1/plot/palette"
)

// stopsMap is a colour map that interpolates linearly in sRGB between evenly spaced
// stops, as the pages' colors.js does: the same colour for the same value on the
// page and in the export. (moreland's maps need stops of rising luminance, which a
// diverging map is not.)
type stopsMap struct {
	stops    []color.Color
	min, max float64
	alpha    float64
}

var errOutOfRange = errors.New("figures: value outside the colour map's range")

func (m *stopsMap) At(v float64) (color.Color, error) {
	if math.IsNaN(v) || v < m.min || v > m.max {
		return nil, errOutOfRange
	}
	u := 0.0
	if m.max > m.min {
		u = (v - m.min) / (m.max - m.min)
	}
	x := u * float64(len(m.stops)-1)
	i := min(len(m.stops)-2, int(x))
	f := x - float64(i)
	a, b := color.NRGBAModel.Convert(m.stops[i]).(color.NRGBA), color.NRGBAModel.Convert(m.stops[i+1]).(color.NRGBA)
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + (float64(q)-float64(p))*f)) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: uint8(math.Round(255 * m.alpha))}, nil
}

func (m *stopsMap) Max() float64       { return m.max }
func (m *stopsMap) SetMax(v float64)   { m.max = v }
func (m *stopsMap) Min() float64       { return m.min }
func (m *stopsMap) SetMin(v float64)   { m.min = v }
func (m *stopsMap) Alpha() float64     { return m.alpha }
func (m *stopsMap) SetAlpha(a float64) { m.alpha = a }

// Palette is n colours evenly spaced from Min to Max.
func (m *stopsMap) Palette(n int) palette.Palette {
	cs := make([]color.Color, n)
	for i := range cs {
		v := m.min
		if n > 1 {
			v += (m.max - m.min) * float64(i) / float64(n-1)
		}
		cs[i], _ = m.At(v)
	}
	return colors(cs)
}

type colors []color.Color

func (c colors) Colors() []color.Color { return c }
