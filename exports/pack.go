package exports

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"image"
	"sort"
	"strings"
	"time"

	"unroll/figures"
	"unroll/lessons"
)

// Turn waits for a turn of the server's CPU to draw one figure; release ends it.
// Drawing a pack or an animation takes one turn a figure, so other work runs between.
type Turn func() (release func(), err error)

// GIF is panel p stepping through view v as an animated GIF drawn with options o:
// its figure at scrubber steps 1..Step (at most figures.MaxFrames of them, evenly
// spaced, the last always kept), each drawn in a turn. The last frame is drawn first:
// its colours are the GIF's.
func GIF(ctx context.Context, v View, p lessons.Panel, o figures.Options, turn Turn) ([]byte, error) {
	fs, err := animation(ctx, v, p)
	if err != nil {
		return nil, err
	}
	raster := func(f figures.Figure) (*image.RGBA, error) {
		release, err := turn()
		if err != nil {
			return nil, err
		}
		defer release()
		return figures.Raster(f, o)
	}
	last, err := raster(fs[len(fs)-1])
	if err != nil {
		return nil, err
	}
	a := figures.NewAnimation(last)
	for _, f := range fs[:len(fs)-1] {
		img, err := raster(f)
		if err != nil {
			return nil, err
		}
		if err := a.Add(img); err != nil {
			return nil, refused(err)
		}
	}
	if err := a.Add(last); err != nil {
		return nil, refused(err)
	}
	release, err := turn()
	if err != nil {
		return nil, err
	}
	defer release()
	return a.Encode()
}

// refused is a limit of figures (an animation too large to hold) as this package's
// error, which the server answers with 400.
func refused(err error) error {
	return fmt.Errorf("exports: %s", strings.TrimPrefix(err.Error(), "figures: "))
}

// animation is panel p's figures at the view's steps, as GIF draws them.
func animation(ctx context.Context, v View, p lessons.Panel) ([]figures.Figure, error) {
	n := v.Step()
	if n == 0 {
		return nil, errNoData(p, "step forward first: the animation runs from step 1 to the page's step")
	}
	var fs []figures.Figure
	frames := min(n, figures.MaxFrames)
	for i := 1; i <= frames; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := (i*n + frames - 1) / frames // 1..n, the last frame at step n
		f, err := Panel(v.Until(s), p)
		if err != nil {
			continue // nothing to draw yet at this step (BPTT's gradients before the backward pass)
		}
		fs = append(fs, f)
	}
	if len(fs) == 0 {
		return nil, errNoData(p, "no step up to the page's has anything to draw")
	}
	return fs, nil
}

// Pack is the figure pack of view v: every exportable panel as PNG, SVG and PDF, the
// numbers behind each as CSV, and a README naming the page (url reproduces the view)
// and its parameter values. A panel with nothing to draw at this step is listed in
// the README, not drawn. It stops with ctx's error when ctx ends.
func Pack(ctx context.Context, v View, url string, params map[string]string, o figures.Options, turn Turn) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	var drawn, skipped []string
	for _, p := range Shown(v.Lesson, params) {
		if Lacks(v, p) { // a panel this model has no values for: the page does not show it either
			continue
		}
		f, err := Panel(v, p)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("- `%s` (%s): %s", p.ID, plain(p.Title), strings.TrimPrefix(err.Error(), "exports: ")))
			continue
		}
		for _, format := range []figures.Format{figures.PNG, figures.SVG, figures.PDF} {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			release, err := turn()
			if err != nil {
				return nil, err
			}
			b, err := figures.Draw(f, format, o)
			release()
			if err != nil {
				return nil, err
			}
			if err := add(z, p.ID+"."+string(format), b); err != nil {
				return nil, err
			}
		}
		if err := add(z, p.ID+".csv", CSV(v, p)); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("- `%s`: %s", p.ID, plain(p.Title))
		if p.Kind == lessons.Scene {
			line += "; its CSV is the image, one row per cell: row, column, their position words, and the colour and shape in it"
		}
		drawn = append(drawn, line)
	}
	if err := add(z, "README.md", readme(v, url, params, drawn, skipped)); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func add(z *zip.Writer, name string, b []byte) error {
	w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now()})
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// readme is the figure pack's README.md.
func readme(v View, url string, params map[string]string, drawn, skipped []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Unroll — %s (section %s), figure pack\n\n", v.Lesson.Title, v.Lesson.Section)
	fmt.Fprintf(&b, "This view, step %d of %d, is reproduced by opening\n\n    %s\n\n", v.Step(), v.Steps, url)
	b.WriteString("## Parameters\n\n| parameter | value |\n|---|---|\n")
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s | %s |\n", k, params[k])
	}
	b.WriteString("\n## Panels\n\nEach panel is here as `ID.png`, `ID.svg` and `ID.pdf`, with the numbers it draws in\n")
	b.WriteString("`ID.csv`: one row per value, with its symbol (as TeX), the page's step, the time step t\n")
	b.WriteString("and its index along each dimension (unit, layer, position …).\n\n")
	b.WriteString(strings.Join(drawn, "\n") + "\n")
	if len(skipped) > 0 {
		b.WriteString("\nNot drawn at this step:\n\n" + strings.Join(skipped, "\n") + "\n")
	}
	return []byte(b.String())
}

// plain is a title with its TeX delimiters dropped, for text files.
func plain(s string) string { return strings.NewReplacer(`\(`, "", `\)`, "").Replace(s) }
