package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"unroll/lessons"
)

// outage is how long the tests hold a page's traffic: issue 22's 12 s, longer than
// either end's detection and than the page's first backoffs.
const outage = 12 * time.Second

// TestBrowserNetDrop: an instructor's page and a follower's in Chromium, each behind
// its own holdProxy (a Wi-Fi that silently drops everything). With the instructor's
// traffic held for 12 s: the instructor's page says "connection lost" within 5 s, the
// server ends its session within 5 s (the room keeps the run) and the follower is told
// the instructor is away; a → pressed at the start of the outage (sent into the dead
// connection) and one pressed once the page knows (kept) are both carried out after
// the reconnect, once each, and the follower sees them. Then with the follower's
// traffic held: its page says so within 5 s, the server drops it from the counts
// within 5 s, and it follows again after the release.
func TestBrowserNetDrop(t *testing.T) {
	ctx := startBrowser(t)
	s, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	target := strings.TrimPrefix(srv.URL, "http://")
	leadNet, classNet := newHoldProxy(t, target), newHoldProxy(t, target)
	lesson := lessons.Catalog()[0]
	const live = `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`
	const connState = `document.querySelector('[data-testid=conn]').dataset.state`
	const bannerJS = `document.querySelector('[data-testid=room-banner]')`
	shot := func(ctx context.Context, name string) {
		if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
			if err := os.MkdirAll(screenshotDir, 0o755); err == nil {
				_ = os.WriteFile(filepath.Join(screenshotDir, name), png, 0o644)
			}
		}
	}

	lead := ctx
	leadErrs := watchConsole(lead)
	if err := chromedp.Do(lead, chromedp.Navigate("http://"+leadNet.addr()+"/lessons/"+lesson.Slug)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, lead, "the instructor's page live", live)
	if err := chromedp.Do(lead, chromedp.Click(chromedp.CSS(`[data-testid=room-start]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, lead, "the join panel", `document.querySelector('[data-testid=room-code]').textContent.length === 6`)
	code := evalJS[string](t, lead, `document.querySelector('[data-testid=room-code]').textContent`)
	rm, rerr := s.rooms.find("", code)
	if rerr != nil {
		t.Fatalf("room %s: %s", code, rerr.msg)
	}
	follower, cancel := chromedp.NewContext(lead) // a student's phone
	t.Cleanup(cancel)
	if err := chromedp.Do(follower, chromedp.EmulateViewport(360, 740), chromedp.Navigate("http://"+classNet.addr()+"/rooms/"+code)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, follower, "following", live+` && document.body.dataset.room === "follower"`)
	waitForJS(t, lead, "one following", `document.querySelector('[data-testid=room]').dataset.following === "1"`)
	for want := 1; want <= 2; want++ {
		if err := chromedp.Do(lead, chromedp.Click(chromedp.CSS(`[data-testid=step-forward]`))); err != nil {
			t.Fatal(err)
		}
		waitForJS(t, lead, fmt.Sprintf("step %d", want), fmt.Sprintf(`%s === %d`, stepReadJS, want))
	}
	waitForJS(t, follower, "the follower at step 2", stepReadJS+` === 2 && `+drawnStepJS)
	evalJS[chromedp.Void](t, lead, `document.activeElement.blur()`)

	// The instructor's network goes silent; → at once, into the dead connection.
	leadNet.hold()
	held := time.Now()
	serverSaw := make(chan time.Duration, 1) // when the server let the instructor's session go
	go func() {
		for time.Since(held) < outage {
			rm.mu.Lock()
			gone := rm.lead == nil
			rm.mu.Unlock()
			if gone {
				serverSaw <- time.Since(held)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		serverSaw <- -1
	}()
	if err := chromedp.Do(lead, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, lead, "the instructor's page to notice", connState+` !== "live"`)
	pageSaw := time.Since(held)
	if text := evalJS[string](t, lead, `document.querySelector('[data-testid=conn]').textContent`); !strings.Contains(text, "connection lost") {
		t.Errorf("the instructor's page says %q, want it to say the connection is lost", text)
	}
	if err := chromedp.Do(lead, chromedp.KeyEvent(kb.ArrowRight)); err != nil { // the page knows: it keeps this one
		t.Fatal(err)
	}
	waitForJS(t, follower, "the follower told the instructor is away", bannerJS+`.dataset.instructor === "away"`)
	followerSaw := time.Since(held)
	away := evalJS[string](t, follower, bannerJS+`.textContent`)
	fromServer := <-serverSaw
	t.Logf("instructor held: its page noticed after %v, the server after %v, the follower was told after %v", pageSaw.Round(time.Millisecond), fromServer.Round(time.Millisecond), followerSaw.Round(time.Millisecond))
	switch {
	case pageSaw > detectWithin:
		t.Errorf("the instructor's page noticed the dead connection after %v, want within %v", pageSaw, detectWithin)
	case fromServer < 0 || fromServer > detectWithin:
		t.Errorf("the server let the instructor's session go after %v (-1: not during the outage), want within %v", fromServer, detectWithin)
	case followerSaw > detectWithin+time.Second:
		t.Errorf("the follower was told the instructor is away after %v", followerSaw)
	case !strings.Contains(away, "away"):
		t.Errorf("the follower's banner says %q, want it to say the instructor is away", away)
	}
	shot(lead, "netdrop-instructor-lost.png")
	shot(follower, "netdrop-follower-instructor-away.png")

	time.Sleep(time.Until(held.Add(outage))) // the outage's length is the scenario, not a wait for a result
	leadNet.release()
	waitForJS(t, lead, "the instructor's page back, both → carried out",
		live+` && `+connState+` === "live" && document.body.dataset.unacked === "0" && `+stepReadJS+` >= 4 && `+drawnStepJS)
	if step := evalJS[int](t, lead, stepReadJS); step != 4 {
		t.Errorf("after the outage the instructor's page is at step %d, want 4: step 2 and the two → pressed during the outage, each once", step)
	}
	waitForJS(t, follower, "the follower follows again", stepReadJS+` === 4 && `+drawnStepJS+` && `+bannerJS+`.dataset.instructor === "here"`)
	if !evalJS[bool](t, lead, `document.body.dataset.room === "lead" && document.querySelector('[data-testid=room-code]').textContent === "`+code+`"`) {
		t.Errorf("after the outage the instructor's page no longer shows its class %s: %s", code, evalJS[string](t, lead, `document.body.dataset.room + " " + document.querySelector('[data-testid=room-code]').textContent`))
	}

	// The follower's network goes silent.
	classNet.hold()
	held = time.Now()
	go func() {
		for time.Since(held) < outage {
			if following, _ := rm.out.Counts(); following == 0 {
				serverSaw <- time.Since(held)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		serverSaw <- -1
	}()
	waitForJS(t, follower, "the follower's page to notice", bannerJS+`.dataset.connection === "lost"`)
	pageSaw = time.Since(held)
	lost := evalJS[string](t, follower, bannerJS+`.textContent`)
	fromServer = <-serverSaw
	t.Logf("follower held: its page noticed after %v, the server after %v", pageSaw.Round(time.Millisecond), fromServer.Round(time.Millisecond))
	switch {
	case pageSaw > detectWithin:
		t.Errorf("the follower's page noticed the dead connection after %v, want within %v", pageSaw, detectWithin)
	case fromServer < 0 || fromServer > detectWithin:
		t.Errorf("the server dropped the silent follower after %v (-1: not during the outage), want within %v", fromServer, detectWithin)
	case !strings.Contains(lost, "Connection lost"):
		t.Errorf("the follower's banner says %q, want it to say the connection is lost", lost)
	}
	waitForJS(t, lead, "the instructor's count drops", `document.querySelector('[data-testid=room]').dataset.following === "0"`)
	shot(follower, "netdrop-follower-lost.png")
	classNet.release()
	waitForJS(t, follower, "the follower back", bannerJS+`.dataset.connection === "live" && `+bannerJS+`.dataset.instructor === "here" && `+stepReadJS+` === 4`)
	waitForJS(t, lead, "one following again", `document.querySelector('[data-testid=room]').dataset.following === "1"`)

	for _, e := range leadErrs.list() {
		if !strings.Contains(e, "WebSocket") { // Chromium logs the given-up connections itself
			t.Errorf("console error: %s", e)
		}
	}
}

// TestBrowserRoomResume: the instructor closes the tab; the follower's page says the
// instructor is away (not "reconnecting" for half an hour); the lesson opened again in
// the same browser offers "Resume your class CODE", which puts the instructor back in
// charge — the join panel with the code, the counts and End — at the room's step, and
// the follower follows again. A page opened with ?room=CODE leads the class the same
// way, and ending the class there makes the browser forget it.
func TestBrowserRoomResume(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	lesson := lessons.Catalog()[0]
	const live = `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`
	const bannerJS = `document.querySelector('[data-testid=room-banner]')`
	const slotJS = `document.querySelector('[data-testid=room]')`
	shot := func(ctx context.Context, name string) {
		if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
			if err := os.MkdirAll(screenshotDir, 0o755); err == nil {
				_ = os.WriteFile(filepath.Join(screenshotDir, name), png, 0o644)
			}
		}
	}
	// inCharge: the class's page with its join panel open: code, counts and End.
	inCharge := func(code string) string {
		return live + ` && document.body.dataset.room === "lead" && document.querySelector('[data-testid=room-panel]').hidden === false` +
			` && document.querySelector('[data-testid=room-code]').textContent === "` + code + `"` +
			` && document.querySelector('[data-testid=room-counts]').textContent.startsWith("1 following")` +
			` && document.querySelector('[data-testid=room-end]').offsetWidth > 0` +
			` && document.querySelector('[data-testid=room-url]').href.endsWith("/join/` + code + `")`
	}

	lead, closeLead := chromedp.NewContext(ctx) // a tab of the same browser: its cookies and storage
	if err := chromedp.Do(lead, chromedp.Navigate(srv.URL+"/lessons/"+lesson.Slug)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, lead, "the instructor's page live", live)
	if err := chromedp.Do(lead, chromedp.Click(chromedp.CSS(`[data-testid=room-start]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, lead, "the join panel", `document.querySelector('[data-testid=room-code]').textContent.length === 6`)
	code := evalJS[string](t, lead, `document.querySelector('[data-testid=room-code]').textContent`)
	follower := ctx
	if err := chromedp.Do(follower, chromedp.Navigate(srv.URL+"/rooms/"+code)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, follower, "following", live+` && document.body.dataset.room === "follower"`)
	if err := chromedp.Do(lead, chromedp.Click(chromedp.CSS(`[data-testid=step-forward]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, follower, "the follower at step 1", stepReadJS+` === 1 && `+drawnStepJS)

	closed := time.Now()
	closeLead() // the instructor closes the tab
	waitForJS(t, follower, "the instructor away", bannerJS+`.dataset.instructor === "away" && `+bannerJS+`.textContent.includes("The instructor is away")`)
	t.Logf("the follower said the instructor is away %v after the tab closed", time.Since(closed).Round(time.Millisecond))
	shot(follower, "room-resume-follower-away.png")

	again, closeAgain := chromedp.NewContext(ctx)
	defer closeAgain()
	if err := chromedp.Do(again, chromedp.Navigate(srv.URL+"/lessons/"+lesson.Slug)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, again, "the offer to resume", live+` && document.querySelector('[data-testid=room-resume]')?.textContent === "Resume your class `+code+`"`)
	t.Logf("the offer to resume shown %v after the tab closed", time.Since(closed).Round(time.Millisecond))
	shot(again, "room-resume-offer.png")
	if err := chromedp.Do(again, chromedp.Click(chromedp.CSS(`[data-testid=room-resume]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, again, "the instructor in charge again, at the room's step", inCharge(code)+` && `+stepReadJS+` === 1`)
	waitForJS(t, follower, "the instructor back", bannerJS+`.dataset.instructor === "here" && `+bannerJS+`.textContent.includes("Following the instructor")`)
	t.Logf("in charge again %v after the tab closed", time.Since(closed).Round(time.Millisecond))
	shot(again, "room-resume-instructor.png")
	if err := chromedp.Do(again, chromedp.Click(chromedp.CSS(`[data-testid=step-forward]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, follower, "the follower follows again", stepReadJS+` === 2 && `+drawnStepJS)

	// ?room=CODE, in another tab: the same class, in charge, with its code, counts and End.
	linked, closeLinked := chromedp.NewContext(ctx)
	defer closeLinked()
	if err := chromedp.Do(linked, chromedp.Navigate(srv.URL+"/lessons/"+lesson.Slug+"?room="+code)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, linked, "?room=CODE in charge", inCharge(code)+` && !location.search.includes("room=")`)
	waitForJS(t, again, "the tab it replaced says so", `document.querySelector('[data-testid=conn]').dataset.state === "replaced"`)
	shot(linked, "room-resume-linked.png")
	if err := chromedp.Do(linked, chromedp.Click(chromedp.CSS(`[data-testid=room-end]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, follower, "the class ended", bannerJS+`.dataset.instructor === "ended"`)
	waitForJS(t, linked, "the browser forgets the class", slotJS+`.dataset.ended !== undefined && localStorage.getItem("unroll.lead") === null`)
}
