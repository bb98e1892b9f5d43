//! Lab, dev only: what the workspace's tests share. The development site lists
//! ([`devsites`]), fixture sites served by the tests ([`c_api`], [`library`], [`shop`]), the
//! real web applications ([`live_apps`]), and
//! helpers for the export tests (a hand-written pattern, Scrapy, Redis) and for runs against a
//! local site ([`learn_quietly`], [`crawl_quietly`]).

use std::path::Path;
use std::process::Command;

pub mod c_api;
#[cfg(feature = "fuzz")]
pub mod checks;
pub mod devsites;
pub mod library;
pub mod live_apps;
pub mod shop;

/// The repository's root: the fixtures (`tests/fixtures/`), data, schemas and `.venv` are
/// under it, whichever crate's tests run (cargo runs each in its own crate's folder).
pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The repository's root as a path ([`ROOT`]).
pub fn root() -> &'static Path {
    Path::new(ROOT)
}

/// A pattern written by hand for the site at `base` (no trailing `/`): `entry` and `example`
/// paths, one level per `(regex, paginate)` with the regex anchored after `{base}/`, no delay.
pub fn hand_pattern(
    base: &str,
    entry: &str,
    example: &str,
    levels: &[(&str, bool)],
    obey_robots: bool,
) -> serde_json::Value {
    let host = base.trim_start_matches("http://");
    let quoted = base.replace('.', "\\.");
    let levels: Vec<serde_json::Value> = levels
        .iter()
        .map(|(re, paginate)| {
            serde_json::json!({"regexes": [format!("^{quoted}/{re}$")], "paginate": paginate, "pages": 1, "samples": []})
        })
        .collect();
    serde_json::json!({
        "version": 2,
        "site": host,
        "entry": format!("{base}/{entry}"),
        "example": format!("{base}/{example}"),
        "scope": {"site": host, "includeSubdomains": false, "allow": [], "deny": []},
        "levels": levels,
        "politeness": {"delayMs": 0, "maxInFlight": 4, "maxInFlightPerHost": 2, "obeyRobots": obey_robots},
    })
}

/// Debian's own Scrapy (`python3-scrapy`, 2.8 in bookworm; `./build.sh setup` installs it): what
/// a user who takes Scrapy from the distribution rather than PyPI runs a generated project with.
pub const DEBIAN_SCRAPY: &str = "/usr/bin/scrapy";

/// Runs spider `name` of a generated Scrapy project in `project` with the Scrapy of the
/// repository's `.venv` (`./build.sh setup` installs it), its items written to `items.jsonl`
/// there; returns the URLs of the items, in the order scraped. Then runs it again with Debian's
/// Scrapy ([`DEBIAN_SCRAPY`], eleven minor versions older), which must collect the same URLs: a
/// generated project works with both. Panics with Scrapy's stderr when a crawl fails or Scrapy
/// warns of a deprecated setting or API.
pub fn scrapy_crawl(project: &Path, name: &str) -> Vec<String> {
    scrapy_crawl_args(project, name, &[])
}

/// [`scrapy_crawl`] with more arguments for `scrapy crawl` (`-a queries=FILE`, `-s NAME=VALUE`).
pub fn scrapy_crawl_args(project: &Path, name: &str, args: &[&str]) -> Vec<String> {
    let venv = root().join(".venv/bin/scrapy");
    let urls = scrapy_crawl_with(&venv, project, name, args);
    let mut sorted = urls.clone();
    sorted.sort();
    let mut debian = scrapy_crawl_with(Path::new(DEBIAN_SCRAPY), project, name, args);
    debian.sort();
    assert_eq!(
        debian, sorted,
        "Debian's Scrapy collects what the venv's does"
    );
    urls
}

/// The item URLs of spider `name` run by the venv's Scrapy and by Debian's, each as found: for
/// a crawl whose URLs depend on the order answers come in (a rule for duplicate URLs confirmed
/// sooner or later), where [`scrapy_crawl`]'s equality of the two runs cannot hold.
pub fn scrapy_crawl_each(project: &Path, name: &str) -> [Vec<String>; 2] {
    [
        scrapy_crawl_with(&root().join(".venv/bin/scrapy"), project, name, &[]),
        scrapy_crawl_with(Path::new(DEBIAN_SCRAPY), project, name, &[]),
    ]
}

/// One run of spider `name` by the `scrapy` command at `scrapy`.
fn scrapy_crawl_with(scrapy: &Path, project: &Path, name: &str, args: &[&str]) -> Vec<String> {
    let out = scrapy_command(scrapy, project, name, "items.jsonl")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{} (./build.sh setup installs it): {e}", scrapy.display()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {stderr}", scrapy.display());
    // The project follows the Scrapy it is run with: no setting or API it deprecates.
    assert!(
        !stderr.contains("ScrapyDeprecationWarning"),
        "{}: {stderr}",
        scrapy.display()
    );
    item_urls(&project.join("items.jsonl"))
}

/// `scrapy crawl NAME` in `project` by the `scrapy` command at `scrapy`, its items written to
/// `items` (a JSON Lines feed, relative to `project`), warnings and errors logged only.
pub fn scrapy_command(scrapy: &Path, project: &Path, name: &str, items: &str) -> Command {
    let mut cmd = Command::new(scrapy);
    cmd.current_dir(project)
        .args(["crawl", name, "-O", items, "-s", "LOG_LEVEL=WARNING"]);
    cmd
}

/// The `url` of every item of a Scrapy JSON Lines feed, in order.
pub fn item_urls(jsonl: &Path) -> Vec<String> {
    std::fs::read_to_string(jsonl)
        .expect("items")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json line");
            v["url"].as_str().expect("url").to_string()
        })
        .collect()
}

/// A Redis server of its own (Debian's `redis-server`, which `./build.sh setup` installs) on a
/// free port of 127.0.0.1, nothing saved to disk; stopped when dropped.
pub struct Redis {
    child: std::process::Child,
    port: u16,
}

impl Redis {
    /// Starts it and waits until it accepts connections.
    pub fn start() -> Redis {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server (./build.sh setup installs Debian's redis-server)");
        let redis = Redis { child, port };
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return redis;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        panic!("redis-server did not start on port {port}");
    }

    /// Its URL, as `REDIS_URL` takes it.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Learns from `entry` with `example` under `config`, no progress shown (the eval's and the
/// fixture tests' runs).
///
/// # Errors
/// As [`exemplar_native::run::learn`].
pub fn learn_quietly(
    entry: &str,
    example: &str,
    config: exemplar_core::mapper::MapConfig,
) -> Result<exemplar_native::run::Learned, String> {
    exemplar_native::run::learn(
        entry,
        example,
        config,
        &exemplar_native::http::ClientConfig::default(),
        &mut |_, _| {},
    )
}

/// Crawls with `pattern` at `politeness`, no verification, nothing kept, no progress shown.
///
/// # Errors
/// As [`exemplar_native::run::crawl`].
pub fn crawl_quietly(
    pattern: exemplar_core::pattern::Pattern,
    politeness: exemplar_core::fetch::Politeness,
) -> Result<exemplar_native::run::Crawled, String> {
    let config = exemplar_core::crawler::CrawlConfig {
        politeness: Some(politeness),
        ..exemplar_core::crawler::CrawlConfig::default()
    };
    exemplar_native::run::crawl(
        pattern,
        config,
        false,
        &exemplar_native::http::ClientConfig::default(),
        &mut |_| Ok(()),
        &mut |_, _| {},
    )
}
