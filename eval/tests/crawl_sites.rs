//! Learning and crawling the real development sites (Debian documentation packages served on
//! 127.0.0.1), as a regression guard for `docs/reports/crawl.md`: the bar (precision 100%, recall ≥ 99%,
//! crawl links ≤ 1.2 × targets) on every site, every target found; the pages taken below θ for
//! their heading (SFML's two member-less classes, nothing else); the review leaving nothing to
//! mark; the target level matching targets learning did not see; and the heading rule the
//! pattern carries taking a page published after learning.
//!
//! Skipped (with a notice) when the sites are not installed; `./build.sh setup` installs them.

use exemplar_eval::crawl_eval::evaluate;
use exemplar_testkit::devsites;

#[test]
fn learned_patterns_crawl_the_dev_sites() {
    let sites = match devsites::installed() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    for site in &sites {
        let f = evaluate(site, &mut |_| {}).unwrap_or_else(|e| panic!("{}: {e}", site.name));
        eprintln!(
            "{}: truth {} mapped {} ({} true) crawled {} ({} true), links {} / {}",
            f.name,
            f.truth,
            f.mapped,
            f.mapped_true,
            f.crawled,
            f.crawled_true,
            f.map_links,
            f.crawl_links
        );
        assert!(f.truth > 100, "{}: ground truth shrank", f.name);
        assert_eq!(f.precision(), 1.0, "{}: wrong pages {:?}", f.name, f.wrong);
        // The crawl loses nothing the mapping found.
        assert_eq!(f.crawled_true, f.mapped_true, "{}", f.name);
        assert!(f.meets_bar(), "{}: missed {:?}", f.name, f.missed);
        assert!(f.missed.is_empty(), "{}: missed {:?}", f.name, f.missed);
        // Learning takes pages below θ for their heading only on SFML: its two member-less
        // class pages, which look less like the example than Doxygen's namespace pages
        // (docs/reports/similarity.md, What remains), and nothing else.
        let taken = match f.name.as_str() {
            "postgres15" | "commons-lang3" | "python311" => 0,
            "sfml" => 2,
            other => panic!("unexpected site {other}"),
        };
        assert_eq!(
            (f.by_heading, f.by_heading_true),
            (taken, taken),
            "{}: taken for their heading",
            f.name
        );
        // The rule the pattern carries, on pages learning did not see (held out in five folds):
        // it takes the same pages just below θ, and no other.
        let n = f.new_pages;
        assert_eq!(
            (n.band_targets, n.band_targets_taken, n.band_others_taken),
            (taken, taken, 0),
            "{}: {n:?}",
            f.name
        );
        // The near-miss review: every missed target is among the pages shown just below θ,
        // and marking them gives every target and nothing else.
        let r = &f.review;
        eprintln!(
            "{}: review shows {} ({} URL-like), {} marked, crawl {} ({} true)",
            f.name, r.shown, r.url_like, r.marked, r.crawled, r.crawled_true
        );
        assert_eq!(r.marked, f.truth - f.mapped_true, "{}", f.name);
        assert_eq!(r.unmarked, 0, "{}: no target to take back", f.name);
        assert_eq!(
            (r.crawled, r.crawled_true),
            (f.truth, f.truth),
            "{}: after the review",
            f.name
        );
        // Unseen pages: the target level learned from four fifths of the map matches nearly
        // every held-out target, and never fewer than splitting around the known non-targets.
        let (ex, split) = match (f.unseen.first(), f.unseen.last()) {
            (Some((_, ex)), Some((0.0, split))) => (*ex, *split),
            _ => panic!("{}: the default and splitting only measured", f.name),
        };
        eprintln!("{}: unseen {ex:?} / splitting only {split:?}", f.name);
        let share =
            |u: &exemplar_eval::crawl_eval::Unseen| u.targets_matched as f64 / u.targets as f64;
        assert!(share(&ex) >= 0.95, "{}: {ex:?}", f.name);
        assert!(share(&ex) >= share(&split), "{}: {ex:?} {split:?}", f.name);
        assert!(
            ex.regexes <= split.regexes,
            "{}: fewer, more general regexes",
            f.name
        );
    }
}

/// A site that gains a page of the targets' kind after learning, one the similarity alone
/// would reject: SFML's member-less class `sf::Utf` (docs/reports/similarity.md), absent (404) while
/// learning and there when the pattern runs again. The pattern carries the heading rule
/// learning applied, so a crawl verifying new pages takes it, marked; without the rule the
/// same crawl rejects it.
#[test]
fn a_new_page_below_theta_is_taken_by_the_heading_rule_learning_applied() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use exemplar_core::crawler::CrawlConfig;
    use exemplar_core::fetch::Politeness;
    use exemplar_core::mapper::MapConfig;
    use exemplar_native::http::ClientConfig;
    use exemplar_native::run;
    use exemplar_native::serve::{Response, Server, static_dir};

    let site = match devsites::installed_site("sfml") {
        Ok(site) => site,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    const NEW: &str = "classsf_1_1Utf.html";
    let published = Arc::new(AtomicBool::new(false));
    let files = static_dir(site.root.clone());
    let handler = {
        let published = Arc::clone(&published);
        move |req: &exemplar_native::serve::Request| {
            if req.path.trim_start_matches('/') == NEW && !published.load(Ordering::SeqCst) {
                Response::not_found()
            } else {
                files(req)
            }
        }
    };
    let server = Server::start(0, handler).expect("serve sfml");
    let base = server.url();
    let politeness = Politeness::unthrottled(8);
    let learned = run::learn(
        &format!("{base}/{}", site.entry),
        &format!("{base}/{}", site.example),
        MapConfig {
            politeness: politeness.clone(),
            ..MapConfig::default()
        },
        &ClientConfig::default(),
        &mut |_, _| {},
    )
    .expect("learn");
    let new_url = format!("{base}/{NEW}");
    let pattern = learned.pattern;
    assert!(!pattern.known_targets.contains(&new_url));
    let rule = pattern.heading_rule.clone().expect("a heading rule");
    assert!(
        rule.templates
            .iter()
            .any(|t| t == "sf * Class Template Reference System module"),
        "{rule:?}"
    );
    // The rule travels with the pattern's JSON.
    let pattern = exemplar_core::pattern::Pattern::from_json(&pattern.to_json()).expect("reload");
    assert_eq!(pattern.heading_rule.as_ref(), Some(&rule));

    published.store(true, Ordering::SeqCst);
    let crawl = |pattern: exemplar_core::pattern::Pattern| {
        let mut taken = Vec::new();
        let crawled = run::crawl(
            pattern,
            CrawlConfig {
                politeness: Some(politeness.clone()),
                verify_new_only: true,
                ..CrawlConfig::default()
            },
            true,
            &ClientConfig::default(),
            &mut |t| {
                if t.by_heading {
                    taken.push((t.url.clone(), t.similarity));
                }
                Ok(())
            },
            &mut |_, _| {},
        )
        .expect("crawl");
        (crawled, taken)
    };
    let (crawled, taken) = crawl(pattern.clone());
    assert!(
        crawled.targets.contains(&new_url),
        "{:?}",
        crawled.coverage.new
    );
    assert_eq!(crawled.coverage.new, std::slice::from_ref(&new_url));
    assert_eq!(crawled.progress.by_heading, 1);
    assert_eq!(taken.len(), 1);
    let (url, similarity) = &taken[0];
    assert_eq!(url, &new_url);
    let theta = pattern.similarity.threshold;
    let s = similarity.expect("verified");
    assert!(
        s < theta && s >= theta - exemplar_core::review::heading::WELL_BELOW,
        "{s} vs θ {theta}"
    );
    assert_eq!(crawled.progress.rejected, 0);

    // Without the rule, the similarity alone rejects it.
    let mut bare = pattern;
    bare.heading_rule = None;
    let (crawled, taken) = crawl(bare);
    assert!(!crawled.targets.contains(&new_url));
    assert!(taken.is_empty());
    assert_eq!(crawled.progress.rejected, 1);
}
