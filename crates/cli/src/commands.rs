//! The crawling subcommands: `learn`, `relearn`, `crawl`, `export-scrapy`, `serve`, `eval`.
use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use exemplar_core::crawler::{CrawlConfig, CrawlForms, TargetPage};
use exemplar_core::fetch::Politeness;
use exemplar_core::mapper::{MapConfig, SiteMap};
use exemplar_core::pattern::{self, Corrections, Pattern, QueryPolicy, count};
use exemplar_export::{self as export, PageRecord};
use exemplar_native::http::{self, ClientConfig};
use exemplar_native::render::RenderConfig;
use exemplar_native::run::{self, CrawlStart, MapStart, ProgressLine, RenderMode};
use exemplar_native::serve::Latency;

use super::resume::{self, CrawlState, ExportPaths, Exports, LearnState};
use super::since::Since;
use super::{USAGE, flag, flags, positional, switch};

pub(crate) fn parse<T: std::str::FromStr>(
    args: &[String],
    name: &str,
) -> Result<Option<T>, String> {
    flag(args, name)
        .map(|v| {
            v.parse()
                .map_err(|_| format!("bad value for {name}: {v:?}\n{USAGE}"))
        })
        .transpose()
}

pub(crate) fn politeness(args: &[String], base: Politeness) -> Result<Politeness, String> {
    let mut p = base;
    if let Some(d) = parse(args, "--delay-ms")? {
        p.delay_ms = d;
    }
    if let Some(c) = parse::<usize>(args, "--concurrency")? {
        p.max_in_flight = c;
        p.max_in_flight_per_host = c;
    }
    if switch(args, "--ignore-robots") {
        p.obey_robots = false;
    }
    p.validate()?;
    Ok(p)
}

/// `--max-bytes N`: the largest page read, from 1 KiB to 1 GiB (a page is parsed whole).
fn max_bytes(args: &[String]) -> Result<Option<usize>, String> {
    const RANGE: std::ops::RangeInclusive<usize> = 1 << 10..=1 << 30;
    match parse::<usize>(args, "--max-bytes")? {
        Some(n) if !RANGE.contains(&n) => Err(format!(
            "--max-bytes {n}: give a size from {} to {} bytes",
            RANGE.start(),
            RANGE.end()
        )),
        v => Ok(v),
    }
}

/// The HTTP client's settings: `--resolve HOST:ADDR` rules, `--cookies FILE` read (a clear error
/// for a rule of another shape, a file that cannot be read or is not in the Netscape format; its
/// values are never printed).
pub(crate) fn client_config(args: &[String]) -> Result<ClientConfig, String> {
    let resolve = flags(args, "--resolve")
        .into_iter()
        .map(|v| exemplar_native::resolve::Resolve::parse(v).map_err(|e| format!("--resolve {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(path) = flag(args, "--cookies") else {
        return Ok(ClientConfig {
            resolve,
            ..ClientConfig::default()
        });
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("--cookies {path}: {e}"))?;
    let jar = exemplar_native::cookies::CookieJar::from_netscape(&text)
        .map_err(|e| format!("--cookies {path}: {e}"))?;
    if jar.is_empty() {
        return Err(format!("--cookies {path}: the file holds no cookie"));
    }
    Ok(ClientConfig {
        cookies: Some(std::sync::Arc::new(jar)),
        resolve,
        ..ClientConfig::default()
    })
}

/// `--render` / `--no-render` (both: a usage error); neither: `default`.
fn render_mode(args: &[String], default: RenderMode) -> Result<RenderMode, String> {
    match (switch(args, "--render"), switch(args, "--no-render")) {
        (true, true) => Err("--render and --no-render: give one of them".into()),
        (true, false) => Ok(RenderMode::Always),
        (false, true) => Ok(RenderMode::Never),
        (false, false) => Ok(default),
    }
}

/// The renderer's settings for a client's (the same user agent, cookies and `--resolve` rules).
fn render_config(client: &ClientConfig) -> RenderConfig {
    RenderConfig {
        user_agent: client.user_agent.clone(),
        cookies: client.cookies.clone(),
        host_rules: exemplar_native::resolve::chromium_rules(&client.resolve),
        ..RenderConfig::default()
    }
}

/// "pages rendered: 10 of 12 fetched", with the kinds of page rendering stopped for and the
/// first failure, when there was a renderer.
fn print_rendered(client: &ClientConfig, fetched: usize) {
    let Some(r) = &client.renderer else {
        return;
    };
    eprintln!(
        "rendered: {} of the {} fetched in Chromium{}",
        count(r.rendered(), "page"),
        count(fetched, "page"),
        match r.fetched_only() {
            v if v.is_empty() => String::new(),
            v => format!(
                "; fetched only, rendering them changed nothing: {}",
                v.join(", ")
            ),
        }
    );
    if let Some(e) = r.first_error() {
        eprintln!(
            "{} could not be rendered and kept as fetched; the first: {e}",
            count(r.failed(), "page")
        );
    }
}

/// The pages not read for passing the size limit, when there are any, with the flag that reads
/// them.
fn print_too_large(urls: &[&str], max_bytes: usize, command: &str) {
    const SHOWN: usize = 5;
    if urls.is_empty() {
        return;
    }
    let more = urls.len().saturating_sub(SHOWN);
    eprintln!(
        "{} not read for being larger than {max_bytes} bytes ({command} --max-bytes N reads them): {}{}",
        count(urls.len(), "page"),
        urls[..urls.len().min(SHOWN)].join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    );
}

/// The pattern's fields with the example's values: `name  value  selector`.
fn print_fields(p: &Pattern, example: &exemplar_core::mapper::ExamplePage, from: usize) {
    if p.fields.is_empty() {
        if from > 1 {
            println!("fields: none varies from page to page among the {from} target pages read");
        }
        return;
    }
    let (html, _) = exemplar_html::text::decode(&example.body, example.content_type.as_deref());
    let values: Vec<(String, exemplar_core::fields::Value)> =
        match exemplar_html::dom::Document::parse(&html) {
            Ok(doc) => exemplar_core::fields::extract(&p.fields, &doc, &example.url),
            Err(_) => Vec::new(),
        };
    println!(
        "fields ({} from {from} target pages; the example's values):",
        p.fields.len()
    );
    let width = p
        .fields
        .iter()
        .map(|f| f.name.chars().count())
        .max()
        .unwrap_or(0);
    for f in &p.fields {
        let value = values
            .iter()
            .find(|(n, _)| *n == f.name)
            .map_or_else(|| "(none on the example)".to_string(), |(_, v)| v.as_text());
        let value: String = if value.chars().count() > 60 {
            format!("{}…", value.chars().take(59).collect::<String>())
        } else {
            value
        };
        println!(
            "  {:width$}  {value}   [{}]",
            f.name,
            exemplar_core::fields::describe(&f.place)
        );
    }
}

fn create(path: &str) -> Result<BufWriter<File>, String> {
    resume::create(path).map(BufWriter::new)
}

pub fn learn(args: &[String]) -> Result<(), String> {
    let entry = flag(args, "--entry").ok_or(format!("learn needs --entry URL\n{USAGE}"))?;
    let example = flag(args, "--example").ok_or(format!("learn needs --example URL\n{USAGE}"))?;
    // An example that is a form's answer to a POST is keyed by its action and body.
    let example = match flag(args, "--example-data") {
        Some(data) => run::example_post(
            &http::Client::new(&client_config(args)?),
            entry,
            example,
            data,
        )?,
        None => example.to_string(),
    };
    let example = example.as_str();
    let mut config = MapConfig::default();
    if let Some(v) = parse(args, "--max-pages")? {
        config.max_pages = v;
    }
    if let Some(v) = parse(args, "--max-depth")? {
        config.max_depth = v;
    }
    if let Some(v) = max_bytes(args)? {
        config.max_bytes = v;
    }
    if let Some(v) = parse::<u64>(args, "--max-seconds")? {
        config.max_duration_ms = Some(v.saturating_mul(1000));
    }
    // A θ given by hand is the user's: never replaced by the scores' cut, only named beside it.
    let given_threshold = parse::<f64>(args, "--threshold")?;
    if let Some(v) = given_threshold {
        config.similarity.threshold = v;
    }
    config.include_subdomains = switch(args, "--include-subdomains");
    config.allow = flags(args, "--allow")
        .into_iter()
        .map(String::from)
        .collect();
    config.deny = flags(args, "--deny")
        .into_iter()
        .map(String::from)
        .collect();
    config.politeness = politeness(args, config.politeness)?;
    config.forms.enabled = !switch(args, "--no-forms");
    config.expand_targets = !switch(args, "--no-target-links");
    config.script_links = !switch(args, "--no-script-links");
    config.defer_barren = !switch(args, "--no-defer-barren");
    config.read_sitemaps = !switch(args, "--no-sitemaps");
    let state_path = flag(args, "--state");
    let every = save_every(args, state_path)?;
    let start = match state_path
        .map(resume::load::<LearnState>)
        .transpose()?
        .flatten()
    {
        Some(saved) => {
            let sp = state_path.unwrap_or_default();
            if saved.entry != entry || saved.example != example {
                return Err(format!(
                    "{sp} saves the mapping of {} with the example {}; remove it to start over",
                    saved.entry, saved.example
                ));
            }
            if saved.mapper.config() != &config {
                return Err(format!(
                    "{sp} saves a mapping with other settings: run the same command to resume, or remove it to start over"
                ));
            }
            eprintln!(
                "resuming the mapping saved in {sp}: {} fetched so far",
                count(saved.mapper.progress().fetched, "page")
            );
            MapStart::Resume(Box::new(saved.mapper))
        }
        None => MapStart::Pages {
            entry: entry.to_string(),
            example: example.to_string(),
            config: Box::new(config),
        },
    };
    let mut save = |mapper: exemplar_core::mapper::Snapshot| -> Result<(), String> {
        resume::save(
            state_path.unwrap_or_default(),
            LearnState {
                entry: entry.to_string(),
                example: example.to_string(),
                mapper,
            },
        )
    };
    let checkpoints = resume::checkpoints(state_path, every, &mut save);
    // Whether pages are rendered is decided from the example page, fetched (and rendered)
    // once here; a new mapping starts from it.
    let mut client = client_config(args)?;
    let max_bytes = match &start {
        MapStart::Pages { config, .. } | MapStart::Fetched { config, .. } => config.max_bytes,
        MapStart::Resume(saved) => saved.config().max_bytes,
    };
    let page = run::fetch_page(
        &http::Client::new(&ClientConfig {
            max_bytes,
            ..client.clone()
        }),
        example,
    )
    .map_err(|e| format!("example page: {e}"))?;
    let choice = run::choose_rendering(
        render_mode(args, RenderMode::Auto)?,
        page,
        render_config(&client),
    )?;
    // Kept for the fields, read from it among a sample of the targets after learning.
    let example_page = choice.example.clone();
    eprintln!("{}", choice.why);
    client.renderer = choice.renderer;
    let start = match start {
        MapStart::Pages { entry, config, .. } => MapStart::Fetched {
            entry,
            example: choice.example,
            config,
        },
        other => other,
    };
    let mut bar = ProgressLine::new(switch(args, "--quiet"));
    let mapped = run::map_site(
        start,
        &client,
        &mut |p, url| {
            bar.draw(
                p.fetched,
                &format!("{} targets, {} queued", p.targets, p.queued),
                url,
            )
        },
        checkpoints,
    )?;
    bar.finish();
    print_rendered(&client, mapped.progress.fetched);
    let fetched = count(mapped.progress.fetched, "page");
    resume::conclude(
        state_path,
        mapped.interrupted,
        "mapping",
        &format!("{fetched} fetched"),
    )?;
    // The map first, as mapped (the pattern records the verdicts and `relearn` applies them):
    // neither a site with no page like the example nor a mistyped verdict costs the mapping.
    let map_out = flag(args, "--map");
    if let Some(map_out) = map_out {
        let mut w = create(map_out)?;
        serde_json::to_writer(&mut w, &mapped.map).map_err(|e| format!("{map_out}: {e}"))?;
        w.flush().map_err(|e| format!("{map_out}: {e}"))?;
    }
    let mapped_config = mapped.config.clone();
    let mut given = corrections(args);
    let unlike_listings = switch(args, "--unlike-listings");
    // Verdicts are applied to the map as mapped, at learning's θ: learning's own (its
    // proposals, the pages taken for their heading) may be what they take back.
    let as_mapped = (!given.is_empty() || unlike_listings).then(|| mapped.map.clone());
    let mut learned = if given_threshold.is_some() {
        mapped.learn_at_given_threshold()?
    } else {
        mapped.learn()?
    };
    // The map with the verdicts applied, when there are any (no copy of the map otherwise).
    let corrected = if let Some(as_mapped) = as_mapped {
        let hint = |e: String| match map_out {
            Some(m) => format!(
                "{e} (the map is saved in {m}: exemplar relearn can apply corrected verdicts without mapping again)"
            ),
            None => format!(
                "{e} (learn --map FILE keeps the map, so that exemplar relearn can apply corrected verdicts without mapping again)"
            ),
        };
        if unlike_listings {
            given.unlike.extend(listing_targets(&learned.map, &given));
        }
        let verdicts =
            verdicts_over(&learned.pattern.corrections, given, &learned.map).map_err(hint)?;
        let now = learned.pattern.stats.learned_at_ms;
        let (pattern, map) = learned
            .pattern
            .relearned(
                pattern::relabelled(&as_mapped, learned.pattern.similarity.threshold),
                &verdicts,
                now,
            )
            .map_err(|e| hint(e.to_string()))?;
        learned.pattern = pattern;
        Some(map)
    } else {
        None
    };
    let out = flag(args, "-o")
        .or(flag(args, "--out"))
        .unwrap_or("pattern.json");
    learned.pattern.render = client.renderer.is_some();
    let mut from = 0;
    if !switch(args, "--no-fields") {
        let (fields, n) = run::learn_fields(
            &http::Client::new(&client),
            &learned.pattern,
            &example_page,
            mapped_config.politeness.delay_ms,
        );
        learned.pattern.fields = fields;
        from = n;
    }
    write_pattern(&learned.pattern, out)?;
    print!("{}", learned.pattern.render());
    print_fields(&learned.pattern, &example_page, from);
    if let Some(l) = &learned.lowered {
        println!("{}", lowered_note(l));
    }
    if let Some(cut) = &learned.cut_not_taken {
        println!("{}", cut_not_taken_note(cut, out, map_out));
    }
    print_forms(&learned);
    print_put_off(&learned.map, &mapped_config);
    let too_large: Vec<&str> = learned
        .map
        .nodes
        .iter()
        .filter(|n| matches!(&n.state, exemplar_core::mapper::NodeState::TooLarge { .. }))
        .map(|n| n.url.as_str())
        .collect();
    print_too_large(&too_large, mapped_config.max_bytes, "learn");
    super::review::print(
        corrected.as_ref().unwrap_or(&learned.map),
        &learned.pattern,
        args,
    )?;
    print_traps(&learned.traps, false);
    if let Some(line) = retried_line(learned.progress.retried) {
        println!("{line}");
    }
    println!(
        "mapping: {} fetched{}, {}, {}, {} skipped in {:.1} s ({:?}); pattern written to {out}",
        count(learned.progress.fetched, "page"),
        scripts_read(learned.progress.scripts),
        count(learned.progress.targets, "target"),
        count(learned.progress.errors, "error"),
        learned.progress.skipped,
        learned.elapsed.as_secs_f64(),
        learned
            .stopped
            .unwrap_or(exemplar_core::mapper::StopReason::Exhausted),
    );
    let sitemaps = &learned.map.sitemaps;
    if let Some(first) = sitemaps.first() {
        let named = format!(
            "robots.txt names {} ({first}{})",
            count(sitemaps.len(), "sitemap"),
            if sitemaps.len() > 1 { ", …" } else { "" }
        );
        let p = &learned.progress;
        let them = if sitemaps.len() == 1 { "it" } else { "them" };
        if p.sitemaps > 0 {
            println!(
                "{named}: read once every link was followed ({} read), {} no link reached mapped from {them} as links of the entry page; `exemplar crawl` reads {them} too (--no-sitemaps: not)",
                count(p.sitemaps, "sitemap"),
                count(learned.map.sitemap_pages(), "page"),
            );
        } else if !mapped_config.read_sitemaps {
            println!(
                "{named}: not read while learning (--no-sitemaps); `exemplar crawl` reads {them} and collects the targets listed (--no-sitemaps: not)"
            );
        } else if learned
            .stopped
            .is_some_and(|s| s != exemplar_core::mapper::StopReason::Exhausted)
        {
            println!(
                "{named}: learning stopped before following every link and read none; `exemplar crawl` reads {them} and collects the targets listed (--no-sitemaps: not)"
            );
        } else {
            let none = if sitemaps.len() == 1 { "it" } else { "they" };
            println!("{named}: {none} could not be read; `exemplar crawl` tries {them} again");
        }
        for line in not_read_lines(&learned.sitemaps_not_read) {
            println!("{line}");
        }
    }
    Ok(())
}

/// What a run did when the site said to wait (429, 503), when it did.
fn retried_line(retried: usize) -> Option<String> {
    (retried > 0).then(|| {
        format!(
            "the site said to wait (429 or 503): {} asked again after the wait it asked for (Retry-After, else 2, 4, 8 s), its host slowed to a request a second or slower",
            count(retried, "request")
        )
    })
}

/// The sitemaps a run did not read (or not all of), one a line: the first ten, then how many
/// more.
fn not_read_lines(not_read: &[(String, String)]) -> Vec<String> {
    const SHOWN: usize = 10;
    let mut lines: Vec<String> = not_read
        .iter()
        .take(SHOWN)
        .map(|(url, why)| format!("  {url}: {why}"))
        .collect();
    if not_read.len() > SHOWN {
        lines.push(format!("  … and {} more", not_read.len() - SHOWN));
    }
    lines
}

/// Why the pattern's θ is not mapping's ([`pattern::lowered_threshold`]).
fn lowered_note(l: &pattern::LoweredThreshold) -> String {
    format!(
        "θ lowered from {:.3} to {:.3}: no page but the example reached {:.3}; {} of the other {} fetched pages score {:.3} or more, where their scores split in two (Otsu's cut). Check the targets below; relearn --threshold T takes another θ",
        l.from, l.to, l.from, l.pages, l.scored, l.to
    )
}

/// Why a θ given with `learn --threshold` found the example alone, and the θ the scores give.
fn cut_not_taken_note(
    cut: &pattern::LoweredThreshold,
    pattern_out: &str,
    map_out: Option<&str>,
) -> String {
    let map = map_out.unwrap_or("MAP");
    let keep = if map_out.is_none() {
        " (learn --map MAP keeps the map)"
    } else {
        ""
    };
    format!(
        "no page but the example reached θ {:.3} (given with --threshold); {} of the other {} fetched pages score {:.3} or more, where their scores split in two (Otsu's cut): relearn {pattern_out} --map {map} --threshold {:.3} takes them{keep}",
        cut.from, cut.pages, cut.scored, cut.to, cut.to
    )
}

/// " and N scripts read" after the pages fetched, when scripts were ([`exemplar_core::script_links`]).
fn scripts_read(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" and {} read", count(n, "script"))
    }
}

/// The URL shapes whose pages mapping put off for yielding nothing and left unfetched when it
/// stopped ([`exemplar_core::mapper::shapes`]).
fn print_put_off(map: &exemplar_core::mapper::SiteMap, config: &exemplar_core::mapper::MapConfig) {
    const SHOWN: usize = 3;
    let left = exemplar_core::mapper::shapes::left_unfetched(map, config);
    if left.is_empty() {
        return;
    }
    let total: usize = left.iter().map(|(_, n)| n).sum();
    let named: Vec<String> = left
        .iter()
        .take(SHOWN)
        .map(|(shape, n)| format!("{shape} ({n})"))
        .collect();
    let more = left.len().saturating_sub(SHOWN);
    println!(
        "{} left unfetched: the first {} pages of their URL shape were no target and led to none, so they came last: {}{} (learn --no-defer-barren takes them in their turn)",
        count(total, "page"),
        exemplar_core::mapper::shapes::BARREN_AFTER,
        named.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        },
    );
}

/// What mapping did with each form it met: submitted and used by the pattern, dropped (its
/// responses led to no target), or skipped with the reason.
fn print_forms(learned: &run::Learned) {
    use exemplar_core::mapper::{FormState, form_key};
    // Forms past the run's limit are many on some sites: the first few are named, then a count.
    const LIMIT_SHOWN: usize = 3;
    let mut past_limit = 0;
    for f in &learned.map.forms {
        if let FormState::Skipped { reason } = &f.state
            && reason == exemplar_core::mapper::FORM_LIMIT_REACHED
        {
            past_limit += 1;
            if past_limit > LIMIT_SHOWN {
                continue;
            }
        }
        let used = learned.pattern.levels.iter().any(|l| {
            l.form
                .as_ref()
                .is_some_and(|fl| form_key(&fl.form) == form_key(&f.spec))
        });
        let what = match &f.state {
            FormState::Skipped { reason } => format!("skipped: {reason}"),
            FormState::Submitted => "submitted, not analysed (mapping stopped)".to_string(),
            FormState::Ignored { .. } => format!(
                "{} submissions all gave the same page: the site ignores the values; dropped",
                f.submissions.len()
            ),
            FormState::Analysed { expanded } if expanded.is_empty() => format!(
                "{} submissions, every response a page already met; dropped",
                f.submissions.len()
            ),
            FormState::Analysed { expanded } => format!(
                "{} submissions, the {} largest responses analysed; {}",
                f.submissions.len(),
                expanded.len(),
                if used {
                    "leads to targets: a level of the pattern"
                } else {
                    "dropped: its responses led to no target"
                }
            ),
        };
        let repeated = match f.repeated {
            0 => String::new(),
            1 => " (met on 1 more page, not submitted again)".to_string(),
            n => format!(" (met on {n} more pages, not submitted again)"),
        };
        println!(
            "form {:?} {}: {what}{repeated}",
            f.spec.method, f.spec.action
        );
    }
    if past_limit > LIMIT_SHOWN {
        println!(
            "… and {} more forms skipped: {}",
            past_limit - LIMIT_SHOWN,
            exemplar_core::mapper::FORM_LIMIT_REACHED
        );
    }
}

/// `--like URL`…, `--unlike URL`…, `--unlike-heading TEMPLATE`…, `--like-heading TEMPLATE`…,
/// `--unlike-language TAG`…, `--like-language TAG`…, `--unlike-directory DIR`… and
/// `--like-directory DIR`…: the user's verdicts on pages of the map, on kinds of page by
/// heading, on the languages pages declare and on the directories they lie in.
fn corrections(args: &[String]) -> Corrections {
    let urls = |name: &str| flags(args, name).into_iter().map(String::from).collect();
    Corrections {
        like: urls("--like"),
        unlike: urls("--unlike"),
        unlike_headings: urls("--unlike-heading"),
        like_headings: urls("--like-heading"),
        unlike_languages: urls("--unlike-language"),
        like_languages: urls("--like-language"),
        unlike_directories: urls("--unlike-directory"),
        like_directories: urls("--like-directory"),
    }
}

/// `--unlike-listings`: the URLs of the targets of `map` that look like listing pages
/// ([`exemplar_core::review::listing`]), but those `given` judges like the example.
fn listing_targets(map: &SiteMap, given: &Corrections) -> Vec<String> {
    let like: std::collections::HashSet<&str> = given.like.iter().map(String::as_str).collect();
    exemplar_core::review::listing::targets(map, &like)
        .into_iter()
        .map(|t| map.nodes[t as usize].url.clone())
        .collect()
}

fn write_pattern(pattern: &Pattern, out: &str) -> Result<(), String> {
    let mut w = create(out)?;
    w.write_all(pattern.to_json().as_bytes())
        .and_then(|()| w.flush())
        .map_err(|e| format!("{out}: {e}"))
}

/// The command line's verdicts `newer` over a pattern's `old` ones (those learning proposed, or
/// the user's so far). A verdict on a kind the pattern judged the other way takes that verdict
/// back (a kind left out is taken back by --like-heading, not taken whatever its similarity); on
/// any other kind it stands, and must name a kind of `map`'s pages (a mistyped template would
/// take nothing).
fn verdicts_over(
    old: &Corrections,
    mut newer: Corrections,
    map: &SiteMap,
) -> Result<Corrections, String> {
    let mut old = old.clone();
    newer.like_headings.retain(|k| {
        let back = old.unlike_headings.contains(k);
        old.unlike_headings.retain(|h| h != k);
        !back
    });
    newer.unlike_headings.retain(|k| {
        let back = old.like_headings.contains(k);
        old.like_headings.retain(|h| h != k);
        !back
    });
    // A directory may be typed as its path from the site's root.
    for list in [&mut newer.unlike_directories, &mut newer.like_directories] {
        for d in list.iter_mut() {
            *d = exemplar_core::review::directory::resolve(&map.entry, d).ok_or_else(|| {
                format!(
                    "{d:?} names no directory (its path from the site's root, as /en/howto/, or its URL, as the list of `learn` and `relearn` names it)"
                )
            })?;
        }
    }
    // Malformed verdicts first: text that is no template or tag is told as such.
    let merged = old.merged(&newer).map_err(|e| e.to_string())?;
    for d in newer
        .like_directories
        .iter()
        .chain(&newer.unlike_directories)
    {
        if !exemplar_core::review::directory::holds_pages(map, d) {
            return Err(format!(
                "no page of the map lies in the directory {d} (the list of `learn` and `relearn` names those targets lie in)"
            ));
        }
    }
    for l in newer.like_languages.iter().chain(&newer.unlike_languages) {
        let tag = exemplar_core::review::language::tag(l).unwrap_or_default();
        if !exemplar_core::review::language::declared(map, &tag) {
            return Err(format!(
                "no page of the map declares the language {l:?} (the list of `learn` and `relearn` names those targets declare)"
            ));
        }
    }
    let templates = exemplar_core::review::heading::Templates::of(map);
    for k in newer.like_headings.iter().chain(&newer.unlike_headings) {
        if !templates.names_kind(k) {
            return Err(format!(
                "{k:?} is no kind of the map's pages (the lists of `learn` and `relearn` name them)"
            ));
        }
    }
    Ok(merged)
}

/// `exemplar relearn`: the pattern again from the map it was learned from, at another θ or with
/// the user's verdicts on some pages (added to those the pattern already records), without
/// fetching anything.
pub fn relearn(args: &[String]) -> Result<(), String> {
    let pos = positional(args);
    let path = pos
        .first()
        .ok_or(format!("relearn needs a pattern file\n{USAGE}"))?;
    let edits = !flags(args, "--field").is_empty() || !flags(args, "--no-field").is_empty();
    let relearning = flag(args, "--threshold").is_some() || !corrections(args).is_empty();
    let out = flag(args, "-o").or(flag(args, "--out")).unwrap_or(path);
    if edits && flag(args, "--map").is_none() && !relearning {
        // The fields alone: no map, nothing learned again.
        let mut pattern = read_pattern(path)?;
        edit_fields(&mut pattern, args)?;
        write_pattern(&pattern, out)?;
        print_field_list(&pattern);
        println!("pattern written to {out}");
        return Ok(());
    }
    let map_path = flag(args, "--map").ok_or(format!(
        "relearn needs --map map.json (written by learn --map)\n{USAGE}"
    ))?;
    let old = read_pattern(path)?;
    let text = std::fs::read_to_string(map_path).map_err(|e| format!("{map_path}: {e}"))?;
    let map: SiteMap =
        serde_json::from_str(&text).map_err(|e| format!("{map_path}: not a site map: {e}"))?;
    map.check()
        .map_err(|e| format!("{map_path}: inconsistent site map: {e}"))?;
    if map.entry != old.entry || map.example != old.example {
        return Err(format!(
            "{map_path} was mapped from {} with example {}, {path} from {} with example {}",
            map.entry, map.example, old.entry, old.example
        ));
    }
    let threshold = parse::<f64>(args, "--threshold")?.unwrap_or(old.similarity.threshold);
    if !(0.0..=1.0).contains(&threshold) {
        return Err(format!("--threshold {threshold} is outside [0, 1]"));
    }
    let relabelled = pattern::relabelled(&map, threshold);
    let mut given = corrections(args);
    if switch(args, "--unlike-listings") {
        given.unlike.extend(listing_targets(&relabelled, &given));
    }
    let verdicts = verdicts_over(&old.corrections, given, &map)?;
    let (pattern, corrected) = old
        .relearned(relabelled, &verdicts, http::now_ms())
        .map_err(|e| e.to_string())?;
    let mut pattern = pattern;
    edit_fields(&mut pattern, args)?;
    write_pattern(&pattern, out)?;
    print!("{}", pattern.render());
    print_field_list(&pattern);
    super::review::print(&corrected, &pattern, args)?;
    println!("pattern written to {out}");
    Ok(())
}

/// The user's edits of the pattern's fields: `--no-field NAME` leaves one out, `--field
/// NAME=SELECTOR` adds one (or places an existing one there).
fn edit_fields(pattern: &mut Pattern, args: &[String]) -> Result<(), String> {
    use exemplar_core::fields::{Edit, edit};
    for name in flags(args, "--no-field") {
        let remove = Edit::Remove {
            name: name.to_string(),
        };
        edit::apply(&mut pattern.fields, &remove, &[])
            .map_err(|e| format!("--no-field {name}: {e}"))?;
    }
    for spec in flags(args, "--field") {
        let (name, sel) = spec
            .split_once('=')
            .ok_or(format!("--field {spec}: write NAME=SELECTOR"))?;
        if exemplar_core::fields::key(name).is_empty() {
            return Err(format!(
                "--field {spec}: field name {name:?}: give letters or digits"
            ));
        }
        let place = Edit::Place {
            name: name.to_string(),
            css: sel.to_string(),
        };
        edit::apply(&mut pattern.fields, &place, &[])
            .map_err(|e| format!("--field {spec}: {e}"))?;
    }
    pattern.validate().map_err(|e| e.to_string())
}

/// The pattern's fields, a line each: name, what named it, selector.
fn print_field_list(p: &Pattern) {
    if p.fields.is_empty() {
        return;
    }
    println!("fields:");
    for f in &p.fields {
        println!(
            "  {}  ({:?})  [{}]",
            f.name,
            f.named_by,
            exemplar_core::fields::describe(&f.place)
        );
    }
}

/// Names the links the trap guard refused, by reason (on stderr where the run's summary is).
fn print_traps(refused: &[exemplar_url::canon::Refusal], stderr: bool) {
    for r in refused {
        let line = format!(
            "trap guard: {} not followed, {} (e.g. {})",
            count(r.count, "link"),
            r.limit,
            r.example
        );
        if stderr {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
}

/// `--save-every S` (default 5 s), only with `--state`.
fn save_every(args: &[String], state: Option<&str>) -> Result<std::time::Duration, String> {
    let every: f64 = parse(args, "--save-every")?.unwrap_or(5.0);
    if !(every.is_finite() && every > 0.0) {
        return Err(format!(
            "--save-every must be a positive number of seconds\n{USAGE}"
        ));
    }
    if state.is_none() && flag(args, "--save-every").is_some() {
        return Err(format!("--save-every needs --state FILE\n{USAGE}"));
    }
    Ok(std::time::Duration::from_secs_f64(every))
}

fn read_pattern(path: &str) -> Result<Pattern, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    Pattern::from_json(&text).map_err(|e| format!("{path}: {e}"))
}

/// A target page as exports write it, with the pattern's `fields` read from it.
fn record(t: &TargetPage, fields: &[exemplar_core::fields::Field]) -> PageRecord {
    let content_type = t
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.as_str());
    let values = if fields.is_empty() {
        Vec::new()
    } else {
        let (html, _) = exemplar_html::text::decode(&t.body, content_type);
        exemplar_html::dom::Document::parse(&html)
            .map(|doc| exemplar_core::fields::extract(fields, &doc, &t.final_url))
            .unwrap_or_default()
    };
    PageRecord {
        fields: values,
        url: t.url.clone(),
        final_url: t.final_url.clone(),
        status: t.status,
        content_type: t
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.clone()),
        headers: t.headers.clone(),
        fetched_at_ms: t.fetched_at_ms,
        title: Some(t.title.clone()),
        heading: Some(t.heading.clone()),
        lang: Some(t.lang.clone()),
        canonical: t.canonical.clone(),
        similarity: t.similarity,
        level: Some(t.found_on_level),
        by_heading: t.by_heading,
        text_digest: Some(t.text_digest.clone()),
        change: None,
        body: Some(t.body.clone()),
    }
}

pub fn crawl(args: &[String]) -> Result<(), String> {
    let pos = positional(args);
    let path = pos
        .first()
        .ok_or(format!("crawl needs a pattern file\n{USAGE}"))?;
    let pattern = read_pattern(path)?;
    let drawn = pattern.render;
    let fields = pattern.fields.clone();
    let mut config = CrawlConfig::default();
    if let Some(v) = parse(args, "--max-pages")? {
        config.max_pages = v;
    }
    if let Some(v) = max_bytes(args)? {
        config.max_bytes = v;
    }
    config.politeness = Some(politeness(args, pattern.politeness.clone())?);
    config.forms = crawl_forms(args)?;
    if !pattern.levels.iter().any(|l| l.form.is_some())
        && (config.forms.queries.is_some()
            || config.forms.policy.is_some()
            || config.forms.budget.is_some())
    {
        return Err(format!(
            "{path}: the pattern has no form level, so --queries/--policy/--budget do not apply"
        ));
    }
    let paths = ExportPaths {
        jsonl: flag(args, "--jsonl"),
        html: switch(args, "--html"),
        csv: flag(args, "--csv"),
        warc: flag(args, "--warc"),
        fields: fields.iter().map(|f| f.name.clone()).collect(),
    };
    // --verify checks every target against the example; --verify-new only those learning did
    // not know.
    let verify = switch(args, "--verify") || switch(args, "--verify-new");
    config.verify_new_only = !switch(args, "--verify") && switch(args, "--verify-new");
    config.read_sitemaps = !switch(args, "--no-sitemaps");
    let config_max_bytes = config.max_bytes;
    let since_path = flag(args, "--since");
    let changes_only = switch(args, "--changes-only");
    if changes_only && since_path.is_none() {
        return Err(format!(
            "--changes-only needs --since EARLIER.jsonl (the export to compare with)\n{USAGE}"
        ));
    }
    if changes_only && since_path == paths.jsonl {
        return Err(format!(
            "--changes-only would leave in {} the changes alone, and the next --since would compare with them: write the changes to another file",
            since_path.unwrap_or_default()
        ));
    }
    let state_path = flag(args, "--state");
    let saved = match state_path {
        Some(sp) => resume::load::<CrawlState>(sp)?,
        None => None,
    };
    let (start, exports, since) = match saved {
        Some(saved) => {
            let sp = state_path.unwrap_or_default();
            let snap = &saved.crawler;
            if snap.pattern() != &pattern {
                return Err(format!(
                    "{sp} saves a crawl of another pattern than {path}; remove it to start over"
                ));
            }
            if snap.config() != &config
                || snap.verifies() != verify
                || saved.since.as_ref().map(|s| s.path.as_str()) != since_path
            {
                return Err(format!(
                    "{sp} saves a crawl with other settings (--max-pages, --max-bytes, --delay-ms, --concurrency, --verify, --no-sitemaps, --since or the form options): run the same command to resume, or remove it to start over"
                ));
            }
            let exports = Exports::resume(&paths, &saved.exports)?;
            eprintln!(
                "resuming the crawl saved in {sp}: {} so far",
                count(snap.targets().len(), "target")
            );
            (
                CrawlStart::Resume(Box::new(saved.crawler)),
                exports,
                saved.since,
            )
        }
        None => {
            // Read before the exports are created: `--since` may name the file `--jsonl`
            // writes anew.
            let since = since_path.map(Since::read).transpose()?;
            (
                CrawlStart::Pattern {
                    pattern: Box::new(pattern),
                    config: Box::new(config),
                    verify,
                },
                Exports::create(&paths)?,
                since,
            )
        }
    };
    let exports = RefCell::new(exports);
    let since = RefCell::new(since);
    let mut bar = ProgressLine::new(switch(args, "--quiet"));
    let mut save = |snapshot: exemplar_core::crawler::Snapshot| -> Result<(), String> {
        let marks = exports.borrow_mut().marks()?;
        resume::save(
            state_path.unwrap_or_default(),
            CrawlState {
                crawler: snapshot,
                exports: marks,
                since: since.borrow().clone(),
            },
        )
    };
    let every = save_every(args, state_path)?;
    let checkpoints = resume::checkpoints(state_path, every, &mut save);
    let mut client = client_config(args)?;
    let mode = render_mode(
        args,
        if drawn {
            RenderMode::Always
        } else {
            RenderMode::Never
        },
    )?;
    if mode == RenderMode::Always {
        let renderer = exemplar_native::render::Renderer::new(render_config(&client))
            .map_err(|e| format!("{e} (the pattern says the site's pages are drawn by scripts; --no-render fetches only)"))?;
        client.renderer = Some(std::sync::Arc::new(renderer));
    }
    let crawled = run::crawl_from(
        start,
        &client,
        &mut |t| {
            let change = since
                .borrow_mut()
                .as_mut()
                .map(|s| s.note(&t.url, &t.text_digest));
            if changes_only && change == Some(export::Change::Same) {
                return Ok(());
            }
            exports.borrow_mut().write(PageRecord {
                change,
                ..record(t, &fields)
            })
        },
        &mut |p, url| {
            let queries = if p.queries > 0 {
                format!(", {} queries", p.queries)
            } else {
                String::new()
            };
            bar.draw(
                p.fetched,
                &format!(
                    "{} targets ({} new), {} queued{queries}",
                    p.targets, p.new_targets, p.queued
                ),
                url,
            )
        },
        checkpoints,
    )?;
    bar.finish();
    print_rendered(&client, crawled.progress.fetched);
    exports.into_inner().finish()?;
    let so_far = count(crawled.progress.targets, "target");
    resume::conclude(state_path, crawled.interrupted, "crawl", &so_far)?;
    for url in &crawled.targets {
        println!("{url}");
    }
    let c = &crawled.coverage;
    let p = &crawled.progress;
    if p.queries > 0 {
        eprintln!("forms: {} queries issued", p.queries);
    }
    if p.sitemaps > 0 || !crawled.sitemaps_not_read.is_empty() {
        eprintln!(
            "sitemaps: {} read (named by robots.txt), {} of the URLs they list followed{}",
            p.sitemaps,
            p.sitemap_links,
            match crawled.sitemaps_not_read.len() {
                0 => String::new(),
                n => format!("; {} not read:", count(n, "sitemap")),
            }
        );
        for line in not_read_lines(&crawled.sitemaps_not_read) {
            eprintln!("{line}");
        }
    }
    if let Some(line) = retried_line(p.retried) {
        eprintln!("{line}");
    }
    eprintln!(
        "crawl: {} ({} new) from {} fetched{}{} in {:.1} s; {}, {} skipped, {} rejected by verification",
        count(p.targets, "target"),
        p.new_targets,
        count(p.fetched, "page"),
        scripts_read(p.scripts),
        match p.sitemap_requests {
            0 => String::new(),
            n => format!(" (and {})", count(n, "sitemap request")),
        },
        crawled.elapsed.as_secs_f64(),
        count(p.errors, "error"),
        p.skipped,
        p.rejected
    );
    if p.duplicate_rules_refuted > 0 {
        eprintln!(
            "{} for duplicate URLs refuted by the site (a copy it named was another page): not applied in this crawl",
            count(p.duplicate_rules_refuted, "rule")
        );
    }
    for h in crawled.replica_hosts.iter().filter(|h| h.replica) {
        eprintln!(
            "links to {}, a replica of this site (the same paths under another name), were followed as this site's: {}",
            h.host,
            count(h.links, "link")
        );
    }
    if p.duplicates_avoided > 0 {
        eprintln!(
            "{} {} not fetched: the pattern's rules for duplicate URLs name a page already met under another URL",
            p.duplicates_avoided,
            if p.duplicates_avoided == 1 {
                "copy"
            } else {
                "copies"
            }
        );
    }
    if p.by_heading > 0 {
        eprintln!(
            "verification took {} just below θ for {} heading (it follows the targets' heading template)",
            count(p.by_heading, "page"),
            if p.by_heading == 1 { "its" } else { "their" }
        );
    }
    let too_large: Vec<&str> = crawled.too_large.iter().map(String::as_str).collect();
    print_too_large(&too_large, config_max_bytes, "crawl");
    print_traps(&crawled.traps, true);
    eprintln!(
        "coverage: {} of {} targets known from learning reached; {} missed; {} not known before",
        c.reached,
        c.known,
        c.missed.len(),
        c.new.len()
    );
    for m in c.missed.iter().take(10) {
        eprintln!("  missed: {m}");
    }
    if let Some(s) = since.borrow().as_ref() {
        for line in s.report(&crawled.targets, 10) {
            eprintln!("{line}");
        }
        if changes_only {
            eprintln!(
                "exports: the {} new and changed pages only (--changes-only)",
                s.new.len() + s.changed.len()
            );
        }
    }
    Ok(())
}

/// `--queries FILE` (one value per line, `#` comments; `-` reads stdin), `--policy NAME`,
/// `--budget N`, `--result-pages N`: how the crawl fills the pattern's form levels.
fn crawl_forms(args: &[String]) -> Result<CrawlForms, String> {
    let mut forms = CrawlForms::default();
    if let Some(f) = flag(args, "--queries") {
        let text = if f == "-" {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .map_err(|e| format!("--queries: stdin: {e}"))?;
            s
        } else {
            std::fs::read_to_string(f).map_err(|e| format!("--queries {f}: {e}"))?
        };
        let values: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        if values.is_empty() {
            return Err(format!("--queries {f}: no values (one per line)"));
        }
        forms.queries = Some(values);
    }
    if let Some(p) = flag(args, "--policy") {
        if forms.queries.is_some() {
            return Err("--queries and --policy exclude each other".into());
        }
        forms.policy = Some(QueryPolicy::parse(p)?);
    }
    if let Some(n) = parse::<usize>(args, "--budget")? {
        if n == 0 {
            return Err("--budget must be at least 1".into());
        }
        forms.budget = Some(n);
    }
    if let Some(n) = parse::<u32>(args, "--result-pages")? {
        if n == 0 {
            return Err("--result-pages must be at least 1".into());
        }
        forms.max_result_pages = Some(n);
    }
    Ok(forms)
}

pub fn export_scrapy(args: &[String]) -> Result<(), String> {
    let pos = positional(args);
    let [path, dir] = pos[..] else {
        return Err(format!(
            "export-scrapy needs a pattern file and a directory\n{USAGE}"
        ));
    };
    let pattern = read_pattern(path)?;
    let spec = export::ScrapySpec::from_pattern(&pattern);
    export::write_scrapy_project(&spec, Path::new(dir)).map_err(|e| format!("{dir}: {e}"))?;
    println!(
        "Scrapy project written to {dir}: cd {dir} && scrapy crawl {}",
        spec.spider_name()
    );
    if spec.render {
        eprintln!(
            "note: the pattern says this site's pages are drawn by scripts; the spider fetches them as served, without what the scripts draw (exemplar crawl renders them)"
        );
    }
    Ok(())
}

/// `exemplar detect`: a site's entity sections, found in a few fetches, one result per site
/// (text, or with `--json` one JSON object a line). A site that cannot be searched (no page
/// answers) is reported as such and the others go on; the exit status is 1 when any failed.
pub fn detect(args: &[String]) -> Result<(), String> {
    use exemplar_core::detect::{DetectConfig, Prioritiser, Strategy};
    let urls = positional(args);
    if urls.is_empty() {
        return Err(format!("detect needs at least one URL\n{USAGE}"));
    }
    let mut config = DetectConfig {
        politeness: politeness(args, Politeness::default())?,
        ..DetectConfig::default()
    };
    if let Some(n) = parse::<usize>(args, "--max-fetches")? {
        if n == 0 {
            return Err(format!("--max-fetches must be at least 1\n{USAGE}"));
        }
        config.max_fetches = n;
    }
    // The baselines are the source document's method: they stop at the first page the model
    // calls an index, unconfirmed.
    if switch(args, "--baseline") {
        config.prioritiser = Prioritiser::Baseline;
        config.confirm = false;
        config.site_words = false;
    }
    if switch(args, "--breadth-first") {
        config.strategy = Strategy::BreadthFirst;
        config.confirm = false;
        config.site_words = false;
    }
    let json = switch(args, "--json");
    let client = client_config(args)?;
    let mut failed = 0;
    for url in urls {
        let d = match run::detect(url, &config, &client) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("exemplar: {url}: {e}");
                failed += 1;
                continue;
            }
        };
        if json {
            println!("{}", serde_json::to_string(&d).map_err(|e| e.to_string())?);
            continue;
        }
        println!(
            "{url}: {} ({} fetched)",
            if d.entity_site {
                "item pages found"
            } else {
                "no section of item pages found"
            },
            count(d.fetches, "page")
        );
        for (i, s) in d.sections.iter().enumerate() {
            println!(
                "  {}. {} lists about {} like {} ({})",
                i + 1,
                s.index.join(", "),
                count(s.estimated_items, "item"),
                s.examples.first().map_or("", String::as_str),
                s.shape
            );
        }
    }
    if failed > 0 {
        return Err(format!("{} could not be searched", count(failed, "site")));
    }
    Ok(())
}

pub fn serve(args: &[String]) -> Result<(), String> {
    let dir = positional(args)
        .first()
        .map(PathBuf::from)
        .ok_or(format!("serve needs a directory\n{USAGE}"))?;
    if !dir.is_dir() {
        return Err(format!("{}: not a directory", dir.display()));
    }
    let port = parse(args, "--port")?.unwrap_or(8000);
    // A remote site's round trip, for measuring a crawl as it runs over a network.
    let latency = match flag(args, "--latency-ms") {
        Some(v) => Latency::parse(v).ok_or(format!(
            "bad value for --latency-ms: {v:?} (MS or MIN-MAX)\n{USAGE}"
        ))?,
        None => Latency::default(),
    };
    exemplar_native::serve::serve_dir(dir, port, latency)
}
