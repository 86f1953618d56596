package web

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
)

// TestRoomQRDecodes: the join panel's QR codes, PNG and SVG, decode (with gozxing, a
// decoder independent of the library that drew them) to the join URL.
func TestRoomQRDecodes(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, _ := startRoom(t, ts, "tiny")
	link := created.Join[0]
	fetch := func(path, wantType string) []byte {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != wantType {
			t.Fatalf("GET %s: %d %s %.200s", path, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		return b
	}
	img, err := png.Decode(bytes.NewReader(fetch(link.QRPNG, "image/png")))
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeQR(t, img); got != link.URL {
		t.Errorf("the PNG decodes to %q, want %q", got, link.URL)
	}
	svg := fetch(link.QRSVG, "image/svg+xml")
	if got := decodeQR(t, rasterSVG(t, string(svg), 6)); got != link.URL {
		t.Errorf("the SVG decodes to %q, want %q", got, link.URL)
	}
	// A host that is not the server's own is refused; so is a wrong code.
	for _, path := range []string{"/rooms/" + created.Code + "/qr.png?host=evil.example", "/rooms/ZZZZZZ/qr.svg"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("GET %s: 200", path)
		}
	}
}

// decodeQR reads the QR code in img with gozxing.
func decodeQR(t *testing.T, img image.Image) string {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	// PURE_BARCODE: the image is the code alone, as drawn, not a photograph. (gozxing's
	// detector for photographs misses about 1 % of such clean synthetic images, whatever
	// the error correction or the scale, measured on 300 codes each.)
	res, err := qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true})
	if err != nil {
		t.Fatalf("decoding the QR code: %v", err)
	}
	return res.GetText()
}

// rasterSVG draws the SVG's square path (the library's "Mx,yh1v1h-1z" modules on a
// light background of the viewBox) at px pixels a unit.
func rasterSVG(t *testing.T, svg string, px int) image.Image {
	t.Helper()
	vb := regexp.MustCompile(`viewBox="0 0 (\d+) (\d+)"`).FindStringSubmatch(svg)
	if vb == nil {
		t.Fatalf("no viewBox in %.200s", svg)
	}
	n, _ := strconv.Atoi(vb[1])
	img := image.NewGray(image.Rect(0, 0, n*px, n*px))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	mods := regexp.MustCompile(`M(\d+),(\d+)h1v1h-1z`).FindAllStringSubmatch(svg, -1)
	if len(mods) == 0 || strings.Count(svg, "M") != len(mods) {
		t.Fatalf("the SVG's path is not one square a module: %.300s", svg)
	}
	for _, m := range mods {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		for dy := range px {
			for dx := range px {
				img.SetGray(x*px+dx, y*px+dy, color.Gray{})
			}
		}
	}
	return img
}
