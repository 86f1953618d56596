package figures

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"math"
	"slices"
)

// Animation limits.
const (
	// MaxFrames bounds an animation: the longest time axis a lesson has (60 steps of
	// BPTT's two passes) with room to spare; each frame is a full drawing.
	MaxFrames = 150
	// frameDelay is how long each frame shows, in hundredths of a second: two steps a
	// second, slow enough to read a slide's changing column.
	frameDelay = 50
	lastDelay  = 250 // the last frame stays 2.5 s before the loop starts again
)

// Raster is figure f drawn as an image, a frame of an animation: the PNG's pixels.
func Raster(f Figure) (*image.RGBA, error) {
	pix, err := Draw(f, raster)
	if err != nil {
		return nil, err
	}
	w, h := int(math.Round(figureWidth.Dots(figureDPI))), int(math.Round(figureHeight.Dots(figureDPI)))
	if len(pix) != 4*w*h {
		return nil, errors.New("figures: a raster of another size than the figure's")
	}
	return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}, nil
}

// Animate encodes the images (Raster's, one a frame) as a looping animated GIF, the
// format every slide program plays. The colours are the most used of the
// last frame (which has the most drawn), at most 256; each frame after the first
// carries only the rectangle that changed, so a heatmap filling a column a step stays
// small.
func Animate(imgs []*image.RGBA) ([]byte, error) {
	if len(imgs) == 0 || len(imgs) > MaxFrames {
		return nil, errors.New("figures: an animation has 1 to MaxFrames frames")
	}
	pal := paletteOf(imgs[len(imgs)-1])
	anim := &gif.GIF{LoopCount: 0}
	var prev *image.Paletted
	for i, img := range imgs {
		p := toPaletted(img, pal)
		frame := p
		if prev != nil {
			r := changed(prev, p)
			if r.Empty() { // nothing changed: one pixel keeps the frame's delay
				r = image.Rect(0, 0, 1, 1)
			}
			frame = p.SubImage(r).(*image.Paletted)
		}
		delay := frameDelay
		if i == len(imgs)-1 {
			delay = lastDelay
		}
		anim.Image = append(anim.Image, frame)
		anim.Delay = append(anim.Delay, delay)
		anim.Disposal = append(anim.Disposal, gif.DisposalNone)
		prev = p
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, anim); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// rgbOf is pixel i of img's opaque colour (a figure has a white background).
func rgbOf(img *image.RGBA, i int) color.RGBA {
	return color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], 0xff}
}

// paletteOf is img's 256 most used colours (white and black always among them).
func paletteOf(img *image.RGBA) color.Palette {
	count := map[color.RGBA]int{}
	for i := 0; i < len(img.Pix); i += 4 {
		count[rgbOf(img, i)]++
	}
	cs := make([]color.RGBA, 0, len(count))
	for c := range count {
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b color.RGBA) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return int(uint32(a.R)<<16|uint32(a.G)<<8|uint32(a.B)) - int(uint32(b.R)<<16|uint32(b.G)<<8|uint32(b.B))
	})
	pal := color.Palette{color.White, color.Black}
	for _, c := range cs {
		if len(pal) == 256 {
			break
		}
		if c != (color.RGBA{0xff, 0xff, 0xff, 0xff}) && c != (color.RGBA{0, 0, 0, 0xff}) {
			pal = append(pal, c)
		}
	}
	return pal
}

// toPaletted maps img onto pal, each colour to its nearest (remembered per colour:
// a figure has few distinct colours).
func toPaletted(img *image.RGBA, pal color.Palette) *image.Paletted {
	p := image.NewPaletted(img.Rect, pal)
	index := map[color.RGBA]uint8{}
	last, lastIndex := color.RGBA{}, uint8(0)
	for i := 0; i < len(img.Pix); i += 4 {
		c := rgbOf(img, i)
		if c != last || i == 0 { // runs of one colour are the rule
			j, ok := index[c]
			if !ok {
				j = uint8(pal.Index(c))
				index[c] = j
			}
			last, lastIndex = c, j
		}
		p.Pix[i/4] = lastIndex
	}
	return p
}

// changed is the smallest rectangle outside which a and b are the same.
func changed(a, b *image.Paletted) image.Rectangle {
	r := image.Rectangle{}
	bd := a.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		ra, rb := a.Pix[a.PixOffset(bd.Min.X, y):a.PixOffset(bd.Max.X, y)], b.Pix[b.PixOffset(bd.Min.X, y):b.PixOffset(bd.Max.X, y)]
		for x := range ra {
			if ra[x] != rb[x] {
				r = r.Union(image.Rect(bd.Min.X+x, y, bd.Min.X+x+1, y+1))
			}
		}
	}
	return r
}
