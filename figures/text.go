package figures

import (
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"codeberg.org/go-fonts/dejavu/dejavusans"
	"codeberg.org/go-fonts/dejavu/dejavusansoblique"
	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/text/unicode/norm"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// The figures' text is in DejaVu Sans, upright and oblique (for the letters of
// maths): it has every character the lessons write (‖ ∂ α ρ γ ′ ŷ ⁽ ⁾ ₁₀ − … ␣), where
// gonum's Liberation fonts lack ⁽ ⁾ and ␣. gonum's LaTeX handler (text.Latex, with
// go-latex v0.2.0) cannot be used instead: it panics on any sub- or superscript
// ("unknown ast node *ast.Sub").
var (
	figureFont  = font.Font{Typeface: "DejaVu", Variant: "Sans"}
	figureFonts = font.NewCache(font.Collection{
		{Font: figureFont, Face: mustParse(dejavusans.TTF)},
		{Font: font.Font{Typeface: "DejaVu", Variant: "Sans", Style: xfont.StyleItalic}, Face: mustParse(dejavusansoblique.TTF)},
	})
)

func init() {
	// Every plot the package makes starts with the figures' font and text.
	plot.DefaultFont = figureFont
	plot.DefaultTextHandler = mathText{}
}

func mustParse(ttf []byte) *opentype.Font {
	f, err := opentype.Parse(ttf)
	if err != nil {
		panic(err) // the fonts are compiled in
	}
	return f
}

// Typesetting of sub- and superscripts.
const (
	scriptScale = 0.7  // a script's size, of its base's (TeX's \scriptstyle)
	subDrop     = 0.22 // em of the base: how far a subscript's baseline drops
	supRise     = 0.4  // em of the base: how far a superscript's baseline rises
	maxLevel    = 2    // scripts of scripts shrink no further (TeX's \scriptscriptstyle)
)

// mathText is the text handler of every figure: plain Unicode text in which
// \( … \) holds inline maths in the subset of TeX that the pages' KaTeX also
// renders (lessons.Plot's titles are shown on the page too):
//
//	x_t, x_{t+1}, T^{α}, H_t^{(l)}   sub- and superscripts (nested ones shrink twice)
//	\alpha \rho \gamma \partial \|    Greek letters and symbols (see mathSymbols)
//	\hat{y}                           an accent on one letter
//	\log \text{…}                     upright words
//	t'                                a prime (′)
//
// In maths, spaces are ignored, Latin and lowercase Greek letters are oblique and a
// hyphen is a minus sign, as in TeX. Each run of one style is drawn with one
// FillString, so a PDF's text extracts in reading order.
type mathText struct{}

var _ text.Handler = mathText{}

// mathSymbols are the TeX macros mathText knows, and what they draw.
var mathSymbols = map[string]string{
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "theta": "θ",
	"lambda": "λ", "mu": "μ", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω",
	"Sigma": "Σ", "Delta": "Δ", "Theta": "Θ", "Omega": "Ω",
	"partial": "∂", "|": "‖", "lVert": "‖", "rVert": "‖", "top": "⊤", "cdot": "·", "times": "×", "ldots": "…", "dots": "…",
	"mid": " | ", "to": "→", "le": "≤", "ge": "≥", "approx": "≈", "sum": "Σ", "prod": "∏",
	"log": "log", "exp": "exp", "max": "max", "min": "min", "arg": "arg ", "ell": "ℓ",
	",": "\u2009", " ": " ", "{": "{", "}": "}", "%": "%", "_": "_",
}

// span is a run of text drawn in one style: its level (0 on the baseline, −1 a
// subscript, 1 a superscript, ±2 a script's script) and its baseline shift in em
// of the text's size.
type span struct {
	text   string
	italic bool
	size   float64 // of the text's size
	rise   float64 // in em of the text's size
}

// layout splits s into spans; an error names what mathText cannot typeset.
func layout(s string) ([]span, error) {
	var out []span
	add := func(t string, italic bool, size, rise float64) {
		if t == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].italic == italic && out[n-1].size == size && out[n-1].rise == rise {
			out[n-1].text += t
			return
		}
		out = append(out, span{t, italic, size, rise})
	}
	for s != "" {
		i := strings.Index(s, `\(`)
		if i < 0 {
			add(s, false, 1, 0)
			break
		}
		add(s[:i], false, 1, 0)
		j := strings.Index(s[i:], `\)`)
		if j < 0 {
			return nil, fmt.Errorf("figures: %q opens maths with \\( and never closes it", s)
		}
		p := mathParser{src: s[i+2 : i+j], add: add}
		if err := p.list(0, 1, 0, false); err != nil {
			return nil, fmt.Errorf("figures: %q: %w", s, err)
		}
		s = s[i+j+2:]
	}
	return out, nil
}

// mathParser reads the maths between \( and \).
type mathParser struct {
	src string
	pos int
	add func(t string, italic bool, size, rise float64)
}

// list reads atoms until the end (or a closing brace when inGroup) at the given
// script level, size and rise.
func (p *mathParser) list(level int, size, rise float64, inGroup bool) error {
	for p.pos < len(p.src) {
		switch r := p.peek(); {
		case r == ' ':
			p.pos++
		case r == '}':
			if !inGroup {
				return fmt.Errorf("a } closes no group")
			}
			p.pos++
			return nil
		case r == '_' || r == '^':
			p.pos++
			l, sz, rs := level, size, rise
			if abs(level) < maxLevel {
				l = level + 1
				sz = size * scriptScale
			}
			if r == '_' {
				rs = rise - subDrop*size
			} else {
				rs = rise + supRise*size
			}
			if err := p.atom(l, sz, rs); err != nil {
				return err
			}
		default:
			if err := p.atom(level, size, rise); err != nil {
				return err
			}
		}
	}
	if inGroup {
		return fmt.Errorf("a { is never closed")
	}
	return nil
}

func (p *mathParser) peek() rune {
	for _, r := range p.src[p.pos:] {
		return r
	}
	return 0
}

func (p *mathParser) next() rune {
	r := p.peek()
	p.pos += len(string(r))
	return r
}

// atom reads one character, macro or group.
func (p *mathParser) atom(level int, size, rise float64) error {
	for p.pos < len(p.src) && p.peek() == ' ' {
		p.pos++
	}
	if p.pos >= len(p.src) {
		return fmt.Errorf("a script or macro has nothing after it")
	}
	switch r := p.next(); {
	case r == '{':
		return p.list(level, size, rise, true)
	case r == '\\':
		name := p.macroName()
		switch name {
		case "hat":
			arg, err := p.argument()
			if err != nil {
				return err
			}
			p.add(norm.NFC.String(arg+"\u0302"), isMathLetter(arg), size, rise)
		case "text", "mathrm":
			arg, err := p.argument()
			if err != nil {
				return err
			}
			p.add(arg, false, size, rise)
		default:
			sym, ok := mathSymbols[name]
			if !ok {
				return fmt.Errorf("no macro \\%s", name)
			}
			p.add(sym, utf8.RuneCountInString(sym) == 1 && isMathLetter(sym), size, rise) // \log is upright
		}
	case r == '\'':
		p.add("′", false, size, rise)
	case r == '-':
		p.add("−", false, size, rise)
	case r == ' ':
	default:
		p.add(string(r), isMathLetter(string(r)), size, rise)
	}
	return nil
}

// macroName reads the name after a backslash: letters, or one other character.
func (p *mathParser) macroName() string {
	start := p.pos
	for p.pos < len(p.src) && isASCIILetter(rune(p.src[p.pos])) {
		p.pos++
	}
	if p.pos == start && p.pos < len(p.src) {
		p.next()
	}
	return p.src[start:p.pos]
}

// argument reads a macro's {…} argument as text.
func (p *mathParser) argument() (string, error) {
	if p.peek() != '{' {
		return "", fmt.Errorf("a macro's argument must be in braces")
	}
	end := strings.IndexByte(p.src[p.pos:], '}')
	if end < 0 {
		return "", fmt.Errorf("a { is never closed")
	}
	arg := p.src[p.pos+1 : p.pos+end]
	p.pos += end + 1
	return arg, nil
}

func isASCIILetter(r rune) bool { return r < 0x80 && unicode.IsLetter(r) }

// isMathLetter: TeX sets Latin and lowercase Greek letters oblique in maths.
func isMathLetter(s string) bool {
	for _, r := range s {
		if !(isASCIILetter(r) || unicode.Is(unicode.Greek, r) && unicode.IsLower(r) || r == 'ŷ') {
			return false
		}
	}
	return s != ""
}

func abs(i int) int { return max(i, -i) }

// PlainText is the text of a figure's string as a reader extracts it from the
// drawing: the maths' markup gone, scripts in line ("‖∂L/∂Hₜ‖" reads "‖∂L/∂Ht‖").
func PlainText(s string) string {
	spans, err := layout(s)
	if err != nil {
		return s
	}
	var b strings.Builder
	for _, sp := range spans {
		b.WriteString(sp.text)
	}
	return b.String()
}

// CheckText reports what in s mathText cannot typeset (an unknown macro, an
// unclosed \( or brace), or nil.
func CheckText(s string) error {
	_, err := layout(s)
	return err
}

// spansOf is layout for drawing: text it cannot typeset is drawn as it is.
func spansOf(s string) []span {
	spans, err := layout(s)
	if err != nil {
		return []span{{text: s, size: 1}}
	}
	return spans
}

func (mathText) Cache() *font.Cache { return figureFonts }

func (mathText) Extents(f font.Font) font.Extents {
	face := lookup(f, false, 1)
	return face.Extents()
}

func (mathText) Lines(txt string) []string {
	return strings.Split(strings.TrimRight(txt, "\n"), "\n")
}

// face is the font of sp in text of font f.
func (sp span) face(f font.Font) font.Face { return lookup(f, sp.italic, sp.size) }

// lookup is the figures' face for text of font f (whatever typeface it names: a
// gonum plotter may name its own default), upright or oblique, scaled by size.
func lookup(f font.Font, italic bool, size float64) font.Face {
	f.Typeface, f.Variant, f.Weight, f.Style = figureFont.Typeface, figureFont.Variant, xfont.WeightNormal, xfont.StyleNormal
	if italic {
		f.Style = xfont.StyleItalic
	}
	return figureFonts.Lookup(f, f.Size*vg.Length(size))
}

// Box is the line's width, its height above the baseline and its depth below,
// the scripts included.
func (h mathText) Box(txt string, f font.Font) (width, height, depth vg.Length) {
	e := h.Extents(f)
	height, depth = e.Ascent, e.Descent
	for _, sp := range spansOf(txt) {
		face := sp.face(f)
		se := face.Extents()
		width += face.Width(sp.text)
		rise := f.Size * vg.Length(sp.rise)
		height = max(height, rise+se.Ascent)
		depth = max(depth, se.Descent-rise)
	}
	return width, height, depth
}

// Draw draws txt in sty at pt, aligned and rotated as sty says, line by line.
func (h mathText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		defer c.Pop()
		c.Rotate(sty.Rotation)
		sin, cos := math.Sincos(sty.Rotation)
		s, co := vg.Length(sin), vg.Length(cos)
		pt.X, pt.Y = pt.X*co+pt.Y*s, pt.Y*co-pt.X*s
	}
	e := h.Extents(sty.Font)
	gap := e.Height - e.Ascent - e.Descent
	lines := h.Lines(txt)
	var total vg.Length // of all lines, as text.Style measures it
	for i, l := range lines {
		_, ht, dp := h.Box(l, sty.Font)
		total += ht + dp
		if i > 0 {
			total += gap
		}
	}
	top := pt.Y + total*vg.Length(sty.YAlign) + total
	for _, l := range lines {
		w, ht, dp := h.Box(l, sty.Font)
		base := top - ht
		x := pt.X + w*vg.Length(sty.XAlign)
		for _, sp := range spansOf(l) {
			face := sp.face(sty.Font)
			y := base + sty.Font.Size*vg.Length(sp.rise)
			for _, part := range markParts(sp.text) {
				lift := vg.Length(0)
				if part.capMark {
					lift = sty.Font.Size * vg.Length(sp.size*capMarkLift)
				}
				c.FillString(face, vg.Point{X: x, Y: y + lift}, part.text)
				x += face.Width(part.text)
			}
		}
		top = base - dp - gap
	}
}

// capMarkLift is how far, in em, a combining mark over a capital letter is raised: the
// font places its marks (U+0303 ~, U+0302 ^) for lowercase height, and gonum does not
// apply the font's mark positioning, so over C the tilde of C̃ would sit in the
// letter and read as Č or Ĉ.
const capMarkLift = 0.16

// markPart is a run of a span's text, drawn in one FillString; capMark marks a run
// that is one combining mark placed over a capital letter.
type markPart struct {
	text    string
	capMark bool
}

// markParts splits t before and after each combining mark that follows a capital
// letter; text without such marks is one part.
func markParts(t string) []markPart {
	var out []markPart
	start, prev := 0, rune(0)
	for i, r := range t {
		if unicode.Is(unicode.Mn, r) && unicode.IsUpper(prev) {
			if i > start {
				out = append(out, markPart{text: t[start:i]})
			}
			n := utf8.RuneLen(r)
			out = append(out, markPart{text: t[i : i+n], capMark: true})
			start = i + n
		}
		prev = r
	}
	if start < len(t) {
		out = append(out, markPart{text: t[start:]})
	}
	return out
}
