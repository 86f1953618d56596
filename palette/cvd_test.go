package palette

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// This file simulates colour-vision deficiencies on the palette and measures colour
// differences, to check that the palette's colours stay apart for every reader.

// lab is a colour in CIELAB (D65 white): lightness L* and the opponent axes a*, b*.
type lab struct{ L, A, B float64 }

// linear is an sRGB channel (0–255) in linear light (IEC 61966-2-1):
// c/12.92 below 0.04045, ((c + 0.055)/1.055)^2.4 above, with c = v/255.
func linear(v uint8) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// linearRGB is c in linear light, each channel in [0, 1].
func linearRGB(c RGB) [3]float64 { return [3]float64{linear(c.R), linear(c.G), linear(c.B)} }

// d65 is the reference white of sRGB in XYZ (Y = 1).
var d65 = [3]float64{0.95047, 1, 1.08883}

// labOfLinear converts linear sRGB to CIELAB: XYZ = M·rgb with sRGB's D65 matrix, then
// L* = 116 f(Y/Yn) − 16, a* = 500 (f(X/Xn) − f(Y/Yn)), b* = 200 (f(Y/Yn) − f(Z/Zn)),
// f(t) = t^(1/3) above (6/29)³, else t/(3 (6/29)²) + 4/29.
func labOfLinear(rgb [3]float64) lab {
	r, g, b := rgb[0], rgb[1], rgb[2]
	xyz := [3]float64{
		0.4124564*r + 0.3575761*g + 0.1804375*b,
		0.2126729*r + 0.7151522*g + 0.0721750*b,
		0.0193339*r + 0.1191920*g + 0.9503041*b,
	}
	const d = 6.0 / 29
	f := func(t float64) float64 {
		if t > d*d*d {
			return math.Cbrt(t)
		}
		return t/(3*d*d) + 4.0/29
	}
	fx, fy, fz := f(xyz[0]/d65[0]), f(xyz[1]/d65[1]), f(xyz[2]/d65[2])
	return lab{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

func labOf(c RGB) lab { return labOfLinear(linearRGB(c)) }

// Machado, Oliveira and Fernandes (2009), "A physiologically-based model for simulation
// of color vision deficiency", IEEE TVCG 15(6): the matrices for severity 1.0
// (dichromacy), applied to linear RGB.
var (
	protanopia = [3][3]float64{
		{0.152286, 1.052583, -0.204868},
		{0.114503, 0.786281, 0.099216},
		{-0.003882, -0.048116, 1.051998},
	}
	deuteranopia = [3][3]float64{
		{0.367322, 0.860646, -0.227968},
		{0.280085, 0.672501, 0.047413},
		{-0.011820, 0.042940, 0.968881},
	}
	tritanopia = [3][3]float64{
		{1.255528, -0.076749, -0.178779},
		{-0.078411, 0.930809, 0.147602},
		{0.004733, 0.691367, 0.303900},
	}
)

// vision is one way of seeing: nil is normal colour vision.
type vision struct {
	name string
	m    *[3][3]float64
}

var visions = []vision{{"normal", nil}, {"protanopia", &protanopia}, {"deuteranopia", &deuteranopia}, {"tritanopia", &tritanopia}}

// seen is c as the vision sees it, in CIELAB: M·rgb in linear light, clipped to the
// gamut [0, 1].
func (v vision) seen(c RGB) lab {
	rgb := linearRGB(c)
	if v.m == nil {
		return labOfLinear(rgb)
	}
	var out [3]float64
	for i, row := range v.m {
		out[i] = min(1, max(0, row[0]*rgb[0]+row[1]*rgb[1]+row[2]*rgb[2]))
	}
	return labOfLinear(out)
}

// deltaE2000 is the CIEDE2000 colour difference (CIE 142-2001, with kL = kC = kH = 1),
// as Sharma, Wu and Dalal (2005) state it.
func deltaE2000(p, q lab) float64 {
	rad := math.Pi / 180
	c1, c2 := math.Hypot(p.A, p.B), math.Hypot(q.A, q.B)
	cm := (c1 + c2) / 2
	g := 0.5 * (1 - math.Sqrt(math.Pow(cm, 7)/(math.Pow(cm, 7)+math.Pow(25, 7))))
	a1, a2 := (1+g)*p.A, (1+g)*q.A
	c1p, c2p := math.Hypot(a1, p.B), math.Hypot(a2, q.B)
	hue := func(b, a float64) float64 {
		if a == 0 && b == 0 {
			return 0
		}
		h := math.Atan2(b, a) / rad
		if h < 0 {
			h += 360
		}
		return h
	}
	h1, h2 := hue(p.B, a1), hue(q.B, a2)
	dL, dC := q.L-p.L, c2p-c1p
	var dh float64
	switch {
	case c1p*c2p == 0:
		dh = 0
	case math.Abs(h2-h1) <= 180:
		dh = h2 - h1
	case h2-h1 > 180:
		dh = h2 - h1 - 360
	default:
		dh = h2 - h1 + 360
	}
	dH := 2 * math.Sqrt(c1p*c2p) * math.Sin(dh/2*rad)
	lm, cmp := (p.L+q.L)/2, (c1p+c2p)/2
	var hm float64
	switch {
	case c1p*c2p == 0:
		hm = h1 + h2
	case math.Abs(h1-h2) <= 180:
		hm = (h1 + h2) / 2
	case h1+h2 < 360:
		hm = (h1 + h2 + 360) / 2
	default:
		hm = (h1 + h2 - 360) / 2
	}
	t := 1 - 0.17*math.Cos((hm-30)*rad) + 0.24*math.Cos(2*hm*rad) + 0.32*math.Cos((3*hm+6)*rad) - 0.20*math.Cos((4*hm-63)*rad)
	dTheta := 30 * math.Exp(-math.Pow((hm-275)/25, 2))
	rc := 2 * math.Sqrt(math.Pow(cmp, 7)/(math.Pow(cmp, 7)+math.Pow(25, 7)))
	sl := 1 + 0.015*(lm-50)*(lm-50)/math.Sqrt(20+(lm-50)*(lm-50))
	sc := 1 + 0.045*cmp
	sh := 1 + 0.015*cmp*t
	rt := -math.Sin(2*dTheta*rad) * rc
	return math.Sqrt(math.Pow(dL/sl, 2) + math.Pow(dC/sc, 2) + math.Pow(dH/sh, 2) + rt*(dC/sc)*(dH/sh))
}

// minCategoricalDeltaE is the smallest CIEDE2000 difference of two curves a panel can
// draw side by side. Two lines 2 px wide, seen from the back of a lecture hall on a
// projector that washes colours out, need far more than a just-noticeable difference
// (ΔE00 ≈ 1 for large patches, about 2–3 for thin lines next to each other); ΔE00 = 10
// is a difference named at a glance ("a different colour", not "a different shade"),
// the usual floor for categorical palettes of data graphics. Every pair must keep it
// in all four visions. (Lines also differ by dash and marker: colour is one cue of
// three.)
const minCategoricalDeltaE = 10

// pairs checks every pair of colours under every vision and returns what fails.
func pairs(colours []RGB, floor float64) []string {
	var bad []string
	for _, v := range visions {
		for i := range colours {
			for j := i + 1; j < len(colours); j++ {
				if d := deltaE2000(v.seen(colours[i]), v.seen(colours[j])); d < floor {
					bad = append(bad, fmt.Sprintf("%s vs %s under %s: ΔE00 = %.1f < %g", colours[i].Hex(), colours[j].Hex(), v.name, d, floor))
				}
			}
		}
	}
	return bad
}

// TestLabOfPublished checks the conversion against published sRGB → CIELAB (D65)
// values (Lindbloom's calculator, and every colour table that copies it).
func TestLabOfPublished(t *testing.T) {
	for _, c := range []struct {
		rgb  RGB
		want lab
	}{
		{RGB{255, 0, 0}, lab{53.2408, 80.0925, 67.2032}},
		{RGB{0, 255, 0}, lab{87.7347, -86.1827, 83.1793}},
		{RGB{0, 0, 255}, lab{32.2970, 79.1875, -107.8602}},
		{RGB{255, 255, 255}, lab{100, 0, 0}},
	} {
		got := labOf(c.rgb)
		if math.Abs(got.L-c.want.L) > 0.01 || math.Abs(got.A-c.want.A) > 0.01 || math.Abs(got.B-c.want.B) > 0.01 {
			t.Errorf("labOf(%s) = %.4f, want %.4f", c.rgb.Hex(), got, c.want)
		}
	}
}

// TestDeltaE2000Sharma checks CIEDE2000 against pairs of Sharma, Wu and Dalal (2005),
// Table 1, to their four decimals.
func TestDeltaE2000Sharma(t *testing.T) {
	for _, c := range []struct {
		p, q lab
		want float64
	}{
		{lab{50, 2.6772, -79.7751}, lab{50, 0, -82.7485}, 2.0425},
		{lab{50, 0, 0}, lab{50, -1, 2}, 2.3669},
		{lab{50, 2.5, 0}, lab{50, 0, -2.5}, 4.3065},
		{lab{50, 2.5, 0}, lab{73, 25, -18}, 27.1492},
		{lab{50, 2.5, 0}, lab{61, -5, 29}, 22.8977},
		{lab{50, 2.5, 0}, lab{56, -27, -3}, 31.9030},
		{lab{50, 2.5, 0}, lab{58, 24, 15}, 19.4535},
		{lab{60.2574, -34.0099, 36.2677}, lab{60.4626, -34.1751, 39.4387}, 1.2644},
	} {
		for _, d := range []float64{deltaE2000(c.p, c.q), deltaE2000(c.q, c.p)} {
			if math.Abs(d-c.want) > 5e-5 {
				t.Errorf("ΔE00(%v, %v) = %.5f, want %.4f", c.p, c.q, d, c.want)
			}
		}
	}
}

// TestSimulationKnown: each simulation keeps white white (the rows of its matrix sum
// to 1), and loses the distinction it should: pure red and green are far apart for
// normal vision and close for a deuteranope, not for a tritanope.
func TestSimulationKnown(t *testing.T) {
	for _, v := range visions {
		if w := v.seen(RGB{255, 255, 255}); math.Abs(w.L-100) > 0.01 || math.Hypot(w.A, w.B) > 0.05 {
			t.Errorf("%s: white is seen as %.3f", v.name, w)
		}
	}
	red, green := RGB{0xd0, 0x30, 0x30}, RGB{0x30, 0xa0, 0x30}
	d := func(v vision) float64 { return deltaE2000(v.seen(red), v.seen(green)) }
	if !(d(visions[0]) > 40 && d(visions[2]) < d(visions[0])/2 && d(visions[3]) > d(visions[2])) {
		t.Errorf("red vs green: ΔE00 %.1f normal, %.1f deuteranopia, %.1f tritanopia", d(visions[0]), d(visions[2]), d(visions[3]))
	}
}

// TestCategoricalApart: every pair of the categorical colours, hence of the roles'
// colours, stays minCategoricalDeltaE apart under each vision.
func TestCategoricalApart(t *testing.T) {
	for _, r := range Roles {
		if !slices.Contains(Categorical, r.Style.Colour) {
			t.Errorf("role %s: colour %s is not one of Categorical", r.Name, r.Style.Colour.Hex())
		}
	}
	for _, b := range pairs(Categorical, minCategoricalDeltaE) {
		t.Error(b)
	}
	// The embedding map's classes: the categorical colours and Rest, as dots.
	for _, b := range pairs(append(slices.Clone(Categorical), Rest), minCategoricalDeltaE) {
		t.Error("classes: " + b)
	}
	// The verdicts: their lines and their fills (the fills side by side in a row of
	// tokens) stay apart, the marks aside.
	for _, b := range pairs([]RGB{Correct.Line, Wrong.Line}, minCategoricalDeltaE) {
		t.Error("verdict lines: " + b)
	}
	for _, b := range pairs([]RGB{Correct.Fill, Wrong.Fill}, minFillDeltaE) {
		t.Error("verdict fills: " + b)
	}
}

// minFillDeltaE is the floor for the verdicts' light fills: large boxes next to each
// other, where differences are seen more easily than between thin lines, and where
// the mark ✓/✗ carries the verdict anyway.
const minFillDeltaE = 5

// TestCheckFails: the check catches a palette that is not colour-blind safe: red and
// green, distinct to normal vision, fail under deuteranopia.
func TestCheckFails(t *testing.T) {
	red, green := RGB{0xd6, 0x27, 0x28}, RGB{0x2c, 0xa0, 0x2c} // matplotlib's tab:red, tab:green
	bad := pairs([]RGB{red, green}, minCategoricalDeltaE)
	t.Logf("red vs green: %q", bad)
	if len(bad) == 0 || !strings.Contains(strings.Join(bad, "\n"), "deuteranopia") {
		t.Errorf("red vs green pass the check: %q", bad)
	}
	if d := deltaE2000(labOf(red), labOf(green)); d < 30 {
		t.Errorf("red vs green: ΔE00 = %.1f for normal vision, want far apart", d)
	}
}

// minDivergingEndsDeltaE: the two ends of the diverging map must read as two colours,
// not two shades, under deuteranopia: three times the categorical floor, since a
// heatmap's cells are compared across the whole panel, not side by side.
const minDivergingEndsDeltaE = 3 * minCategoricalDeltaE

// TestDivergingEnds: the diverging map's ends stay apart under every vision, its two
// halves each lighten towards the middle, and the middle is near white.
func TestDivergingEnds(t *testing.T) {
	lo, hi := BlueOrange[0], BlueOrange[len(BlueOrange)-1]
	for _, v := range visions {
		if d := deltaE2000(v.seen(lo), v.seen(hi)); d < minDivergingEndsDeltaE {
			t.Errorf("BlueOrange ends under %s: ΔE00 = %.1f < %d", v.name, d, minDivergingEndsDeltaE)
		} else {
			t.Logf("BlueOrange ends under %s: ΔE00 = %.1f", v.name, d)
		}
	}
	mid := len(BlueOrange) / 2
	for i := 1; i < len(BlueOrange); i++ {
		a, b := labOf(BlueOrange[i-1]).L, labOf(BlueOrange[i]).L
		if i <= mid && !(b > a) || i > mid && !(b < a) {
			t.Errorf("BlueOrange: L* %.1f then %.1f at stop %d: the halves must lighten towards the middle", a, b, i)
		}
	}
	if c := labOf(BlueOrange[mid]); c.L < 95 || math.Hypot(c.A, c.B) > 3 {
		t.Errorf("BlueOrange middle %s is %.1f, want near white", BlueOrange[mid].Hex(), c)
	}
}

// TestSequentialMonotonic: the sequential map's lightness rises at every stop, for
// every vision, so a larger value is always a lighter cell.
func TestSequentialMonotonic(t *testing.T) {
	for _, v := range visions {
		for i := 1; i < len(Viridis); i++ {
			if a, b := v.seen(Viridis[i-1]).L, v.seen(Viridis[i]).L; !(b > a) {
				t.Errorf("Viridis under %s: L* %.1f then %.1f at stop %d", v.name, a, b, i)
			}
		}
	}
}
