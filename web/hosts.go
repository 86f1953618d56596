package web

import (
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// Which names the server answers to. A page of evil.example whose name an attacker
// points at 127.0.0.1 (DNS rebinding) reaches a server on loopback with
// "Host: evil.example": the server refuses every request whose Host is not one of its
// own names, as Jupyter and Vite do. On loopback those are the loopback names; on
// other addresses, also the addresses it listens on and the names given with
// -allow-host.

// loopbackNames are the names of this machine that never leave it.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// Hosts returns the names beyond loopback's that a server listening on addr answers
// to: the names in allow, and when addr is not loopback, the address itself — or, for
// an unspecified address (0.0.0.0, ::), every address of this machine's interfaces
// and its host name (plain and as NAME.local, how macOS announces it on the network).
func Hosts(addr net.Addr, allow []string) []string {
	names := append([]string(nil), allow...)
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || tcp.IP.IsLoopback() {
		return names
	}
	if !tcp.IP.IsUnspecified() {
		return append(names, tcp.IP.String())
	}
	if ifaddrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range ifaddrs {
			if ipnet, ok := a.(*net.IPNet); ok {
				names = append(names, ipnet.IP.String())
			}
		}
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		names = append(names, h, strings.TrimSuffix(h, ".local")+".local")
	}
	return names
}

// hostPolicy is the set of host names (no port, lower case) the server answers to.
type hostPolicy map[string]bool

func newHostPolicy(names []string) hostPolicy {
	p := hostPolicy{}
	for _, n := range append(append([]string(nil), loopbackNames...), names...) {
		p[normalHost(n)] = true
	}
	return p
}

// allows reports whether a request's Host (with or without a port) is one of ours.
// "*.localhost" is loopback by RFC 6761, so it is always allowed.
func (p hostPolicy) allows(hostport string) bool {
	h := normalHost(hostport)
	return p[h] || strings.HasSuffix(h, ".localhost")
}

// normalHost strips the port and IPv6 brackets and lowers the case.
func normalHost(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// sameOrigin accepts an upgrade without an Origin header (not a browser: curl, a
// script, a test) or with one whose host is the host the request was sent to (which
// the host policy has already checked); a cross-origin page gets 403.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
}
