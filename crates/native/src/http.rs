//! The native driver: performs the core's fetch requests over HTTP (ureq) with a pool of
//! worker threads and pumps a [`Machine`] until it is done. Native only; the wasm build uses
//! the browser's `fetch`.
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::fetch::{FetchRequest, FetchResponse, FetchResult, Machine, Poll};

pub use crate::fetch::USER_AGENT;

/// HTTP client settings.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Body bytes read at most; past it the response is marked truncated.
    pub max_bytes: usize,
    /// Whole-request timeout.
    pub timeout: Duration,
    /// Redirects followed at most.
    pub max_redirects: u32,
    /// `User-Agent`.
    pub user_agent: String,
    /// Cookies sent with the requests they match (`--cookies FILE`: a crawl behind a login).
    pub cookies: Option<Arc<crate::cookies::CookieJar>>,
    /// Pages drawn by scripts are rendered with it (`--render`): a GET answered with HTML is
    /// then the browser's DOM where [`crate::render::Renderer::draw`] finds it worth it.
    pub renderer: Option<Arc<crate::render::Renderer>>,
    /// Where connections to some hosts go instead of where their names point (`--resolve`).
    pub resolve: Vec<crate::resolve::Resolve>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            max_bytes: 8 << 20,
            timeout: Duration::from_secs(30),
            max_redirects: 10,
            user_agent: USER_AGENT.to_string(),
            cookies: None,
            renderer: None,
            resolve: Vec::new(),
        }
    }
}

/// A blocking HTTP client producing [`FetchResult`]s. Redirects are followed by hand so
/// that one leaving the site is reported (status 3xx, `final_url` = where it pointed) instead
/// of fetched.
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    max_bytes: usize,
    max_redirects: u32,
    cookies: Option<Arc<crate::cookies::CookieJar>>,
    renderer: Option<Arc<crate::render::Renderer>>,
}

impl Client {
    /// A client.
    pub fn new(config: &ClientConfig) -> Client {
        let settings = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(config.timeout))
            .user_agent(config.user_agent.as_str())
            .build();
        let agent = if config.resolve.is_empty() {
            settings.new_agent()
        } else {
            ureq::Agent::with_parts(
                settings,
                ureq::unversioned::transport::DefaultConnector::new(),
                crate::resolve::Overrides::new(config.resolve.clone()),
            )
        };
        Client {
            agent,
            max_bytes: config.max_bytes,
            max_redirects: config.max_redirects,
            cookies: config.cookies.clone(),
            renderer: config.renderer.clone(),
        }
    }

    /// GET `url`, following redirects within its site.
    pub fn get(&self, url: &str) -> FetchResult {
        self.fetch(url, None)
    }

    /// The request the core asks for: GET, or POST with `post`; redirects within the site are
    /// followed with GET (a 307/308 after a POST repeats the POST). With a renderer, a page
    /// got by GET may come back drawn ([`ClientConfig::renderer`]).
    pub fn fetch(&self, url: &str, post: Option<&crate::fetch::PostBody>) -> FetchResult {
        let mut result = self.fetch_only(url, post);
        if let (Some(renderer), None, FetchResult::Response(r)) =
            (&self.renderer, post, &mut result)
        {
            renderer.draw(r);
        }
        result
    }

    /// [`Client::fetch`] without rendering.
    pub fn fetch_only(&self, url: &str, post: Option<&crate::fetch::PostBody>) -> FetchResult {
        let site = crate::canon::site_key(url);
        let mut current = url.to_string();
        let mut post = post;
        for _ in 0..=self.max_redirects {
            let r = self.get_once(&current, post);
            let FetchResult::Response(resp) = &r else {
                return r;
            };
            if !matches!(resp.status, 301 | 302 | 303 | 307 | 308) {
                return r;
            }
            let Some(next) = resp
                .header("location")
                .and_then(|l| url::Url::parse(&current).ok()?.join(l).ok())
            else {
                return r;
            };
            let next = next.to_string();
            if crate::canon::site_key(&next) != site {
                let mut resp = resp.clone();
                resp.final_url = next;
                return FetchResult::Response(resp);
            }
            if !matches!(resp.status, 307 | 308) {
                post = None;
            }
            current = next;
        }
        FetchResult::Failed(format!("more than {} redirects", self.max_redirects))
    }

    fn get_once(&self, url: &str, post: Option<&crate::fetch::PostBody>) -> FetchResult {
        // Matched at each hop: a redirect may lead where other cookies apply.
        let cookie = self
            .cookies
            .as_ref()
            .and_then(|jar| jar.header(url, now_ms() / 1000));
        let sent = match (post, cookie) {
            (Some(p), cookie) => {
                let mut req = self
                    .agent
                    .post(url)
                    .header("content-type", p.content_type.as_str());
                if let Some(c) = cookie {
                    req = req.header("cookie", c.as_str());
                }
                req.send(p.body.as_bytes())
            }
            (None, Some(c)) => self.agent.get(url).header("cookie", c.as_str()).call(),
            (None, None) => self.agent.get(url).call(),
        };
        let mut resp = match sent {
            Ok(r) => r,
            Err(e) => return FetchResult::Failed(e.to_string()),
        };
        let status = resp.status().as_u16();
        let final_url = url.to_string();
        let mut headers: Vec<(String, String)> = resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        crate::fetch::retry_after_as_seconds(&mut headers, now_ms());
        let limit = self.max_bytes as u64;
        let (body, truncated) = match resp.body_mut().with_config().limit(limit).read_to_vec() {
            Ok(b) => (b, false),
            Err(ureq::Error::BodyExceedsLimit(_)) => (Vec::new(), true),
            Err(e) => return FetchResult::Failed(format!("reading body: {e}")),
        };
        FetchResult::Response(FetchResponse {
            status,
            final_url,
            headers,
            body,
            truncated,
        })
    }
}

/// Milliseconds since the Unix epoch (the drivers' clock).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// What a run cost the core.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunStats {
    /// Results handed to the machine.
    pub results: usize,
    /// Time spent inside the machine (`poll` + `handle`: parsing, similarity, bookkeeping),
    /// on the driver thread; network waiting is not included.
    pub core_time: Duration,
    /// CPU time of the driver thread over the run (the machine's work plus the loop around
    /// it; waiting for responses costs none). Linux only (`/proc/thread-self/stat`, 10 ms
    /// ticks); zero elsewhere. Unlike `core_time` it does not grow while the thread waits for a
    /// core on a busy machine.
    pub driver_cpu: Duration,
    /// Wall time of the run.
    pub wall_time: Duration,
}

/// CPU seconds (user + system) in a `/proc/.../stat` file (Linux), 0 when unreadable.
pub fn proc_cpu_seconds(path: &str) -> f64 {
    let stat = std::fs::read_to_string(path).unwrap_or_default();
    // Fields after the command name (which may contain spaces) start after the last ')'.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of stat, i.e. 11 and 12 after the state field;
    // USER_HZ is 100 on Linux.
    (ticks(11) + ticks(12)) / 100.0
}

/// How often [`run`] calls its `after` hook while no result arrives (a slow server, a long
/// politeness delay), so that a stop request or a progress display is not held up by them.
const TICK: Duration = Duration::from_millis(200);

/// Pumps `machine` with `workers` threads until it is done. `after` runs after every result and
/// at least every 200 ms (`TICK`) while waiting (drain events, draw progress, save); returning
/// `false` from it stops the run at once: the machine is cancelled and requests still in flight
/// are abandoned (their threads end when their fetch does), not waited for.
pub fn run<M: Machine>(
    machine: &mut M,
    client: &Client,
    workers: usize,
    mut after: impl FnMut(&mut M) -> bool,
) -> RunStats {
    let mut stats = RunStats::default();
    let (req_tx, req_rx) = mpsc::channel::<FetchRequest>();
    let req_rx = Arc::new(std::sync::Mutex::new(req_rx));
    let (res_tx, res_rx) = mpsc::channel::<(u64, FetchResult)>();
    let mut handles = Vec::new();
    for _ in 0..workers.max(1) {
        let rx = Arc::clone(&req_rx);
        let tx = res_tx.clone();
        let client = client.clone();
        handles.push(std::thread::spawn(move || {
            loop {
                let next = match rx.lock() {
                    Ok(guard) => guard.recv(),
                    Err(_) => break,
                };
                let Ok(req) = next else { break };
                let result = client.fetch(&req.url, req.post.as_ref());
                if tx.send((req.id, result)).is_err() {
                    break;
                }
            }
        }));
    }
    drop(res_tx);
    let start = Instant::now();
    let cpu_start = proc_cpu_seconds("/proc/thread-self/stat");
    let base = now_ms();
    let clock = || base + start.elapsed().as_millis() as u64;
    let mut in_flight = 0usize;
    let mut abandoned = false;
    let mut last_after = Instant::now();
    loop {
        let t = Instant::now();
        let polled = machine.poll(clock());
        stats.core_time += t.elapsed();
        let wait = match polled {
            Poll::Fetch(req) => {
                in_flight += 1;
                if req_tx.send(req).is_err() {
                    break;
                }
                continue;
            }
            Poll::Done => break,
            Poll::WaitUntil(t) => Duration::from_millis(t.saturating_sub(clock())).min(TICK),
            Poll::Busy if in_flight == 0 => break,
            Poll::Busy => TICK,
        };
        let got = match res_rx.recv_timeout(wait) {
            Ok(r) => Some(r),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        if let Some((id, result)) = got {
            in_flight -= 1;
            stats.results += 1;
            let t = Instant::now();
            machine.handle(id, result, clock());
            stats.core_time += t.elapsed();
        } else if last_after.elapsed() < TICK {
            continue;
        }
        last_after = Instant::now();
        if !after(machine) {
            machine.cancel();
            abandoned = true;
            break;
        }
    }
    if !abandoned {
        // The last poll may have taken results (a machine takes them in the order it asked for
        // them, some inside `poll`): their events are read once more.
        after(machine);
    }
    drop(req_tx);
    if !abandoned {
        for h in handles {
            let _ = h.join();
        }
    }
    stats.wall_time = start.elapsed();
    stats.driver_cpu =
        Duration::from_secs_f64((proc_cpu_seconds("/proc/thread-self/stat") - cpu_start).max(0.0));
    stats
}
