//! A small HTTP/1.1 server on 127.0.0.1 for local sites (`exemplar serve DIR`, the evaluation)
//! and for the tests' fixture sites (any handler function). Std only: one thread per
//! connection (bounded), keep-alive, `Content-Length` bodies, HEAD.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// A request as the handler sees it.
#[derive(Clone, Debug)]
pub struct Request {
    /// `GET`, `HEAD`, …
    pub method: String,
    /// Path and query as sent.
    pub path: String,
    /// Header lines.
    pub headers: Vec<(String, String)>,
    /// The request body (`Content-Length` bodies up to 1 MiB; form submissions).
    pub body: Vec<u8>,
}

/// A response.
#[derive(Clone, Debug, Default)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Headers (`Content-Length` is added).
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
    /// Wait this long before answering (slow-server fixtures).
    pub delay: Option<Duration>,
}

impl Response {
    /// 200 with an HTML body.
    pub fn html(body: impl Into<String>) -> Response {
        Response {
            status: 200,
            headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
            body: body.into().into_bytes(),
            delay: None,
        }
    }

    /// 404 with a small HTML body.
    pub fn not_found() -> Response {
        Response {
            status: 404,
            ..Response::html("<!DOCTYPE html><title>Not found</title><h1>Not found</h1>")
        }
    }

    /// A redirect.
    pub fn redirect(status: u16, location: &str) -> Response {
        Response {
            status,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
            delay: None,
        }
    }

    fn status_text(&self) -> &'static str {
        match self.status {
            200 => "OK",
            301 => "Moved Permanently",
            302 => "Found",
            400 => "Bad Request",
            403 => "Forbidden",
            404 => "Not Found",
            431 => "Request Header Fields Too Large",
            500 => "Internal Server Error",
            503 => "Service Unavailable",
            _ => "Status",
        }
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// A running server; stops when dropped.
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    served: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Connections served at once at most.
const MAX_CONNECTIONS: usize = 64;
/// Request head bytes at most.
const MAX_HEAD: usize = 16 * 1024;

impl Server {
    /// Starts on 127.0.0.1:`port` (0: any free port).
    ///
    /// # Errors
    /// When the port cannot be bound.
    pub fn start<H>(port: u16, handler: H) -> std::io::Result<Server>
    where
        H: Fn(&Request) -> Response + Send + Sync + 'static,
    {
        Server::start_with(port, MAX_CONNECTIONS, handler)
    }

    /// Starts on 127.0.0.1:`port` serving `max_connections` at once (beyond: 503): a server
    /// standing for many hosts, each kept alive in a client's pool of its own.
    ///
    /// # Errors
    /// When the port cannot be bound.
    pub fn start_with<H>(port: u16, max_connections: usize, handler: H) -> std::io::Result<Server>
    where
        H: Fn(&Request) -> Response + Send + Sync + 'static,
    {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let served = Arc::new(AtomicU64::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let (stop2, served2) = (Arc::clone(&stop), Arc::clone(&served));
        let active = Arc::new(AtomicUsize::new(0));
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = conn else { continue };
                if active.load(Ordering::SeqCst) >= max_connections {
                    let mut s = stream;
                    let _ = s.write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                    continue;
                }
                active.fetch_add(1, Ordering::SeqCst);
                let (h, served, active, stop) = (
                    Arc::clone(&handler),
                    Arc::clone(&served2),
                    Arc::clone(&active),
                    Arc::clone(&stop2),
                );
                std::thread::spawn(move || {
                    serve_connection(stream, &*h, &served, &stop);
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Ok(Server {
            addr,
            stop,
            served,
            thread: Some(thread),
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Requests answered so far.
    pub fn requests(&self) -> u64 {
        self.served.load(Ordering::SeqCst)
    }

    /// Stops accepting connections.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve_connection(stream: TcpStream, handler: &Handler, served: &AtomicU64, stop: &AtomicBool) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    // Without it, a response's last segment waits for the client's delayed ACK (Nagle's
    // algorithm): 40 ms per request on a kept-alive connection, which set the pace of every
    // local crawl.
    let _ = stream.set_nodelay(true);
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    // A TLS handshake (a client sent here for an https URL) is no request: closing at once
    // tells it so, where waiting for a request head would hold it until the read timeout.
    if reader.fill_buf().is_ok_and(|b| b.first() == Some(&0x16)) {
        return;
    }
    while !stop.load(Ordering::SeqCst) {
        let (req, keep_alive) = match read_head(&mut reader) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(status) => {
                let r = Response {
                    status,
                    ..Response::default()
                };
                let _ = write_response(&mut out, &r, false, false);
                return;
            }
        };
        let resp = handler(&req);
        if let Some(d) = resp.delay {
            std::thread::sleep(d);
        }
        served.fetch_add(1, Ordering::SeqCst);
        if write_response(&mut out, &resp, req.method == "HEAD", keep_alive).is_err() || !keep_alive
        {
            return;
        }
    }
}

/// Reads a request head; Ok(None) on a closed connection; Err(status) on a bad request.
fn read_head(r: &mut BufReader<TcpStream>) -> Result<Option<(Request, bool)>, u16> {
    let mut lines: Vec<String> = Vec::new();
    let mut total = 0;
    loop {
        let mut line = Vec::new();
        let n = r
            .by_ref()
            .take((MAX_HEAD + 1 - total) as u64)
            .read_until(b'\n', &mut line)
            .map_err(|_| 400u16)?;
        if n == 0 {
            return if lines.is_empty() { Ok(None) } else { Err(400) };
        }
        total += n;
        if total > MAX_HEAD {
            return Err(431);
        }
        let line = String::from_utf8_lossy(&line).trim_end().to_string();
        if line.is_empty() {
            if lines.is_empty() {
                continue;
            }
            break;
        }
        lines.push(line);
    }
    let mut first = lines[0].split_whitespace();
    let (Some(method), Some(path), Some(version)) = (first.next(), first.next(), first.next())
    else {
        return Err(400);
    };
    if !version.starts_with("HTTP/1.") || !path.starts_with('/') {
        return Err(400);
    }
    let headers: Vec<(String, String)> = lines[1..]
        .iter()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let header = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    // Bodies (form submissions) are kept up to 1 MiB; the rest is discarded.
    let mut body = Vec::new();
    if let Some(len) = header("content-length").and_then(|v| v.parse::<u64>().ok()) {
        let _ = r.by_ref().take(len.min(1 << 20)).read_to_end(&mut body);
        if len > 1 << 20 {
            let _ = std::io::copy(&mut r.by_ref().take(len - (1 << 20)), &mut std::io::sink());
        }
    }
    let keep_alive = match header("connection").as_deref() {
        Some("close") => false,
        Some("keep-alive") => true,
        _ => version == "HTTP/1.1",
    };
    Ok(Some((
        Request {
            method: method.to_string(),
            path: path.to_string(),
            headers,
            body,
        },
        keep_alive,
    )))
}

fn write_response(
    out: &mut TcpStream,
    r: &Response,
    head: bool,
    keep_alive: bool,
) -> std::io::Result<()> {
    let mut h = format!("HTTP/1.1 {} {}\r\n", r.status, r.status_text());
    for (k, v) in &r.headers {
        h.push_str(&format!("{k}: {v}\r\n"));
    }
    h.push_str(&format!("Content-Length: {}\r\n", r.body.len()));
    h.push_str(if keep_alive {
        "Connection: keep-alive\r\n\r\n"
    } else {
        "Connection: close\r\n\r\n"
    });
    // Head and body in one write: one segment train per response.
    let mut bytes = h.into_bytes();
    if !head {
        bytes.extend_from_slice(&r.body);
    }
    out.write_all(&bytes)?;
    out.flush()
}

/// A handler serving the files under `root`, following symlinks (Debian's documentation
/// packages link their JS/CSS into /usr/share/javascript) but never letting a request path
/// climb above the root; a directory serves its `index.html` (`/dir` redirects to `/dir/`).
pub fn static_dir(
    root: impl Into<PathBuf>,
) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let root: PathBuf = root.into();
    move |req: &Request| {
        if req.method != "GET" && req.method != "HEAD" {
            return Response {
                status: 405,
                ..Response::default()
            };
        }
        let raw = req.path.split(['?', '#']).next().unwrap_or("/");
        let Some(decoded) = percent_decode(raw) else {
            return Response {
                status: 400,
                ..Response::default()
            };
        };
        let rel = Path::new(decoded.trim_start_matches('/'));
        if rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Response {
                status: 403,
                ..Response::default()
            };
        }
        let mut path = root.join(rel);
        if path.is_dir() {
            if !raw.ends_with('/') {
                return Response::redirect(301, &format!("{raw}/"));
            }
            path = path.join("index.html");
        }
        match std::fs::read(&path) {
            Ok(body) => Response {
                status: 200,
                headers: vec![("Content-Type".into(), content_type(&path, &body).into())],
                body,
                delay: None,
            },
            Err(_) => Response::not_found(),
        }
    }
}

/// A percent-encoded path decoded: `None` for a bad escape or bytes that are not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let v = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())?;
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The `Content-Type` of a file, by its extension. An HTML file is said to be UTF-8 only when
/// it declares no charset of its own and its bytes are UTF-8: Debian ships manuals in EUC-KR and
/// Shift_JIS that say so in a `<meta>`, which a header's charset would override (as a server
/// with no default charset, Apache's own configuration, leaves them to say it).
pub fn content_type(path: &Path, body: &[u8]) -> &'static str {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("html" | "htm")
            if crate::dom::text::declares_charset(body) || std::str::from_utf8(body).is_err() =>
        {
            "text/html"
        }
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("css") => "text/css",
        Some("js" | "mjs") => "text/javascript",
        Some("json" | "map") => "application/json",
        Some("txt") => "text/plain; charset=utf-8",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("gif") => "image/gif",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("ico") => "image/x-icon",
        Some("pdf") => "application/pdf",
        Some("woff") => "font/woff",
        Some("woff2") => "font/woff2",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}

/// How long `serve` waits before each answer: none, a fixed time, or a time drawn between two
/// bounds, log-uniformly (most answers quick, a few slow: the long tail of real servers'
/// response times).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Latency {
    /// The shortest delay, ms.
    pub min_ms: u64,
    /// The longest delay, ms (0: none).
    pub max_ms: u64,
}

impl Latency {
    /// `MS` or `MIN-MAX` (milliseconds, MIN ≥ 1 when a range).
    pub fn parse(v: &str) -> Option<Latency> {
        let (min, max) = match v.split_once('-') {
            Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => {
                let ms = v.trim().parse().ok()?;
                (ms, ms)
            }
        };
        (min <= max && (min == max || min >= 1)).then_some(Latency {
            min_ms: min,
            max_ms: max,
        })
    }

    /// The delay of the `n`th answer (None: answer at once).
    pub fn draw(&self, n: u64) -> Option<u64> {
        if self.max_ms == 0 {
            return None;
        }
        if self.min_ms == self.max_ms {
            return Some(self.min_ms);
        }
        // splitmix64 of the answer's number: a uniform draw in [0, 1), no dependency.
        let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        let u = (z ^ (z >> 31)) as f64 / (u64::MAX as f64 + 1.0);
        let (lo, hi) = ((self.min_ms as f64).ln(), (self.max_ms as f64).ln());
        Some((lo + u * (hi - lo)).exp().round() as u64)
    }

    /// The mean delay in ms.
    pub fn mean_ms(&self) -> f64 {
        if self.min_ms == self.max_ms {
            return self.min_ms as f64;
        }
        let (a, b) = (self.min_ms as f64, self.max_ms as f64);
        (b - a) / (b.ln() - a.ln())
    }

    pub fn describe(&self) -> String {
        match (self.min_ms, self.max_ms) {
            (_, 0) => String::new(),
            (a, b) if a == b => format!(", answering each request after {a} ms"),
            (a, b) => format!(
                ", answering each request after {a}–{b} ms (log-uniform, mean {:.0} ms)",
                self.mean_ms()
            ),
        }
    }

    /// As the bench's table shows it.
    pub fn label(&self) -> String {
        match (self.min_ms, self.max_ms) {
            (a, b) if a == b => format!("{a} ms"),
            (a, b) => format!("{a}–{b} ms (mean {:.0})", self.mean_ms()),
        }
    }

    /// As `serve --latency-ms` takes it.
    pub fn arg(&self) -> String {
        format!("{}-{}", self.min_ms, self.max_ms)
    }
}

/// Serves `dir` on 127.0.0.1:`port`, each answer delayed by `latency`, until the process ends
/// (`exemplar serve`, and `exemplar-eval serve` for the crawl benchmark).
///
/// # Errors
/// When the port cannot be bound.
pub fn serve_dir(dir: std::path::PathBuf, port: u16, latency: Latency) -> Result<(), String> {
    let files = static_dir(dir.clone());
    let draws = std::sync::atomic::AtomicU64::new(0);
    let handler = move |req: &Request| {
        let mut r = files(req);
        let n = draws.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some(ms) = latency.draw(n) {
            r.delay = Some(std::time::Duration::from_millis(ms));
        }
        r
    };
    let server = Server::start(port, handler).map_err(|e| format!("port {port}: {e}"))?;
    println!(
        "serving {} on {}/ (Ctrl-C to stop){}",
        dir.display(),
        server.url(),
        latency.describe()
    );
    loop {
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client sent here for an https URL is closed at once, not held to the read timeout;
    /// a plain request on the next connection is answered.
    #[test]
    fn a_tls_handshake_is_closed_at_once() {
        let server = Server::start_with(0, 4, |_: &Request| Response::html("ok")).expect("start");
        let mut c = TcpStream::connect(server.addr()).expect("connect");
        let started = std::time::Instant::now();
        c.write_all(&[0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5])
            .expect("hello");
        let mut buf = Vec::new();
        let _ = c.read_to_end(&mut buf);
        assert!(buf.is_empty(), "{:?}", String::from_utf8_lossy(&buf));
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        let mut c = TcpStream::connect(server.addr()).expect("connect");
        c.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .expect("get");
        let mut buf = String::new();
        let _ = c.read_to_string(&mut buf);
        assert!(
            buf.starts_with("HTTP/1.1 200") && buf.ends_with("ok"),
            "{buf}"
        );
    }

    #[test]
    fn latency_is_a_time_or_a_range_drawn_log_uniformly() {
        assert_eq!(Latency::parse("0"), Some(Latency::default()));
        assert_eq!(Latency::default().draw(7), None, "no latency: at once");
        let fixed = Latency::parse("50").expect("fixed");
        assert_eq!((fixed.draw(0), fixed.draw(1)), (Some(50), Some(50)));
        for bad in ["", "x", "5-", "300-10", "0-300", "-5", "1.5"] {
            assert_eq!(Latency::parse(bad), None, "{bad:?}");
        }
        let range = Latency::parse("10-300").expect("range");
        let draws: Vec<u64> = (0..20_000).filter_map(|n| range.draw(n)).collect();
        assert_eq!(draws.len(), 20_000);
        assert!(draws.iter().all(|&d| (10..=300).contains(&d)));
        let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
        assert!(
            (mean - range.mean_ms()).abs() < 3.0,
            "mean {mean} vs {}",
            range.mean_ms()
        );
        // Log-uniform: as many draws below the geometric mean (~55 ms) as above it.
        let below = draws.iter().filter(|&&d| d < 55).count() as f64 / draws.len() as f64;
        assert!((0.45..0.55).contains(&below), "{below}");
    }

    fn raw(addr: SocketAddr, req: &str) -> String {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.write_all(req.as_bytes()).expect("write");
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    }

    #[test]
    fn serves_files_symlinks_dirs_and_refuses_traversal() {
        let dir = std::env::temp_dir().join(format!("exemplar-serve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
        std::fs::write(dir.join("a.html"), "<p>a</p>").expect("write");
        std::fs::write(dir.join("sub/index.html"), "<p>index</p>").expect("write");
        let outside =
            std::env::temp_dir().join(format!("exemplar-serve-out-{}.css", std::process::id()));
        std::fs::write(&outside, "body{}").expect("write");
        let _ = std::os::unix::fs::symlink(&outside, dir.join("style.css"));
        let server = Server::start(0, static_dir(dir.clone())).expect("start");
        let a = server.addr();
        let r = raw(
            a,
            "GET /a.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        assert!(r.starts_with("HTTP/1.1 200"), "{r}");
        assert!(r.contains("text/html") && r.ends_with("<p>a</p>"));
        let r = raw(a, "GET /style.css HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(
            r.starts_with("HTTP/1.1 200") && r.contains("text/css"),
            "symlink followed: {r}"
        );
        let r = raw(a, "GET /sub HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(
            r.starts_with("HTTP/1.1 301") && r.contains("Location: /sub/"),
            "{r}"
        );
        let r = raw(a, "GET /sub/ HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(r.ends_with("<p>index</p>"));
        let r = raw(
            a,
            "GET /../etc/passwd HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        assert!(r.starts_with("HTTP/1.1 403"), "{r}");
        let r = raw(a, "GET /%2e%2e/x HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 403"), "{r}");
        let r = raw(a, "GET /nope.html HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 404"));
        let r = raw(a, "HEAD /a.html HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 200") && !r.contains("<p>"));
        let r = raw(a, "garbage\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 400"), "{r}");
        let big = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(20_000));
        assert!(raw(a, &big).starts_with("HTTP/1.1 431"));
        // Keep-alive: two requests on one connection.
        let r = raw(
            a,
            "GET /a.html HTTP/1.1\r\n\r\nGET /a.html HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(r.matches("HTTP/1.1 200").count(), 2, "{r}");
        assert!(server.requests() >= 8);
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_file(&outside);
    }

    /// A page's own charset declaration is left to stand: a header's would override it (the
    /// EUC-KR pages of Debian's Apache manual came out as mojibake).
    #[test]
    fn html_is_said_to_be_utf8_only_when_it_is_and_declares_nothing() {
        let html = Path::new("p.html");
        assert_eq!(
            content_type(html, "<p>São</p>".as_bytes()),
            "text/html; charset=utf-8"
        );
        assert_eq!(content_type(html, b"<p>S\xe3o</p>"), "text/html");
        let euc_kr = b"<html lang=\"ko\"><head><META http-equiv=\"Content-Type\" \
            content=\"text/html; charset=EUC-KR\"><title>\xbe\xc6\xc6\xc4\xc4\xa1</title>";
        assert_eq!(content_type(html, euc_kr), "text/html");
        let (text, enc) = crate::dom::text::decode(euc_kr, Some(content_type(html, euc_kr)));
        assert_eq!(enc, "EUC-KR");
        assert!(text.contains("<title>아파치</title>"), "{text}");
        // The header's old claim read the same bytes as broken UTF-8.
        let (text, _) = crate::dom::text::decode(euc_kr, Some("text/html; charset=utf-8"));
        assert!(!text.contains("아파치"));
        assert_eq!(
            content_type(Path::new("a.txt"), b"x"),
            "text/plain; charset=utf-8"
        );
    }

    #[test]
    fn custom_handlers_statuses_and_delays() {
        let server = Server::start(0, |req: &Request| match req.path.as_str() {
            "/slow" => Response {
                delay: Some(Duration::from_millis(50)),
                ..Response::html("slow")
            },
            _ => Response {
                status: 500,
                ..Response::html("boom")
            },
        })
        .expect("start");
        let t = std::time::Instant::now();
        let r = raw(
            server.addr(),
            "GET /slow HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        assert!(r.ends_with("slow") && t.elapsed() >= Duration::from_millis(50));
        let r = raw(
            server.addr(),
            "GET /x HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        assert!(r.starts_with("HTTP/1.1 500"));
    }
}
