package figures

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"

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

// Raster is figure f drawn as an image with options o (at o.Width pixels, as its
// PNG would be): a frame of an animation.
func Raster(f Figure, o Options) (*image.RGBA, error) {
	o, paint, err := prepare(f, o)
	if err != nil {
		return nil, err
	}
	c := rasterCanvas(o)
	paintOn(c, o, paint)
	img, ok := c.Image().(*image.RGBA) // vgimg draws on its own copy of the image it is given
	if !ok {
		return nil, errors.New("figures: the raster canvas is not RGBA")
	}
	return img, nil
}

// MaxAnimationBytes bounds what an Animation holds before it is encoded: the
// changed rectangles of its frames, a byte a pixel. A 60-step heatmap at 1280 px
// holds about 12 MB (a column and the title's step change a step); a figure whose
// every frame changes whole holds a full frame each, and is refused past this.
const MaxAnimationBytes = 48 << 20

// Animation builds a looping animated GIF, the format every slide program plays, one
// frame at a time (Raster's images). Its colours are the most used of a given frame
// (the last, which has the most drawn), at most 256; each frame after the first keeps
// only the rectangle that changed, so a heatmap filling a column a step stays small
// in memory and in the file.
type Animation struct {
	pal  color.Palette
	prev *image.Paletted
	anim gif.GIF
	held int // bytes of the frames kept
}

// NewAnimation is an empty animation whose colours are those of the image key.
func NewAnimation(key *image.RGBA) *Animation {
	return &Animation{pal: paletteOf(key)}
}

// Add appends img as the next frame; it fails past MaxFrames or MaxAnimationBytes.
func (a *Animation) Add(img *image.RGBA) error {
	if len(a.anim.Image) == MaxFrames {
		return fmt.Errorf("figures: an animation has at most %d frames", MaxFrames)
	}
	p := toPaletted(img, a.pal)
	frame := p
	if a.prev != nil {
		r := changed(a.prev, p)
		if r.Empty() { // nothing changed: one pixel keeps the frame's delay
			r = image.Rect(0, 0, 1, 1)
		}
		frame = image.NewPaletted(r, a.pal)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			copy(frame.Pix[frame.PixOffset(r.Min.X, y):frame.PixOffset(r.Max.X, y)], p.Pix[p.PixOffset(r.Min.X, y):p.PixOffset(r.Max.X, y)])
		}
	}
	if a.held += len(frame.Pix); a.held > MaxAnimationBytes {
		return fmt.Errorf("figures: the animation's frames change too much to hold (over %d MB)", MaxAnimationBytes>>20)
	}
	a.anim.Image = append(a.anim.Image, frame)
	a.anim.Delay = append(a.anim.Delay, frameDelay)
	a.anim.Disposal = append(a.anim.Disposal, gif.DisposalNone)
	a.prev = p
	return nil
}

// Encode writes the GIF; its last frame stays lastDelay before the loop starts again.
func (a *Animation) Encode() ([]byte, error) {
	if len(a.anim.Image) == 0 {
		return nil, errors.New("figures: an animation has no frames")
	}
	a.anim.Delay[len(a.anim.Delay)-1] = lastDelay
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &a.anim); err != nil {
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
