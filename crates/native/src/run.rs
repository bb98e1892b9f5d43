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
    // A site that says "come back later" (429, 503) is asked again after the wait, as the
    // machines ask again.
    let max_wait = crate::fetch::Politeness::default().max_crawl_delay_ms;
    // A POST key (`action#exemplar-post=body`, [`example_post`]) is that POST.
    let (target, body) = crate::fetch::split_post_key(url);
    let post = body.map(|b| crate::fetch::PostBody {
        body: b.to_string(),
        content_type: crate::fetch::URLENCODED.to_string(),
    });
    let mut attempt = 0;
    let answer = loop {
        attempt += 1;
        let answer = client.fetch(target, post.as_ref());
        let wait = match &answer {
            FetchResult::Response(r) => crate::fetch::page_retry_wait_ms(r, attempt, max_wait),
            FetchResult::Failed(_) => None,
        };
        match wait {
            Some(ms) => std::thread::sleep(Duration::from_millis(ms)),
            None => break answer,
        }
    };
    match answer {
        FetchResult::Failed(e) => Err(format!("{url}: {e}")),
        FetchResult::Response(r) if !(200..300).contains(&r.status) => {
            Err(format!("{url}: HTTP {}", r.status))
        }
        FetchResult::Response(r) if !r.is_html() => Err(format!(
            "{url}: not an HTML page ({})",
            r.media_type().unwrap_or_else(|| "no content type".into())
        )),
        FetchResult::Response(r) if r.truncated => Err(format!("{url}: page too large")),
        FetchResult::Response(r) if post.is_some() && !answered_at(target, &r.final_url) => {
            Err(format!(
                "{target}: the form's POST was answered by a redirect to {} (the values were refused?)",
                r.final_url
            ))
        }
        FetchResult::Response(r) => Ok(ExamplePage {
            url: if r.final_url.is_empty() || post.is_some() {
                url.to_string()
            } else {
                r.final_url.clone()
            },
            content_type: r.header("content-type").map(str::to_string),
            body: r.body,
        }),
    }
}

/// Whether a response whose final URL is `final_url` answered `url` itself (no redirect).
fn answered_at(url: &str, final_url: &str) -> bool {
    final_url.is_empty() || crate::canon::canonicalize(url) == crate::canon::canonicalize(final_url)
}

/// The key of an example page that is a form's answer to a POST of `data` (`name=value&…`,
/// as `curl --data` takes it) to `action`: the POST key [`fetch_page`] fetches. The fields
/// `data` leaves out — a view state, a hidden token, the other selects — keep the values of
/// the form on the `entry` page that posts to `action`, as a browser would send them, so the
/// user names only what they chose. Without such a form, `data` is sent as given.
///
/// # Errors
/// An `action` that is not an http(s) URL, or an entry page that cannot be fetched.
pub fn example_post(
    client: &Client,
    entry: &str,
    action: &str,
    data: &str,
) -> Result<String, String> {
    let target = crate::canon::canonicalize(action.split('#').next().unwrap_or(action))
        .ok_or_else(|| format!("{action}: not an http(s) URL"))?;
    let given: Vec<(String, String)> = url::form_urlencoded::parse(data.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let pairs: Vec<(&str, &str)> = given
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let page = fetch_page(client, entry).map_err(|e| format!("entry page: {e}"))?;
    let (html, _) = crate::dom::text::decode(&page.body, page.content_type.as_deref());
    let page =
        crate::dom::Page::from_html(&html, &page.url).map_err(|e| format!("entry page: {e}"))?;
    let form = exemplar_core::forms::triage(&page).into_iter().find(|f| {
        f.method == exemplar_core::forms::Method::Post
            && crate::canon::canonicalize(f.action.split('#').next().unwrap_or("")).as_deref()
                == Some(target.as_str())
    });
    let body = match form {
        Some(f) => f.encode(&pairs),
        None => {
            let mut out = String::new();
            for (k, v) in &given {
                if !out.is_empty() {
                    out.push('&');
                }
                exemplar_core::forms::urlencode_into(&mut out, k);
                out.push('=');
                exemplar_core::forms::urlencode_into(&mut out, v);
            }
            out
        }
    };
    Ok(crate::fetch::post_key(&target, &body))
}

/// The data fields of a learned pattern's targets ([`exemplar_core::fields`]): induced from the
/// `example` and the pattern's known targets [`exemplar_core::fields::sample_of`] picks,
/// fetched again with `client` (rendered when it renders), `delay_ms` apart. Returns the fields
/// and the number of pages they were induced from; pages that fail are left out.
pub fn learn_fields(
    client: &Client,
    pattern: &Pattern,
    example: &ExamplePage,
    delay_ms: u64,
) -> (Vec<exemplar_core::fields::Field>, usize) {
    let parse = |body: &[u8], content_type: Option<&str>| {
        let (html, _) = crate::dom::text::decode(body, content_type);
        crate::dom::dom::Document::parse(&html).ok()
    };
    let mut docs: Vec<crate::dom::dom::Document> = Vec::new();
    docs.extend(parse(&example.body, example.content_type.as_deref()));
    let sample = exemplar_core::fields::sample_of(&pattern.known_targets, &example.url);
    for (i, url) in sample.into_iter().enumerate() {
        if i > 0 && delay_ms > 0 {
            std::thread::sleep(Duration::from_millis(delay_ms));
        }
        if let Ok(page) = fetch_page(client, url) {
            docs.extend(parse(&page.body, page.content_type.as_deref()));
        }
    }
    let n = docs.len();
    (exemplar_core::fields::induce(&docs), n)
}

/// What a learning run produced.
pub struct Learned {
    /// The pattern.
    pub pattern: Pattern,
    /// The site map it was learned from.
    pub map: SiteMap,
    /// Final counts of the mapping.
    pub progress: mapper::Progress,
    /// The links the trap guard refused while mapping, by reason.
    pub traps: Vec<crate::canon::Refusal>,
    /// Why mapping stopped.
    pub stopped: Option<mapper::StopReason>,
    /// Wall time.
    pub elapsed: Duration,
    /// Core time and results.
    pub stats: http::RunStats,
    /// θ lowered from mapping's, when only the example reached it
    /// ([`pattern::lowered_threshold`]); the pattern's θ is then this one's `to`.
    pub lowered: Option<pattern::LoweredThreshold>,
    /// The θ the scores would have given, not taken because mapping's θ was the user's
    /// ([`Mapped::learn_at_given_threshold`]); the pattern's θ is mapping's.
    pub cut_not_taken: Option<pattern::LoweredThreshold>,
    /// The sitemaps this run did not read, or not all of: URL and why.
    pub sitemaps_not_read: Vec<(String, String)>,
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
    map_site(
        MapStart::Pages {
            entry: entry.to_string(),
            example: example_url.to_string(),
            config: Box::new(config),
        },
        client,
        progress,
        None,
    )?
    .learn()
}

/// Where a mapping starts.
pub enum MapStart {
    /// A new mapping from `entry`; the example page is fetched first.
    Pages {
        /// The entry URL.
        entry: String,
        /// The example page's URL.
        example: String,
        /// Mapping settings.
        config: Box<MapConfig>,
    },
    /// A new mapping from `entry` with the example page given (fetched, or rendered:
    /// [`choose_rendering`]).
    Fetched {
        /// The entry URL.
        entry: String,
        /// The example page.
        example: ExamplePage,
        /// Mapping settings.
        config: Box<MapConfig>,
    },
    /// A mapping saved by [`Checkpoints`]: it goes on where it was saved (requests that were in
    /// flight are asked again; its settings and example page are the saved ones).
    Resume(Box<mapper::Snapshot>),
}

/// A mapping run: the map and how it ended.
pub struct Mapped {
    /// The site map.
    pub map: SiteMap,
    /// The settings it was made with.
    pub config: MapConfig,
    /// Final counts.
    pub progress: mapper::Progress,
    /// The links the trap guard refused, by reason.
    pub traps: Vec<crate::canon::Refusal>,
    /// Why mapping stopped.
    pub stopped: Option<mapper::StopReason>,
    /// Wall time of this run.
    pub elapsed: Duration,
    /// Core time and results.
    pub stats: http::RunStats,
    /// Stopped by [`Checkpoints::stop`] after saving: the map is unfinished.
    pub interrupted: bool,
    /// The sitemaps this run did not read, or not all of: URL and why.
    pub sitemaps_not_read: Vec<(String, String)>,
}

impl Mapped {
    /// Learns the pattern from the map; the learned map has the pages taken for their heading
    /// as targets ([`pattern::learn_from_map`]). When only the example reached mapping's θ,
    /// at θ taken from the scores instead ([`pattern::at_learning_threshold`]).
    ///
    /// # Errors
    /// No pattern (no target found).
    pub fn learn(mut self) -> Result<Learned, String> {
        let (map, lowered) = pattern::at_learning_threshold(std::mem::take(&mut self.map));
        self.learn_from(map, lowered, None)
    }

    /// Learns the pattern at mapping's θ, which the user gave: a θ chosen by hand is never
    /// replaced. When only the example reached it, the θ the scores would have given is
    /// [`Learned::cut_not_taken`], for the user to take with `relearn --threshold`.
    ///
    /// # Errors
    /// No pattern (no target found).
    pub fn learn_at_given_threshold(mut self) -> Result<Learned, String> {
        let cut = pattern::lowered_threshold(&self.map);
        let map = std::mem::take(&mut self.map);
        self.learn_from(map, None, cut)
    }

    fn learn_from(
        self,
        map: SiteMap,
        lowered: Option<pattern::LoweredThreshold>,
        cut_not_taken: Option<pattern::LoweredThreshold>,
    ) -> Result<Learned, String> {
        let proposed = pattern::Corrections::proposed(&map);
        let (pattern, map) =
            pattern::learn_from_map_corrected(map, &self.config, &proposed, http::now_ms())
                .map_err(
                    |e| match self.progress.nofollow_hint("learn --ignore-robots") {
                        Some(hint) => format!("{e}. {hint}"),
                        None => e.to_string(),
                    },
                )?;
        Ok(Learned {
            pattern,
            map,
            progress: self.progress,
            traps: self.traps,
            stopped: self.stopped,
            elapsed: self.elapsed,
            stats: self.stats,
            lowered,
            cut_not_taken,
            sitemaps_not_read: self.sitemaps_not_read,
        })
    }
}

/// Maps a site from its entry or from a saved mapping, optionally saving as it goes.
///
/// # Errors
/// A bad example or entry, a bad saved state, an error from saving.
pub fn map_site(
    start_from: MapStart,
    client: &ClientConfig,
    progress: &mut dyn FnMut(&mapper::Progress, &str),
    checkpoints: Option<Checkpoints<'_, mapper::Snapshot>>,
) -> Result<Mapped, String> {
    let start = Instant::now();
    let mut m = match start_from {
        MapStart::Pages {
            entry,
            example,
            config,
        } => {
            let client = Client::new(&ClientConfig {
                max_bytes: config.max_bytes,
                ..client.clone()
            });
            let example =
                fetch_page(&client, &example).map_err(|e| format!("example page: {e}"))?;
            Mapper::new(&entry, example, *config).map_err(|e| e.to_string())?
        }
        MapStart::Fetched {
            entry,
            example,
            config,
        } => Mapper::new(&entry, example, *config).map_err(|e| e.to_string())?,
        MapStart::Resume(snapshot) => {
            Mapper::restore(*snapshot).map_err(|e| format!("saved mapping: {e}"))?
        }
    };
    let client = Client::new(&ClientConfig {
        max_bytes: m.config().max_bytes,
        ..client.clone()
    });
    let workers = m.config().politeness.max_in_flight;
    let mut last = String::new();
    let mut saver = Saver::new(checkpoints);
    let mut sitemaps_not_read = Vec::new();
    let stats = http::run(&mut m, &client, workers, |m| {
        for e in m.drain_events() {
            match e {
                mapper::Event::Fetched { url, .. } => last = url,
                mapper::Event::SitemapSkipped(n) => sitemaps_not_read.push((n.url, n.reason)),
                _ => {}
            }
        }
        progress(&m.progress(), &last);
        saver.tick(|| m.snapshot())
    });
    saver.result()?;
    Ok(Mapped {
        progress: m.progress(),
        traps: m.trap_refusals().to_vec(),
        stopped: m.stopped(),
        config: m.config().clone(),
        map: m.into_site_map(),
        elapsed: start.elapsed(),
        stats,
        interrupted: saver.interrupted,
        sitemaps_not_read,
    })
}

/// Finds a site's item pages from `start` ([`exemplar_core::detect`]), one request at a time.
///
/// # Errors
/// When `start` is not an http(s) URL, or no page of the site answered (the site is
/// unreachable: its answer is not "no items" but unknown).
pub fn detect(
    start: &str,
    config: &exemplar_core::detect::DetectConfig,
    client: &ClientConfig,
) -> Result<exemplar_core::detect::Detection, String> {
    let mut d = exemplar_core::detect::Detector::new(start, config.clone())?;
    let client = Client::new(&ClientConfig {
        max_bytes: config.max_bytes,
        ..client.clone()
    });
    http::run(&mut d, &client, 1, |_| true);
    let d = d.into_detection();
    if d.unreachable() {
        return Err(format!("no page answered ({})", d.visited[0].kind));
    }
    Ok(d)
}

/// Finds more sites like the seed pages ([`exemplar_core::discover`]); `after` hears of the run
/// after every answer and may stop it (false).
///
/// # Errors
/// No seed, a seed that is no http(s) URL, a template without its placeholder.
pub fn discover(
    seeds: &[String],
    config: &exemplar_core::discover::DiscoverConfig,
    client: &ClientConfig,
    mut after: impl FnMut(&exemplar_core::discover::Discovery) -> bool,
) -> Result<exemplar_core::discover::Discovery, String> {
    let mut d = exemplar_core::discover::Discoverer::new(seeds, config.clone())?;
    let client = Client::new(&ClientConfig {
        max_bytes: config.max_bytes,
        ..client.clone()
    });
    let workers = config.politeness.max_in_flight.max(1);
    http::run(&mut d, &client, workers, |d| after(d.discovery()));
    Ok(d.into_discovery())
}

/// The save-as-you-go logic both runs share.
struct Saver<'a, S> {
    checkpoints: Option<Checkpoints<'a, S>>,
    saved_at: Instant,
    interrupted: bool,
    error: Option<String>,
}

impl<'a, S> Saver<'a, S> {
    fn new(checkpoints: Option<Checkpoints<'a, S>>) -> Saver<'a, S> {
        Saver {
            checkpoints,
            saved_at: Instant::now(),
            interrupted: false,
            error: None,
        }
    }

    /// Records an error that stops the run; returns false (stop).
    fn fail(&mut self, e: String) -> bool {
        self.error = Some(e);
        false
    }

    /// Saves when it is time or when asked to stop; false when the run must stop.
    fn tick(&mut self, snapshot: impl FnOnce() -> S) -> bool {
        let Some(cp) = self.checkpoints.as_mut() else {
            return true;
        };
        let stop = cp.stop.load(Ordering::SeqCst);
        if !stop && self.saved_at.elapsed() < cp.every {
            return true;
        }
        if let Err(e) = (cp.save)(snapshot()) {
            return self.fail(e);
        }
        self.saved_at = Instant::now();
        if stop {
            self.interrupted = true;
            return false;
        }
        true
    }

    fn result(&mut self) -> Result<(), String> {
        self.error.take().map_or(Ok(()), Err)
    }
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
    /// (requests then in flight are abandoned: the state asks for them again).
    pub interrupted: bool,
    /// Pages this run skipped for passing the size limit (`CrawlConfig::max_bytes`).
    pub too_large: Vec<String>,
    /// The links the trap guard refused, by reason (a resumed crawl's included).
    pub traps: Vec<crate::canon::Refusal>,
    /// The sitemaps this run did not read, or not all of: URL and why.
    pub sitemaps_not_read: Vec<(String, String)>,
    /// Hosts the site linked to whose names are variants of its own: those taken as replicas
    /// had their links followed as the site's ([`exemplar_core::crawler::ReplicaHost`]).
    pub replica_hosts: Vec<exemplar_core::crawler::ReplicaHost>,
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

/// Saving a run as it goes, so that a killed or interrupted mapping or crawl resumes
/// ([`MapStart::Resume`], [`CrawlStart::Resume`]); `S` is the state machine's snapshot. In a
/// crawl a save always follows the targets handed to `sink` so far: a caller that records its
/// exports' sizes with the state can cut them back to it on resume.
pub struct Checkpoints<'a, S> {
    /// Time between saves.
    pub every: Duration,
    /// Stores the state; an error stops the run with that error.
    pub save: &'a mut dyn FnMut(S) -> Result<(), String>,
    /// Set from elsewhere (a signal handler) to save and stop within a fraction of a second,
    /// abandoning requests in flight (the saved state asks for them again); the run then
    /// returns with `interrupted` set.
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
    checkpoints: Option<Checkpoints<'_, crawler::Snapshot>>,
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
    let mut last = String::new();
    let mut too_large = Vec::new();
    let mut sitemaps_not_read = Vec::new();
    let mut saver = Saver::new(checkpoints);
    let stats = http::run(&mut c, &client, workers, |c| {
        for e in c.drain_events() {
            match e {
                crawler::Event::Target(t) => {
                    last = t.url.clone();
                    if let Err(e) = sink(&t) {
                        return saver.fail(e);
                    }
                }
                crawler::Event::Page { url, .. } => last = url,
                crawler::Event::TooLarge { url, .. } => too_large.push(url),
                crawler::Event::SitemapSkipped(n) => sitemaps_not_read.push((n.url, n.reason)),
                _ => {}
            }
        }
        progress(&c.progress(), &last);
        saver.tick(|| c.snapshot())
    });
    saver.result()?;
    let interrupted = saver.interrupted;
    Ok(Crawled {
        targets: c.targets().to_vec(),
        coverage: c.coverage(),
        progress: c.progress(),
        stopped: c.stopped(),
        elapsed: start.elapsed(),
        stats,
        interrupted,
        too_large,
        traps: c.trap_refusals().to_vec(),
        sitemaps_not_read,
        replica_hosts: c.replica_hosts().to_vec(),
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

/// Whether a run renders pages ([`crate::render`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenderMode {
    /// Render when the example page's rendered DOM shows content its fetched HTML
    /// lacks ([`crate::drawn::Difference::matters`]), and Chromium is installed.
    Auto,
    /// Always render (`--render`): an error when Chromium is missing.
    Always,
    /// Never render (`--no-render`).
    Never,
}

/// What [`choose_rendering`] decided, and why, in words for the user.
pub struct RenderChoice {
    /// The renderer, when pages are to be rendered.
    pub renderer: Option<std::sync::Arc<crate::render::Renderer>>,
    /// Why, in one sentence.
    pub why: String,
    /// The example page to map with: as rendered when pages are, else as fetched.
    pub example: ExamplePage,
}

/// Decides whether a run from the `example` page (as fetched, [`fetch_page`]) renders pages:
/// in [`RenderMode::Auto`], when it has a script that runs, it is rendered and the two are
/// compared ([`crate::drawn::Difference::matters`]).
///
/// # Errors
/// [`RenderMode::Always`] without Chromium, or an example it cannot render.
pub fn choose_rendering(
    mode: RenderMode,
    example: ExamplePage,
    render: crate::render::RenderConfig,
) -> Result<RenderChoice, String> {
    use crate::render::Renderer;
    let none = |why: String, example: ExamplePage| RenderChoice {
        renderer: None,
        why,
        example,
    };
    // A form's answer to a POST cannot be loaded in a tab by its URL.
    let posted = crate::fetch::split_post_key(&example.url).1.is_some();
    if posted && mode == RenderMode::Auto {
        return Ok(none(
            "pages are fetched, not rendered: the example page is a form's answer to a POST".into(),
            example,
        ));
    }
    let renderer = match (mode, Renderer::new(render)) {
        (RenderMode::Never, _) => {
            return Ok(none(
                "pages are fetched, not rendered (--no-render)".into(),
                example,
            ));
        }
        (RenderMode::Always, Err(e)) => return Err(format!("--render: {e}")),
        (RenderMode::Auto, Err(e)) => {
            return Ok(none(
                format!(
                    "pages are fetched, not rendered: {e}; a page drawn by scripts may lack its items"
                ),
                example,
            ));
        }
        (_, Ok(r)) => r,
    };
    if posted {
        return Ok(RenderChoice {
            renderer: Some(std::sync::Arc::new(renderer)),
            why: "pages are rendered (--render), but not the example: a form's answer to a POST"
                .into(),
            example,
        });
    }
    if mode == RenderMode::Auto && !crate::drawn::may_be_drawn(&example.body) {
        return Ok(none(
            "pages are fetched, not rendered: the example page has no script".into(),
            example,
        ));
    }
    let compared = renderer.compare(&example.url, &example.body, example.content_type.as_deref());
    let renderer = std::sync::Arc::new(renderer);
    let drawn = |html: String| ExamplePage {
        url: example.url.clone(),
        content_type: Some("text/html; charset=utf-8".into()),
        body: html.into_bytes(),
    };
    match (mode, compared) {
        (RenderMode::Always, Ok((d, r))) => Ok(RenderChoice {
            renderer: Some(renderer),
            why: format!(
                "pages are rendered (--render); the example rendered: {}",
                d.summary()
            ),
            example: drawn(r.html),
        }),
        (RenderMode::Always, Err(e)) => Err(format!("--render: {e}")),
        (_, Err(e)) => Ok(none(
            format!("pages are fetched, not rendered: the example could not be rendered ({e})"),
            example,
        )),
        (_, Ok((d, r))) if d.matters() => Ok(RenderChoice {
            renderer: Some(renderer),
            why: format!(
                "the example page is drawn by scripts ({}): pages are rendered in Chromium (--no-render to fetch only)",
                d.summary()
            ),
            example: drawn(r.html),
        }),
        (_, Ok((d, _))) => Ok(none(
            format!(
                "pages are fetched, not rendered: rendered, the example shows nothing its HTML lacks ({})",
                d.summary()
            ),
            example,
        )),
    }
}
