package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	qr "github.com/piglig/go-qr"
	"golang.org/x/time/rate"

	"unroll/templates"
)

// Join codes and the limits on guessing them.
const (
	// codeLength and codeAlphabet make a code easy to read aloud and to type on a
	// phone: 6 of 32 symbols without 0/O, 1/I/l, about 10^9 codes for at most
	// maxRooms rooms.
	codeLength   = 6
	codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	// guessBurst and guessEvery bound one client's wrong codes: a student's few typos
	// pass, then one guess every 6 s; finding one of 64 rooms among 10^9 codes would
	// take a client years.
	guessBurst = 10
	guessEvery = 6 * time.Second
	// maxGuessClients bounds the memory the guess limits take: past it, the clients
	// whose allowance is full again are forgotten first.
	maxGuessClients = 4096
	// maxRoomBody is the largest body of POST /api/v1/rooms: {"lesson": "slug"}.
	maxRoomBody = 1 << 10
	// qrScale and qrBorder size the QR code (github.com/piglig/go-qr): 8 pixels a
	// module in the PNG, and the standard quiet zone of 4 modules.
	qrScale  = 8
	qrBorder = 4
)

// listenHint is the command that makes the server reachable from the students'
// devices, for a server that listens on loopback only.
const listenHint = "unroll -addr :8080"

// joinLink is one address the students may use: its join URL and its QR code.
type joinLink struct {
	Host  string `json:"host"`
	URL   string `json:"url"`
	QRSVG string `json:"qr_svg"`
	QRPNG string `json:"qr_png"`
}

// roomCreated is the answer to POST /api/v1/rooms.
type roomCreated struct {
	Code   string     `json:"code"`
	Lesson string     `json:"lesson"`
	Join   []joinLink `json:"join"`
	// LoopbackOnly says the server listens on this computer only: no student can
	// reach it until it is started with Hint.
	LoopbackOnly bool   `json:"loopback_only"`
	Hint         string `json:"hint,omitempty"`
}

// createRoom serves POST /api/v1/rooms: a room on the lesson named in the body,
// led by the browser that asked (the secret is its HttpOnly cookie, never in a URL).
func (s *Server) createRoom(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "rooms are started only from this server's own pages")
		return
	}
	var body struct {
		Lesson string `json:"lesson"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, maxRoomBody))
	if err := dec.Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, `the body must be {"lesson": "<slug>"}`)
		return
	}
	l, ok := s.lesson(body.Lesson)
	if !ok {
		writeError(w, http.StatusNotFound, "there is no lesson "+strconv.Quote(body.Lesson))
		return
	}
	rm, rerr := s.rooms.create(clientOf(r), l)
	if rerr != nil {
		writeError(w, rerr.status, rerr.msg)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: roomCookie(rm.code), Value: rm.secret, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	out := s.joinInfo(r, rm.code, l.Slug)
	s.log.Info("room started", "code", rm.code, "lesson", l.Slug, "client", clientOf(r))
	writeJSON(w, http.StatusCreated, out)
}

// endRoom serves POST /api/v1/rooms/{code}/end: the instructor ends the class.
func (s *Server) endRoom(w http.ResponseWriter, r *http.Request) {
	rm, rerr := s.rooms.find(clientOf(r), r.PathValue("code"))
	if rerr == nil && (!sameOrigin(r) || !rm.authorize(r)) {
		rerr = &roomError{http.StatusForbidden, "only the instructor's browser ends this class"}
	}
	if rerr != nil {
		writeError(w, rerr.status, rerr.msg)
		return
	}
	rm.end(closeRoomEnded, "the instructor has ended the class")
	w.WriteHeader(http.StatusNoContent)
}

// joinURL is the address a student opens for room code on host.
func joinURL(r *http.Request, host, code string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + host + "/join/" + code
}

// joinPage serves GET /join: a form for the code (?code= is what it sends).
func (s *Server) joinPage(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	if code == "" {
		s.render(w, r, templates.JoinPage(codeLength, codeAlphabet, "", ""))
		return
	}
	s.joinWith(w, r, code)
}

// joinCode serves GET /join/{code}, the join URL of the QR code.
func (s *Server) joinCode(w http.ResponseWriter, r *http.Request) {
	s.joinWith(w, r, r.PathValue("code"))
}

// joinWith sends a right code to the room's page, and answers a wrong or ended one
// with the form again, the same for both (not even the code typed is echoed).
func (s *Server) joinWith(w http.ResponseWriter, r *http.Request, code string) {
	rm, rerr := s.rooms.find(clientOf(r), code)
	if rerr != nil {
		s.noRoomPage(w, r, code, rerr)
		return
	}
	http.Redirect(w, r, "/rooms/"+rm.code, http.StatusSeeOther)
}

// noRoomPage is the join form again with why the code did not open a room.
func (s *Server) noRoomPage(w http.ResponseWriter, r *http.Request, code string, rerr *roomError) {
	{
		var buf bytes.Buffer
		if err := templates.JoinPage(codeLength, codeAlphabet, "", sentence(rerr.msg)).Render(r.Context(), &buf); err != nil {
			panic(err)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(rerr.status)
		_, _ = w.Write(buf.Bytes())
	}
}

// followPage serves GET /rooms/{code}: the room's lesson as a follower's page.
func (s *Server) followPage(w http.ResponseWriter, r *http.Request) {
	rm, rerr := s.rooms.find(clientOf(r), r.PathValue("code"))
	if rerr != nil {
		s.noRoomPage(w, r, r.PathValue("code"), rerr)
		return
	}
	l, v, view := rm.page()
	ctx := templates.WithRoom(r.Context(), templates.RoomView{Code: rm.code, Role: "follower"})
	s.render(w, r.WithContext(ctx), templates.LessonPage(l, v, v.Query(), "", s.machine, viewOf(l, view)))
}

// roomQR serves GET /rooms/{code}/qr.svg and qr.png?host=HOST: the QR code of the
// room's join URL on HOST, one of the server's own names.
func (s *Server) roomQR(w http.ResponseWriter, r *http.Request) {
	rm, rerr := s.rooms.find(clientOf(r), r.PathValue("code"))
	if rerr != nil {
		writeError(w, rerr.status, rerr.msg)
		return
	}
	host := r.URL.Query().Get("host")
	if host == "" {
		host = r.Host
	}
	if !s.hosts.allows(host) {
		writeError(w, http.StatusBadRequest, "host must be one of this server's own addresses")
		return
	}
	code, err := qr.EncodeText(joinURL(r, host, rm.code), qr.Medium)
	if err != nil {
		writeError(w, http.StatusBadRequest, "the join URL is too long for a QR code")
		return
	}
	var out []byte
	if strings.HasSuffix(r.URL.Path, ".png") {
		out, err = code.ToPNGBytes(qr.NewQrCodeImgConfig(qrScale, qrBorder))
		w.Header().Set("Content-Type", "image/png")
	} else { // one unit a module: the library adds the border unscaled, and a page scales an SVG anyway
		out, err = code.ToSVGBytes(qr.NewQrCodeImgConfig(1, qrBorder))
		w.Header().Set("Content-Type", "image/svg+xml")
	}
	if err != nil {
		panic(err) // a valid config always renders
	}
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(out)
}

// listenAddr is the address the server listens on (Options.Listen), else the one
// this request arrived at.
func (s *Server) listenAddr(r *http.Request) net.Addr {
	if s.listen != nil {
		return s.listen
	}
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return a
}

// joinHosts are the host:port names students can use to reach the server: the one
// the instructor's browser used, unless it is a loopback name; then the server's LAN
// addresses (lan), when it listens beyond loopback. loopbackOnly says no student can
// reach it (it listens on loopback only, or has no LAN address): the one name
// returned then is the instructor's own.
func joinHosts(requestHost string, listen net.Addr, lan []net.IP) (hosts []string, loopbackOnly bool) {
	tcp, _ := listen.(*net.TCPAddr)
	if tcp == nil || tcp.IP.IsLoopback() {
		return []string{requestHost}, true
	}
	if !isLoopbackName(requestHost) {
		return []string{requestHost}, false
	}
	port := strconv.Itoa(tcp.Port)
	if !tcp.IP.IsUnspecified() {
		return []string{net.JoinHostPort(tcp.IP.String(), port)}, false
	}
	for _, ip := range lan {
		hosts = append(hosts, net.JoinHostPort(ip.String(), port))
	}
	if len(hosts) == 0 {
		return []string{requestHost}, true
	}
	return hosts, false
}

// isLoopbackName reports whether a Host header names this machine only.
func isLoopbackName(hostport string) bool {
	h := normalHost(hostport)
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// lanAddrs are this machine's addresses on its networks (interfaces that are up,
// not loopback): IPv4 first, then global IPv6 ones only when there is no IPv4
// (students type these, and a link-local IPv6 needs a zone no URL carries).
func lanAddrs() []net.IP {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var v4, v6 []net.IP
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipnet, ok := a.(*net.IPNet)
			if !ok || ipnet.IP.IsLoopback() || ipnet.IP.IsLinkLocalUnicast() {
				continue
			}
			if ip4 := ipnet.IP.To4(); ip4 != nil {
				v4 = append(v4, ip4)
			} else if ipnet.IP.IsGlobalUnicast() {
				v6 = append(v6, ipnet.IP)
			}
		}
	}
	if len(v4) > 0 {
		return v4
	}
	return v6
}

// LANURLs are the addresses a server listening on addr can be reached on from other
// machines (http://IP:PORT/), for cmd/server to print at start; none when it listens
// on loopback only.
func LANURLs(addr net.Addr) []string {
	hosts, loopbackOnly := joinHosts("localhost", addr, lanAddrs())
	if loopbackOnly {
		return nil
	}
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = "http://" + h + "/"
	}
	return out
}

// guessLimiter bounds each client's wrong join codes (guessBurst, then one every
// guessEvery), with golang.org/x/time/rate's token buckets.
type guessLimiter struct {
	mu       sync.Mutex
	byClient map[string]*rate.Limiter
}

func newGuessLimiter() *guessLimiter { return &guessLimiter{byClient: map[string]*rate.Limiter{}} }

// blocked reports whether client has no guess left now.
func (g *guessLimiter) blocked(client string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	l, ok := g.byClient[client]
	return ok && l.Tokens() < 1
}

// missed spends one of client's guesses.
func (g *guessLimiter) missed(client string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	l, ok := g.byClient[client]
	if !ok {
		if len(g.byClient) >= maxGuessClients {
			g.forget()
		}
		l = rate.NewLimiter(rate.Every(guessEvery), guessBurst)
		g.byClient[client] = l
	}
	l.Allow()
}

// forget drops the clients whose allowance is full again, or, when none is, one
// client (g.mu is held).
func (g *guessLimiter) forget() {
	for c, l := range g.byClient {
		if l.Tokens() >= guessBurst {
			delete(g.byClient, c)
		}
	}
	for c := range g.byClient {
		if len(g.byClient) < maxGuessClients {
			break
		}
		delete(g.byClient, c)
	}
}

// decodeView reads the instructor's view command, {"v": 1, "type": "view", "view":
// {name: value, …}}: isView is false for any other command; the view has at most
// maxViewKeys names of letters, digits, - and _, each a bool, a number or a string
// of at most maxViewText bytes.
func decodeView(data []byte) (view map[string]any, isView bool, err error) {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &head) != nil || head.Type != string(viewMessage) {
		return nil, false, nil
	}
	var cmd struct {
		V    int                        `json:"v"`
		Type string                     `json:"type"`
		View map[string]json.RawMessage `json:"view"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cmd); err != nil || cmd.V != 1 {
		return nil, true, errors.New(`view must be {"v": 1, "type": "view", "view": {…}}`)
	}
	if len(cmd.View) > maxViewKeys {
		return nil, true, errors.New("a view has at most " + strconv.Itoa(maxViewKeys) + " values")
	}
	view = make(map[string]any, len(cmd.View))
	for k, raw := range cmd.View {
		if k == "" || len(k) > 32 || strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
			return nil, true, errors.New("a view's names are letters, digits, - and _")
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return nil, true, errors.New("view value " + strconv.Quote(k) + " is not JSON")
		}
		switch x := v.(type) {
		case bool, float64, nil:
		case string:
			if len(x) > maxViewText {
				return nil, true, errors.New("view value " + strconv.Quote(k) + " is longer than " + strconv.Itoa(maxViewText) + " bytes")
			}
		default:
			return nil, true, errors.New("view value " + strconv.Quote(k) + " must be true/false, a number or text")
		}
		view[k] = v
	}
	return view, true, nil
}

// sentence capitalises msg and ends it with a full stop.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

func itoa(n int) string { return strconv.Itoa(n) }
