//! Native runs of the mapper and the crawler over HTTP: what `exemplar learn`, `exemplar
//! crawl` and `./build.sh eval` share. Progress goes to a callback so the CLI can draw a bar
//! and tests can stay quiet.
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::crawler::{self, CrawlConfig, Crawler, TargetPage};
use crate::fetch::FetchResult;
use crate::http::{self, Client, ClientConfig};
use crate::mapper::{self, ExamplePage, MapConfig, Mapper, SiteMap};
use crate::pattern::{self, Pattern};

/// Fetches one page that must be HTML (the example, a page to classify).
///
/// # Errors
/// Network failure, an HTTP error status, a non-HTML response.
pub fn fetch_page(client: &Client, url: &str) -> Result<ExamplePage, String> {
    match client.get(url) {
        FetchResult::Failed(e) => Err(format!("{url}: {e}")),
        FetchResult::Response(r) if !(200..300).contains(&r.status) => {
            Err(format!("{url}: HTTP {}", r.status))
        }
        FetchResult::Response(r) if !r.is_html() => Err(format!(
            "{url}: not an HTML page ({})",
            r.media_type().unwrap_or_else(|| "no content type".into())
        )),
        FetchResult::Response(r) if r.truncated => Err(format!("{url}: page too large")),
        FetchResult::Response(r) => Ok(ExamplePage {
            url: if r.final_url.is_empty() {
                url.to_string()
            } else {
                r.final_url.clone()
            },
            content_type: r.header("content-type").map(str::to_string),
            body: r.body,
        }),
    }
}

/// What a learning run produced.
pub struct Learned {
    /// The pattern.
    pub pattern: Pattern,
    /// The site map it was learned from.
    pub map: SiteMap,
    /// Final counts of the mapping.
    pub progress: mapper::Progress,
    /// Why mapping stopped.
    pub stopped: Option<mapper::StopReason>,
    /// Wall time.
    pub elapsed: Duration,
    /// Core time and results.
    pub stats: http::RunStats,
}

/// Maps the site from `entry` and learns the pattern of pages like `example`.
///
/// # Errors
/// A bad example or entry, or no pattern (no target found).
pub fn learn(
    entry: &str,
    example_url: &str,
    config: MapConfig,
    client: &ClientConfig,
    progress: &mut dyn FnMut(&mapper::Progress, &str),
) -> Result<Learned, String> {
    let start = Instant::now();
    let client = Client::new(&ClientConfig {
        max_bytes: config.max_bytes,
        ..client.clone()
    });
    let example = fetch_page(&client, example_url).map_err(|e| format!("example page: {e}"))?;
    let workers = config.politeness.max_in_flight;
    let mut m = Mapper::new(entry, example, config).map_err(|e| e.to_string())?;
    let mut last = String::new();
    let stats = http::run(&mut m, &client, workers, |m| {
        for e in m.drain_events() {
            if let mapper::Event::Fetched { url, .. } = e {
                last = url;
            }
        }
        progress(&m.progress(), &last);
        true
    });
    let stopped = m.stopped();
    let prog = m.progress();
    let config = m.config().clone();
    let map = m.into_site_map();
    let pattern =
        pattern::learn_from_map(&map, &config, http::now_ms()).map_err(|e| e.to_string())?;
    Ok(Learned {
        pattern,
        map,
        progress: prog,
        stopped,
        elapsed: start.elapsed(),
        stats,
    })
}

/// What a crawl produced.
pub struct Crawled {
    /// Target URLs in the order found.
    pub targets: Vec<String>,
    /// Coverage against the pattern's known targets.
    pub coverage: crawler::Coverage,
    /// Final counts.
    pub progress: crawler::Progress,
    /// Why it stopped.
    pub stopped: Option<mapper::StopReason>,
    /// Wall time.
    pub elapsed: Duration,
    /// Core time and results.
    pub stats: http::RunStats,
    /// Stopped by [`Checkpoints::stop`] after saving; the counts are those of the saved state
    /// plus results that arrived while stopping.
    pub interrupted: bool,
}

/// Runs a pattern. Every target page is handed to `sink` (for exports) as it arrives.
///
/// # Errors
/// An invalid pattern, or an example page that cannot be fetched when verifying.
pub fn crawl(
    pattern: Pattern,
    config: CrawlConfig,
    verify: bool,
    client: &ClientConfig,
    sink: &mut dyn FnMut(&TargetPage) -> Result<(), String>,
    progress: &mut dyn FnMut(&crawler::Progress, &str),
) -> Result<Crawled, String> {
    crawl_from(
        CrawlStart::Pattern {
            pattern: Box::new(pattern),
            config: Box::new(config),
            verify,
        },
        client,
        sink,
        progress,
        None,
    )
}

/// Where a crawl starts.
pub enum CrawlStart {
    /// A new crawl of a pattern (with `verify`, the example page is fetched first and targets
    /// are checked against it).
    Pattern {
        /// The pattern.
        pattern: Box<Pattern>,
        /// Crawl settings.
        config: Box<CrawlConfig>,
        /// Verify targets with RTDM.
        verify: bool,
    },
    /// A crawl saved by [`Checkpoints`]: it goes on where it was saved (requests that were in
    /// flight are asked again; its settings and example page are the saved ones).
    Resume(Box<crawler::Snapshot>),
}

/// Saving a crawl as it goes, so that a killed or interrupted crawl resumes
/// ([`CrawlStart::Resume`]). A save always follows the targets handed to `sink` so far: a
/// caller that records its exports' sizes with the state can cut them back to it on resume.
pub struct Checkpoints<'a> {
    /// Time between saves.
    pub every: Duration,
    /// Stores the state; an error stops the crawl with that error.
    pub save: &'a mut dyn FnMut(crawler::Snapshot) -> Result<(), String>,
    /// Set from elsewhere (a signal handler) to save and stop at the next result; the crawl
    /// then returns with [`Crawled::interrupted`] set.
    pub stop: &'a AtomicBool,
}

/// [`crawl`] from a pattern or a saved state, optionally saving as it goes.
///
/// # Errors
/// An invalid pattern or state, an example page that cannot be fetched when verifying, an
/// error from `sink` or from saving.
pub fn crawl_from(
    start_from: CrawlStart,
    client: &ClientConfig,
    sink: &mut dyn FnMut(&TargetPage) -> Result<(), String>,
    progress: &mut dyn FnMut(&crawler::Progress, &str),
    mut checkpoints: Option<Checkpoints<'_>>,
) -> Result<Crawled, String> {
    let start = Instant::now();
    let (mut c, client) = match start_from {
        CrawlStart::Pattern {
            pattern,
            config,
            verify,
        } => {
            let client = Client::new(&ClientConfig {
                max_bytes: config.max_bytes,
                ..client.clone()
            });
            let example = if verify {
                Some(
                    fetch_page(&client, &pattern.example)
                        .map_err(|e| format!("example page: {e}"))?,
                )
            } else {
                None
            };
            let c = Crawler::new(*pattern, *config, example).map_err(|e| e.to_string())?;
            (c, client)
        }
        CrawlStart::Resume(snapshot) => {
            let c = Crawler::restore(*snapshot).map_err(|e| format!("saved crawl: {e}"))?;
            let client = Client::new(&ClientConfig {
                max_bytes: c.config().max_bytes,
                ..client.clone()
            });
            (c, client)
        }
    };
    let workers = c.politeness().max_in_flight;
    let mut error: Option<String> = None;
    let mut interrupted = false;
    let mut last = String::new();
    let mut saved_at = Instant::now();
    let stats = http::run(&mut c, &client, workers, |c| {
        if interrupted || error.is_some() {
            // Stopping: results still arriving are not handed out (the saved state asks for
            // them again on resume).
            c.drain_events();
            return false;
        }
        for e in c.drain_events() {
            match e {
                crawler::Event::Target(t) => {
                    last = t.url.clone();
                    if let Err(e) = sink(&t) {
                        error = Some(e);
                        return false;
                    }
                }
                crawler::Event::Page { url, .. } => last = url,
                _ => {}
            }
        }
        progress(&c.progress(), &last);
        if let Some(cp) = checkpoints.as_mut() {
            let stop = cp.stop.load(Ordering::SeqCst);
            if stop || saved_at.elapsed() >= cp.every {
                if let Err(e) = (cp.save)(c.snapshot()) {
                    error = Some(e);
                    return false;
                }
                saved_at = Instant::now();
                if stop {
                    interrupted = true;
                    return false;
                }
            }
        }
        true
    });
    if let Some(e) = error {
        return Err(e);
    }
    Ok(Crawled {
        targets: c.targets().to_vec(),
        coverage: c.coverage(),
        progress: c.progress(),
        stopped: c.stopped(),
        elapsed: start.elapsed(),
        stats,
        interrupted,
    })
}

/// A one-line progress display on stderr, drawn only when stderr is a terminal and at most
/// ten times a second.
pub struct ProgressLine {
    on: bool,
    last: Option<Instant>,
    start: Instant,
}

impl ProgressLine {
    /// A display (off when stderr is piped, or when `quiet`).
    pub fn new(quiet: bool) -> ProgressLine {
        ProgressLine {
            on: !quiet && std::io::stderr().is_terminal(),
            last: None,
            start: Instant::now(),
        }
    }

    /// Draws `what` (counts) and the current URL.
    pub fn draw(&mut self, fetched: usize, what: &str, url: &str) {
        if !self.on
            || self
                .last
                .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        self.last = Some(Instant::now());
        let secs = self.start.elapsed().as_secs_f64().max(0.001);
        let url: String = url
            .chars()
            .rev()
            .take(50)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[K{fetched} fetched, {what}, {:.1} pages/s  {url}",
            fetched as f64 / secs
        );
        let _ = err.flush();
    }

    /// Clears the line.
    pub fn finish(&mut self) {
        if self.on {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}
