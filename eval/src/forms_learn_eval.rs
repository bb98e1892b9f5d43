//! `./build.sh eval-forms`, part (a): learning a crawler through a real search form. From the
//! search page of Xapian Omega over the PostgreSQL docs (entry) and one reference page found
//! through it (example), Exemplar maps the site — submitting the form with the thesis's values —
//! learns a pattern that must contain the form as a template level, and crawls with the adaptive
//! policy; the crawl's targets are checked against the reference pages of the documentation
//! (ground truth from the generator's markers, counted at run time in the doc directory).
use std::path::Path;
use std::time::Duration;

use exemplar_core::crawler::{CrawlConfig, CrawlForms};
use exemplar_core::fetch::Politeness;
use exemplar_core::mapper::{FormState, MapConfig};
use exemplar_core::pattern::{Pattern, QueryPolicy};
use exemplar_native::http::ClientConfig;
use exemplar_native::run;

/// The marker DocBook writes into every PostgreSQL reference page (`../shared/eval/dev-sites.toml`).
pub const REFENTRY: &str = r#"<hr /></div><div class="refentry""#;

/// What learning and crawling through the form gave.
#[derive(Clone, Debug)]
pub struct LearnCrawl {
    /// The learned pattern.
    pub pattern: Pattern,
    /// Forms met while mapping, submitted, and analysed.
    pub forms_met: usize,
    /// Submissions made while mapping.
    pub submissions: usize,
    /// Pages fetched while mapping.
    pub mapped_pages: usize,
    /// Reference pages in the documentation (ground truth).
    pub reference_pages: usize,
    /// Targets the crawl collected.
    pub targets: usize,
    /// Of which reference pages.
    pub true_targets: usize,
    /// Queries the crawl issued.
    pub queries: usize,
    /// Pages the crawl fetched.
    pub crawl_pages: usize,
    /// Mapping time.
    pub learn_time: Duration,
    /// Crawling time.
    pub crawl_time: Duration,
}

impl LearnCrawl {
    /// Precision of the crawl (1 when it collected nothing).
    pub fn precision(&self) -> f64 {
        if self.targets == 0 {
            1.0
        } else {
            self.true_targets as f64 / self.targets as f64
        }
    }

    /// Share of the reference pages the crawl collected.
    pub fn recall(&self) -> f64 {
        if self.reference_pages == 0 {
            0.0
        } else {
            self.true_targets as f64 / self.reference_pages as f64
        }
    }

    /// The level through the form, if the pattern has one.
    pub fn form_template(&self) -> Option<&str> {
        self.pattern
            .levels
            .iter()
            .find_map(|l| l.form.as_ref().map(|f| f.template.as_str()))
    }

    /// The bar of issue 5 (a): the form template in the pattern, precision 100%, ≥ 95% of the
    /// reference pages.
    pub fn bar(&self) -> Vec<(bool, String)> {
        vec![
            (
                self.form_template().is_some(),
                format!(
                    "the pattern has a form template level ({})",
                    self.form_template().unwrap_or("none")
                ),
            ),
            (
                self.true_targets == self.targets,
                format!("crawl precision {:.1}%", 100.0 * self.precision()),
            ),
            (
                self.recall() >= 0.95,
                format!(
                    "the adaptive crawl reached {} of {} reference pages ({:.1}%, bar 95%)",
                    self.true_targets,
                    self.reference_pages,
                    100.0 * self.recall()
                ),
            ),
        ]
    }

    /// A markdown section.
    pub fn report(&self) -> String {
        use std::fmt::Write;
        let mut s = String::from("\n## Learning a crawler through the search form\n\n");
        let _ = writeln!(
            s,
            "Entry: Omega's search page; example: one reference page (`sql-vacuum.html`). Mapping \
             fetched {} pages and submitted {} queries through {} form(s) (the thesis's values: \
             the least frequent terms of the example and the form page, crossed with the radio \
             values) in {:.1} s; the crawl with the adaptive policy issued {} queries and fetched \
             {} pages in {:.1} s.\n",
            self.mapped_pages,
            self.submissions,
            self.forms_met,
            self.learn_time.as_secs_f64(),
            self.queries,
            self.crawl_pages,
            self.crawl_time.as_secs_f64()
        );
        let _ = writeln!(
            s,
            "| reference pages | crawl targets | of which reference | precision | recall |"
        );
        let _ = writeln!(s, "|---:|---:|---:|---:|---:|");
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1}% | {:.1}% |\n",
            self.reference_pages,
            self.targets,
            self.true_targets,
            100.0 * self.precision(),
            100.0 * self.recall()
        );
        for (ok, line) in self.bar() {
            let _ = writeln!(s, "- {}: {line}", if ok { "PASS" } else { "FAIL" });
        }
        s.push_str("\nThe learned pattern:\n\n```\n");
        s.push_str(&self.pattern.render());
        s.push_str("```\n");
        s
    }
}

/// Reference pages under `root` (HTML files carrying [`REFENTRY`]).
///
/// # Errors
/// An unreadable directory.
pub fn count_reference_pages(root: &Path) -> Result<usize, String> {
    let mut n = 0;
    let dir = std::fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    for entry in dir.flatten() {
        let p = entry.path();
        if p.extension().is_some_and(|e| e == "html")
            && std::fs::read(&p)
                .map(|b| String::from_utf8_lossy(&b).contains(REFENTRY))
                .unwrap_or(false)
        {
            n += 1;
        }
    }
    Ok(n)
}

/// Learns from `search` (the form page) and `example`, then crawls with the adaptive policy and
/// `budget` queries.
///
/// # Errors
/// Network errors, no pattern learned, an unreadable doc directory.
pub fn learn_and_crawl(
    search: &str,
    example: &str,
    root: &Path,
    budget: usize,
    log: &mut dyn FnMut(String),
) -> Result<LearnCrawl, String> {
    let reference_pages = count_reference_pages(root)?;
    let polite = Politeness::unthrottled(4);
    let config = MapConfig {
        politeness: polite.clone(),
        ..MapConfig::default()
    };
    log(format!("learning from {search} with the example {example}"));
    let learned = run::learn(
        search,
        example,
        config,
        &ClientConfig::default(),
        &mut |_, _| {},
    )?;
    let map = &learned.map;
    let forms_met = map
        .forms
        .iter()
        .filter(|f| matches!(f.state, FormState::Analysed { .. }))
        .count();
    let submissions = map.forms.iter().map(|f| f.submissions.len()).sum();
    log(learned.pattern.render());
    let crawl_config = CrawlConfig {
        politeness: Some(polite),
        forms: CrawlForms {
            policy: Some(QueryPolicy::Adaptive),
            budget: Some(budget),
            ..CrawlForms::default()
        },
        ..CrawlConfig::default()
    };
    let mut true_targets = 0;
    let crawled = run::crawl(
        learned.pattern.clone(),
        crawl_config,
        false,
        &ClientConfig::default(),
        &mut |t| {
            if String::from_utf8_lossy(&t.body).contains(REFENTRY) {
                true_targets += 1;
            }
            Ok(())
        },
        &mut |_, _| {},
    )?;
    Ok(LearnCrawl {
        pattern: learned.pattern,
        forms_met,
        submissions,
        mapped_pages: learned.progress.fetched,
        reference_pages,
        targets: crawled.targets.len(),
        true_targets,
        queries: crawled.progress.queries,
        crawl_pages: crawled.progress.fetched,
        learn_time: learned.elapsed,
        crawl_time: crawled.elapsed,
    })
}
