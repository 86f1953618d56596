package exports

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"unroll/figures"
	"unroll/lessons"
	"unroll/sim"
)

// maths matches a title's inline TeX, which pdftotext returns typeset (sub- and
// superscripts on their own runs): the test compares the prose around it.
var maths = regexp.MustCompile(`\\\(.*?\\\)`)

// TestPanelPDFText: the PDF of every panel of every lesson (at the last step, trained
// lessons' loss after a few steps) carries its title as text a reader extracts:
// the prose of the title, in Unicode, with no mojibake of a single-byte font.
func TestPanelPDFText(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		if os.Getenv("UNROLL_REQUIRE_BROWSER") == "1" {
			t.Fatal("UNROLL_REQUIRE_BROWSER=1 and poppler's pdftotext is missing")
		}
		t.Skip("poppler's pdftotext is not installed")
	}
	for _, l := range lessons.Catalog() {
		t.Run(l.Slug, func(t *testing.T) {
			t.Parallel()
			m, err := l.Build(l.Params.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			if l.Trains {
				if err := sim.Replay(context.Background(), nil, m, 3); err != nil {
					t.Fatal(err)
				}
			}
			v, err := NewView(context.Background(), l, m, m.Steps())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range Panels(l) {
				f, err := Panel(v, p)
				if err != nil {
					continue // nothing to draw (TestEveryDataPanelDraws and the table tests say which may)
				}
				pdf, err := figures.Draw(f, figures.PDF, figures.Options{})
				if err != nil {
					t.Fatalf("%s: %v", p.ID, err)
				}
				text, _ := pdfText(t, pdf)
				got := squeeze(text)
				for _, bad := range []string{"â€", "Ã", "Î±", "âˆ"} {
					if strings.Contains(got, bad) {
						t.Errorf("%s: the PDF's text is garbled (%q): %.200s", p.ID, bad, got)
					}
				}
				title := Text(p.Title)
				if figures.CheckText(title) == nil {
					for _, part := range maths.Split(title, -1) {
						if w := squeeze(part); w != "" && !strings.Contains(got, w) {
							t.Errorf("%s: the PDF's text lacks %q of its title %q: %.300s", p.ID, w, title, got)
						}
					}
				}
			}
		})
	}
}
