package web

import (
	"context"
	"image/color"
	"image/png"
	"net/url"
	"strings"
	"testing"

	"unroll/exports"
	"unroll/figures"
	"unroll/palette"
)

// TestSceneExportServed: GET /lessons/captioning/panels/scene.png draws the image the
// query draws (seed 003's image v), in the slide and theme asked for: the cell of
// the red circle is red at its centre, an empty cell the grid's ground; the CSV is
// the image, one row per cell.
func TestSceneExportServed(t *testing.T) {
	s, err := New(testLogger(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newHTTPTestServer(t, s)
	l := lessonOf(t, "captioning")
	q := url.Values{"image": {"red circle 1 1, green square 3 3"}, "step": {"1"}}
	v := l.Params.Defaults()
	v["image"] = q.Get("image")
	m, err := l.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	view, err := exports.NewView(context.Background(), l, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := exports.Find(l, "scene")
	f, err := exports.Panel(view, p)
	if err != nil || f.Scene == nil {
		t.Fatalf("the scene's figure: %v, a picture: %v", err, f.Scene != nil)
	}
	for _, o := range []figures.Options{{}, {Theme: figures.Dark, Slide: figures.Standard, Width: figures.MinWidth}} {
		qq := url.Values{}
		for k, x := range q {
			qq[k] = x
		}
		if o.Theme != "" {
			qq.Set("theme", string(o.Theme))
			qq.Set("slide", string(o.Slide))
			qq.Set("width", "640")
		}
		name := "scene.png?" + qq.Encode()
		status, _, body := fetch(t, "GET", ts.URL+"/lessons/captioning/panels/"+name, nil)
		if status != 200 {
			t.Fatalf("%s: got %d %.200s", name, status, body)
		}
		img, err := png.Decode(strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b := img.Bounds()
		centre := func(row, col int) color.Color {
			x0, y0, x1, y1, err := figures.SceneCell(f, o, row, col)
			if err != nil {
				t.Fatal(err)
			}
			return img.At(int((x0+x1)/2*float64(b.Dx())), int((y0+y1)/2*float64(b.Dy())))
		}
		same := func(a, c color.Color) bool {
			r1, g1, b1, _ := a.RGBA()
			r2, g2, b2, _ := c.RGBA()
			return r1>>8 == r2>>8 && g1>>8 == g2>>8 && b1>>8 == b2>>8
		}
		if got, want := centre(0, 0), palette.ScenePaint["red"].RGBA(); !same(got, want) {
			t.Errorf("%s: the red circle's cell is %v at its centre, want %v", name, got, want)
		}
		if got, want := centre(1, 1), palette.SceneGround.RGBA(); !same(got, want) {
			t.Errorf("%s: the empty middle cell is %v, want the ground %v", name, got, want)
		}
	}
	status, _, body := fetch(t, "GET", ts.URL+"/lessons/captioning/panels/scene.csv?"+q.Encode(), nil)
	if status != 200 || !strings.Contains(body, "\n1,1,top,left,red,circle\n") || !strings.Contains(body, "\n3,3,bottom,right,green,square\n") || strings.Count(body, "\n") != 10 {
		t.Errorf("scene.csv: got %d %q, want a header and the 9 cells with the red circle and the green square", status, body)
	}
}
