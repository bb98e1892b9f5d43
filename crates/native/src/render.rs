//! Rendering pages drawn by scripts in headless Chromium (`--render`): Debian's `chromium`,
//! driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: no port that other
//! programs of the machine could reach).
//!
//! Contract: [`Renderer::render`] loads a URL in a fresh tab, lets its scripts run with virtual
//! time (a page that draws its items after a 10 s timer is drawn at once), scrolls to the bottom
//! and presses a "load more" button until no new content appears (infinite scrolling, bounded
//! by [`RenderConfig::max_scrolls`]; the step is `extension/lib/page-steps.js`'s `moreStep`),
//! and returns the DOM serialised as HTML. The browser is started on the first render and ended
//! with the renderer; one that hangs or dies is ended and started again on the next render.
//! Images are not loaded. The user's cookies (`--cookies`) are given to the browser, never
//! written anywhere. Renders are serialised: one page at a time (rendering is costly; the
//! crawl's politeness applies to the fetches that precede each render).
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cookies::CookieJar;
use crate::drawn::{self, Difference, Ledger};
use crate::fetch::FetchResponse;

/// Says in `Content-Type` that the body is UTF-8: the rendered DOM is text, whatever charset
/// the fetched bytes had (a `<meta charset>` left in it must not decode it again).
fn set_utf8(response: &mut FetchResponse) {
    response
        .headers
        .retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
    response
        .headers
        .push(("content-type".into(), "text/html; charset=utf-8".into()));
}

/// The steps run inside a rendered page, shared with the extension (`moreStep`: scroll to the
/// end, press a "load more" button).
const PAGE_STEPS: &str = include_str!("../../../extension/lib/page-steps.js");

/// The expression that runs one `moreStep` in the page: the module's functions as plain ones.
fn more_step() -> String {
    let words = serde_json::to_string(&crate::drawn::load_more_words()).unwrap_or_default();
    let functions = PAGE_STEPS
        .replace("export function", "function")
        .replace("export async function", "async function");
    format!("(function () {{\n{functions}\nreturn moreStep({words});\n}})()")
}

/// Where Debian installs Chromium.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// The variable naming another Chromium (or Chrome) binary.
pub const CHROMIUM_VAR: &str = "EXEMPLAR_CHROMIUM";

/// Rendering settings.
#[derive(Clone, Debug)]
pub struct RenderConfig {
    /// The Chromium binary.
    pub chromium: PathBuf,
    /// Real time one page may take, load and scrolling together.
    pub timeout: Duration,
    /// Virtual time the page's scripts get to draw it after it loads (timers fire at once).
    pub settle_ms: u64,
    /// Scrolls to the bottom at most (infinite scrolling); each waits for what it loads.
    pub max_scrolls: u32,
    /// Virtual time after each scroll.
    pub scroll_ms: u64,
    /// `User-Agent`.
    pub user_agent: String,
    /// The user's cookies.
    pub cookies: Option<Arc<CookieJar>>,
    /// Chromium's `--host-resolver-rules` (`--resolve`: [`crate::resolve::chromium_rules`]).
    pub host_rules: Option<String>,
}

impl Default for RenderConfig {
    fn default() -> Self {
        RenderConfig {
            chromium: std::env::var_os(CHROMIUM_VAR)
                .map_or_else(|| PathBuf::from(CHROMIUM), PathBuf::from),
            timeout: Duration::from_secs(60),
            settle_ms: 15_000,
            max_scrolls: 200,
            scroll_ms: 2_000,
            user_agent: crate::fetch::USER_AGENT.to_string(),
            cookies: None,
            host_rules: None,
        }
    }
}

/// A page as the browser drew it.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The DOM serialised (`document.documentElement.outerHTML`).
    pub html: String,
    /// `location.href` once drawn.
    pub url: String,
    /// Scrolls that brought new content.
    pub scrolls: u32,
}

/// A headless Chromium, started when first needed, and what rendering has changed so far.
pub struct Renderer {
    config: RenderConfig,
    browser: Mutex<Option<Browser>>,
    ledger: Mutex<Ledger>,
    rendered: AtomicUsize,
    failed: AtomicUsize,
    /// The first failure, for the report.
    first_error: Mutex<Option<String>>,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("chromium", &self.config.chromium)
            .field("rendered", &self.rendered())
            .finish()
    }
}

impl Renderer {
    /// A renderer; the browser starts with the first render.
    ///
    /// # Errors
    /// No Chromium at the configured path.
    pub fn new(config: RenderConfig) -> Result<Renderer, String> {
        if !config.chromium.is_file() {
            return Err(format!(
                "rendering needs Chromium at {} (Debian: apt install chromium; {CHROMIUM_VAR}=PATH names another)",
                config.chromium.display()
            ));
        }
        Ok(Renderer {
            config,
            browser: Mutex::new(None),
            ledger: Mutex::new(Ledger::new()),
            rendered: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            first_error: Mutex::new(None),
        })
    }

    /// Renders a fetched page when it may be drawn by scripts and rendering pages of its shape
    /// has changed something ([`Ledger`]): the body becomes the rendered DOM (UTF-8, said so
    /// in `Content-Type`). A page that fails to render keeps its fetched body; the failure is
    /// counted ([`Renderer::failed`], [`Renderer::first_error`]).
    pub fn draw(&self, response: &mut FetchResponse) {
        if !(200..300).contains(&response.status) || response.truncated || !response.is_html() {
            return;
        }
        let url = response.final_url.clone();
        let wants = self
            .ledger
            .lock()
            .map(|l| l.wants(&url, &response.body))
            .unwrap_or(false);
        if !wants {
            return;
        }
        let settled = self.ledger.lock().is_ok_and(|l| l.settled(&url));
        let drawn = if settled {
            self.render(&url).map(|r| r.html)
        } else {
            self.compare(&url, &response.body, response.header("content-type"))
                .map(|(difference, rendered)| {
                    if let Ok(mut l) = self.ledger.lock() {
                        l.record(&url, &difference);
                    }
                    rendered.html
                })
        };
        match drawn {
            Ok(html) => {
                response.body = html.into_bytes();
                set_utf8(response);
            }
            Err(e) => {
                if let Ok(mut first) = self.first_error.lock() {
                    first.get_or_insert(e);
                }
            }
        }
    }

    /// Renders the page at `url`, fetched as `body`, and compares the two: how the rendered
    /// page differs in links and text ([`drawn::compare`]).
    ///
    /// # Errors
    /// As [`Renderer::render`].
    pub fn compare(
        &self,
        url: &str,
        body: &[u8],
        content_type: Option<&str>,
    ) -> Result<(Difference, Rendered), String> {
        let rendered = self.render(url)?;
        let opts = crate::dom::ParseOptions::default();
        let before = crate::dom::Page::parse(body, url, content_type, &opts);
        let after = crate::dom::Page::from_html_with(&rendered.html, url, &opts);
        let difference = match (before, after) {
            (Ok(b), Ok(a)) => drawn::compare(&b, &a),
            _ => Difference::default(),
        };
        Ok((difference, rendered))
    }

    /// The kinds of page (URL shapes, `host/author/*`) no longer rendered: probed, never changed.
    pub fn fetched_only(&self) -> Vec<String> {
        self.ledger
            .lock()
            .map(|l| l.fetched_only())
            .unwrap_or_default()
    }

    /// The first render that failed, why.
    pub fn first_error(&self) -> Option<String> {
        self.first_error.lock().ok().and_then(|e| e.clone())
    }

    /// Pages rendered so far.
    pub fn rendered(&self) -> usize {
        self.rendered.load(Ordering::Relaxed)
    }

    /// Renders that failed (the fetched page was kept).
    pub fn failed(&self) -> usize {
        self.failed.load(Ordering::Relaxed)
    }

    /// Loads `url` in the browser and returns its DOM once drawn.
    ///
    /// # Errors
    /// The browser cannot start, the page does not load or takes longer than the timeout.
    pub fn render(&self, url: &str) -> Result<Rendered, String> {
        let mut slot = self
            .browser
            .lock()
            .map_err(|_| "the browser's lock is poisoned".to_string())?;
        if slot.is_none() {
            *slot = Some(Browser::launch(&self.config)?);
        }
        let Some(browser) = slot.as_mut() else {
            return Err("no browser".into());
        };
        let deadline = Instant::now() + self.config.timeout;
        let result = browser.render(url, &self.config, deadline);
        match &result {
            Ok(_) => {
                self.rendered.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                // A browser that failed a page may be stuck in it: the next render starts anew.
                *slot = None;
            }
        }
        result.map_err(|e| format!("rendering {url}: {e}"))
    }
}

/// The user's cookies for the site of `url`, as the protocol sets them. Each is set for the
/// URL's origin, its port and scheme said: Chromium binds a cookie to the port and scheme it
/// was set from (80 when not said), and a cookie file names neither.
fn browser_cookies(jar: Option<&CookieJar>, url: &str) -> Vec<Value> {
    let (Some(jar), Ok(u)) = (jar, url::Url::parse(url)) else {
        return Vec::new();
    };
    let Some(host) = u.host_str().map(str::to_ascii_lowercase) else {
        return Vec::new();
    };
    let origin = u.origin().ascii_serialization();
    let port = u.port_or_known_default().unwrap_or(80);
    let scheme = if u.scheme() == "https" {
        "Secure"
    } else {
        "NonSecure"
    };
    jar.for_browser()
        .iter()
        .filter(|c| host == c.domain || (c.subdomains && host.ends_with(&format!(".{}", c.domain))))
        .map(|c| {
            let mut v = json!({
                "name": c.name,
                "value": c.value,
                "url": format!("{origin}{}", c.path),
                "path": c.path,
                "secure": c.secure,
                "sourcePort": port,
                "sourceScheme": scheme,
            });
            if c.subdomains {
                v["domain"] = json!(format!(".{}", c.domain));
            }
            if c.expires > 0 {
                v["expires"] = json!(c.expires);
            }
            v
        })
        .collect()
}

/// One Chromium process and its protocol pipe.
struct Browser {
    child: Child,
    to: std::io::PipeWriter,
    from: mpsc::Receiver<Value>,
    /// Events read while waiting for an answer.
    events: VecDeque<Value>,
    next_id: u64,
    profile: PathBuf,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Whether this process runs as root, where Chromium's sandbox cannot start.
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

impl Browser {
    fn launch(config: &RenderConfig) -> Result<Browser, String> {
        static PROFILES: AtomicUsize = AtomicUsize::new(0);
        let profile = std::env::temp_dir().join(format!(
            "exemplar-chromium-{}-{}",
            std::process::id(),
            PROFILES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&profile).map_err(|e| format!("{}: {e}", profile.display()))?;
        // Chromium reads the protocol from fd 3 and writes it to fd 4.
        let (cmd_read, cmd_write) = std::io::pipe().map_err(|e| e.to_string())?;
        let (out_read, out_write) = std::io::pipe().map_err(|e| e.to_string())?;
        let mut command = Command::new(&config.chromium);
        command
            .arg("--headless")
            .arg("--remote-debugging-pipe")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--user-agent={}", config.user_agent))
            .args([
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-gpu",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-sync",
                "--disable-component-update",
                "--disable-default-apps",
                "--mute-audio",
                "--hide-scrollbars",
                "--blink-settings=imagesEnabled=false",
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(rules) = &config.host_rules {
            command.arg(format!("--host-resolver-rules={rules}"));
        }
        if is_root() {
            // Chromium refuses to run as root with its sandbox; CI containers run as root.
            command.arg("--no-sandbox");
        }
        {
            use std::os::fd::AsRawFd;
            let (r, w) = (cmd_read.as_raw_fd(), out_write.as_raw_fd());
            // SAFETY: between fork and exec only async-signal-safe calls are made (fcntl, dup2);
            // the descriptors are open in the child, as in the parent, until exec.
            unsafe {
                command.pre_exec(move || {
                    // Moved above 3 and 4 first: either end may itself be 3 or 4. The copies
                    // close at exec; the ones dup2 makes stay open.
                    let r = libc::fcntl(r, libc::F_DUPFD_CLOEXEC, 10);
                    let w = libc::fcntl(w, libc::F_DUPFD_CLOEXEC, 10);
                    if r < 0 || w < 0 || libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let child = command
            .spawn()
            .map_err(|e| format!("starting {}: {e}", config.chromium.display()))?;
        drop(cmd_read);
        drop(out_write);
        // Messages are NUL-terminated JSON; a thread reads them so waits can time out.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(out_read);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                let Ok(v) = serde_json::from_slice::<Value>(&buf) else {
                    continue;
                };
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut browser = Browser {
            child,
            to: cmd_write,
            from: rx,
            events: VecDeque::new(),
            next_id: 0,
            profile,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        browser.call(None, "Browser.getVersion", json!({}), deadline)?;
        Ok(browser)
    }

    /// Sends a command and waits for its answer; events met meanwhile are queued.
    fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).map_err(|e| e.to_string())?;
        bytes.push(0);
        self.to
            .write_all(&bytes)
            .map_err(|e| format!("the browser closed its pipe ({e})"))?;
        loop {
            let v = self.next_message(deadline, method)?;
            if v.get("id").and_then(Value::as_u64) == Some(id) {
                if let Some(e) = v.get("error") {
                    return Err(format!(
                        "{method}: {}",
                        e.get("message").and_then(Value::as_str).unwrap_or("error")
                    ));
                }
                return Ok(v.get("result").cloned().unwrap_or(Value::Null));
            }
            if v.get("method").is_some() {
                self.events.push_back(v);
            }
        }
    }

    fn next_message(&mut self, deadline: Instant, waiting_for: &str) -> Result<Value, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.from.recv_timeout(left) {
            Ok(v) => Ok(v),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                Err(format!("timed out waiting for {waiting_for}"))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err("the browser ended".into()),
        }
    }

    /// Waits for the event `method` of `session`.
    fn wait_event(
        &mut self,
        session: &str,
        method: &str,
        deadline: Instant,
    ) -> Result<Value, String> {
        let is_it = |v: &Value| {
            v.get("method").and_then(Value::as_str) == Some(method)
                && v.get("sessionId").and_then(Value::as_str) == Some(session)
        };
        if let Some(i) = self.events.iter().position(is_it) {
            return Ok(self.events.remove(i).unwrap_or(Value::Null));
        }
        loop {
            let v = self.next_message(deadline, method)?;
            if is_it(&v) {
                return Ok(v);
            }
        }
    }

    /// Lets the page's scripts run for `ms` of virtual time (fetches pause the clock, timers
    /// fire without the wait).
    fn run_for(&mut self, session: &str, ms: u64, deadline: Instant) -> Result<(), String> {
        self.events.clear();
        self.call(
            Some(session),
            "Emulation.setVirtualTimePolicy",
            json!({ "policy": "pauseIfNetworkFetchesPending", "budget": ms }),
            deadline,
        )?;
        self.wait_event(session, "Emulation.virtualTimeBudgetExpired", deadline)?;
        Ok(())
    }

    fn eval(
        &mut self,
        session: &str,
        expression: &str,
        deadline: Instant,
    ) -> Result<Value, String> {
        let r = self.call(
            Some(session),
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
            deadline,
        )?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(format!("script error: {e}"));
        }
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    fn render(
        &mut self,
        url: &str,
        config: &RenderConfig,
        deadline: Instant,
    ) -> Result<Rendered, String> {
        let target = self.call(
            None,
            "Target.createTarget",
            json!({ "url": "about:blank" }),
            deadline,
        )?;
        let target_id = target
            .get("targetId")
            .and_then(Value::as_str)
            .ok_or("no target id")?
            .to_string();
        let result = self.render_in(&target_id, url, config, deadline);
        let _ = self.call(
            None,
            "Target.closeTarget",
            json!({ "targetId": target_id }),
            deadline.max(Instant::now() + Duration::from_secs(5)),
        );
        result
    }

    fn render_in(
        &mut self,
        target_id: &str,
        url: &str,
        config: &RenderConfig,
        deadline: Instant,
    ) -> Result<Rendered, String> {
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
            deadline,
        )?;
        let session = attached
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or("no session id")?
            .to_string();
        let s = session.as_str();
        let cookies = browser_cookies(config.cookies.as_deref(), url);
        if !cookies.is_empty() {
            self.call(
                Some(s),
                "Network.setCookies",
                json!({ "cookies": cookies }),
                deadline,
            )?;
        }
        // Time stands still until the navigation starts; then the page has `settle_ms` of it.
        self.call(
            Some(s),
            "Emulation.setVirtualTimePolicy",
            json!({ "policy": "pause" }),
            deadline,
        )?;
        let nav = self.call(Some(s), "Page.navigate", json!({ "url": url }), deadline)?;
        if let Some(e) = nav.get("errorText").and_then(Value::as_str) {
            return Err(e.to_string());
        }
        self.run_for(s, config.settle_ms, deadline)?;
        // Scroll (and press "load more") until the page stops growing: twice in a row nothing
        // new.
        const SIZE: &str = "document.documentElement.scrollHeight + ':' + document.getElementsByTagName('*').length + ':' + (document.body ? document.body.innerText.length : 0)";
        let mut size = self.eval(s, SIZE, deadline)?;
        let step = more_step();
        let mut scrolls = 0;
        let mut still = 0;
        for _ in 0..config.max_scrolls {
            self.eval(s, &step, deadline)?;
            self.run_for(s, config.scroll_ms, deadline)?;
            let now = self.eval(s, SIZE, deadline)?;
            if now == size {
                still += 1;
                if still >= 2 {
                    break;
                }
            } else {
                still = 0;
                scrolls += 1;
                size = now;
            }
        }
        let html = self
            .eval(s, "document.documentElement.outerHTML", deadline)?
            .as_str()
            .ok_or("the page has no document")?
            .to_string();
        let href = self.eval(s, "location.href", deadline)?;
        Ok(Rendered {
            html,
            url: href.as_str().unwrap_or(url).to_string(),
            scrolls,
        })
    }
}
