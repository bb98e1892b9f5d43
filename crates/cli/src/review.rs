//! The review `learn` and `relearn` offer after learning: the lists where a page the crawler
//! gets wrong would show — the pages just below θ (a target the example does not resemble
//! enough), the targets worth checking (a page of another kind built from the same template),
//! and the targets and pages grouped by heading, declared language and directory, for a
//! verdict on a whole kind.
//!
//! The contract: by default a command prints one line saying what the lists hold ([`Review::
//! summary`]); `--review` prints them, each cut to a few rows with a count of the rest
//! ([`Review::render`] with a cap); `--review-file FILE` writes them whole. A site whose items
//! sit in their own directories lists 2,000 targets: the terminal gets the pattern and a line,
//! the file gets everything. The rows' formats are those the CLI's tests and users parse: one
//! page or kind a line, indented by two spaces; what is cut off is said on an unindented line.

use exemplar_core::mapper::SiteMap;
use exemplar_core::pattern::{self, Pattern, count};
use exemplar_core::review::{directory, heading, language, listing};

/// How many pages just below θ `--review` prints.
const NEAR_MISSES_SHOWN: usize = 10;
/// How many rows of every other list `--review` prints.
const ROWS_SHOWN: usize = 20;

/// One list of the review: its header (what it holds, the marks' legend, the verdict that
/// acts on it), its rows, and what it holds in a few words for the summary.
struct List {
    header: String,
    rows: Vec<String>,
    /// Rows `--review` prints.
    shown: usize,
    /// The summary's words for `n` rows (`12 pages just below θ`).
    what: fn(usize) -> String,
}

/// The review of a learned pattern over its map, every list whole.
pub struct Review {
    lists: Vec<List>,
    /// A suggestion, not a list: the gap in the scores below θ, when there is one.
    gap: Option<String>,
    /// The gap is said after the first list (the pages below θ it is about), not before it.
    gap_after_first: bool,
}

impl Review {
    /// The review of `pattern` learned over `map` (with the user's verdicts applied).
    pub fn of(map: &SiteMap, pattern: &Pattern) -> Review {
        let corrections = &pattern.corrections;
        let mut lists = Vec::new();
        let near = pattern::near_misses(map, corrections, usize::MAX);
        lists.push(List {
            header: format!(
                "closest pages below θ = {:.3} (* URL shaped like the targets'; relearn --like URL counts one as a target):",
                map.threshold
            ),
            rows: near
                .iter()
                .map(|n| {
                    let url = if n.url_like_targets { '*' } else { ' ' };
                    format!("  {:.3} {url} {}{}", n.similarity, n.url, named(&n.heading))
                })
                .collect(),
            shown: NEAR_MISSES_SHOWN,
            what: |n| format!("{} below θ", count(n, "page")),
        });
        let gap = pattern::threshold_gap(map, corrections).map(|gap| {
            format!(
                "a gap in the scores below θ: {} score from {:.3} to θ, {} of them with URLs shaped like the targets', the next page {:.3}; if they are like the example, relearn --threshold {:.2} takes them",
                count(gap.pages, "page"),
                gap.lowest_above,
                gap.url_like_targets,
                gap.highest_below,
                gap.threshold
            )
        });
        let doubtful = pattern::doubtful_targets(
            map,
            corrections,
            &pattern.by_heading,
            pattern.entry_target,
            usize::MAX,
        );
        lists.push(List {
            header: "targets to check (e the entry page, collected as it is like the example; h taken below θ for its heading, naming the targets' kind; ! URL shaped like pages below θ; relearn --unlike URL drops one):".into(),
            rows: doubtful
                .iter()
                .map(|d| {
                    let heading = match (d.entry, d.by_heading) {
                        (true, _) => 'e',
                        (false, true) => 'h',
                        (false, false) => ' ',
                    };
                    let url = if d.url_unlike_targets { '!' } else { ' ' };
                    format!("  {:.3} {heading}{url} {}{}", d.similarity, d.url, named(&d.heading))
                })
                .collect(),
            shown: pattern::DOUBTFUL_SHOWN,
            what: |n| format!("{} to check", count(n, "target")),
        });
        let like: std::collections::HashSet<&str> =
            corrections.like.iter().map(String::as_str).collect();
        lists.push(List {
            header: "targets that look like listing pages (the page-kind model says so, or they page on by Next or page numbers; relearn --unlike URL drops one, --unlike-listings all of them):".into(),
            rows: listing::targets(map, &like)
                .into_iter()
                .map(|t| {
                    let n = &map.nodes[t as usize];
                    let similarity = n.similarity.unwrap_or_default();
                    format!("  {similarity:.3} {}{}", n.url, named(&n.heading))
                })
                .collect(),
            shown: ROWS_SHOWN,
            what: |n| format!("{} like listing pages", count(n, "target")),
        });
        // Kinds by heading: a choice only where targets have two or more.
        let kinds = heading::kinds(
            map,
            &pattern.unlike_by_heading,
            &corrections.unlike_headings,
        );
        let kinds = if kinds.len() >= 2 || kinds.iter().any(|k| k.unlike) {
            kinds
        } else {
            Vec::new()
        };
        lists.push(List {
            header: "targets by heading (x left out: by your verdict, or by learning for a manual section not the example's; relearn --unlike-heading TEMPLATE leaves a kind out, --like-heading takes one back):".into(),
            rows: kinds
                .iter()
                .map(|k| {
                    let what = if k.template == heading::NUMBERED {
                        " (headings that start with a section number: chapters, sections)"
                    } else {
                        ""
                    };
                    let name = format!("{}{what}", named(&k.template));
                    let figures = format!("{:>5}", k.targets);
                    kind_line(&figures, k.unlike, 'x', &name, k.example, &k.samples)
                })
                .collect(),
            shown: ROWS_SHOWN,
            what: |n| format!("targets under {}", plural(n, "heading", "headings")),
        });
        let languages = language::kinds(
            map,
            &pattern.unlike_by_language,
            &corrections.unlike_languages,
        );
        lists.push(List {
            header: "targets by declared language (x left out: by your verdict, or by learning for a language not the example's; relearn --unlike-language TAG leaves one out, --like-language takes one back):".into(),
            rows: languages
                .iter()
                .map(|k| group_line(k.targets, k.unlike, &k.language, k.example, &k.samples))
                .collect(),
            shown: ROWS_SHOWN,
            what: |n| format!("targets in {}", count(n, "language")),
        });
        let directories = directory::all_kinds(
            map,
            &pattern.unlike_by_directory,
            &corrections.unlike_directories,
        );
        lists.push(List {
            header: "targets by directory (x left out by your verdict; relearn --unlike-directory DIR leaves one out, --like-directory takes one back; DIR as listed, or its path: /en/howto/):".into(),
            rows: directories
                .iter()
                .map(|k| group_line(k.targets, k.unlike, &k.directory, k.example, &k.samples))
                .collect(),
            shown: ROWS_SHOWN,
            what: |n| format!("targets in {}", plural(n, "directory", "directories")),
        });
        // Kinds of the pages below θ: a whole kind taken where θ cuts through it.
        let below = heading::kinds_below(map, &corrections.like_headings, |n| {
            corrections.leave_out(n)
        });
        lists.push(List {
            header: "pages below θ by heading, with the best similarity among them (+ taken; relearn --like-heading TEMPLATE takes a kind whatever its similarity):".into(),
            rows: below
                .iter()
                .map(|k| {
                    let figures = format!("{:>5} {:.3}", k.pages, k.best);
                    kind_line(&figures, k.like, '+', &named(&k.template), k.example, &k.samples)
                })
                .collect(),
            shown: ROWS_SHOWN,
            what: |n| format!("pages below θ under {}", plural(n, "heading", "headings")),
        });
        let gap_after_first = !lists[0].rows.is_empty();
        lists.retain(|l| !l.rows.is_empty());
        Review {
            lists,
            gap,
            gap_after_first,
        }
    }

    /// The lists, each cut to its first rows when `capped` (what is cut off counted on a line
    /// of its own, which names `--review-file`), with the gap's suggestion after the pages
    /// below θ.
    pub fn render(&self, capped: bool) -> String {
        let mut out = String::new();
        let gap = self.gap.as_deref().map(|g| format!("{g}\n"));
        if !self.gap_after_first {
            out.extend(gap.clone());
        }
        for (i, list) in self.lists.iter().enumerate() {
            out.push_str(&list.header);
            out.push('\n');
            let shown = if capped { list.shown } else { usize::MAX };
            for row in list.rows.iter().take(shown) {
                out.push_str(row);
                out.push('\n');
            }
            let rest = list.rows.len().saturating_sub(shown);
            if rest > 0 {
                out.push_str(&format!(
                    "… and {} not shown (--review-file FILE lists them all)\n",
                    count(rest, "row")
                ));
            }
            if i == 0 && self.gap_after_first {
                out.extend(gap.clone());
            }
        }
        out
    }

    /// One line saying what the lists hold and how to see them, or None when the review is
    /// empty. `file`: where `--review-file` wrote them.
    pub fn summary(&self, file: Option<&str>) -> Option<String> {
        if self.lists.is_empty() && self.gap.is_none() {
            return None;
        }
        let held: Vec<String> = self.lists.iter().map(|l| (l.what)(l.rows.len())).collect();
        let held = if held.is_empty() {
            "a gap in the scores below θ".to_string()
        } else {
            held.join(", ")
        };
        Some(match file {
            Some(f) => format!("review: {held}; written to {f}"),
            None => format!(
                "review: {held}; --review prints these lists, --review-file FILE writes them whole"
            ),
        })
    }
}

/// Prints the review as `args` ask (`--review`, `--review-file FILE`; a summary line without
/// them), or a clear error when the file cannot be written.
pub fn print(map: &SiteMap, pattern: &Pattern, args: &[String]) -> Result<(), String> {
    let review = Review::of(map, pattern);
    let file = crate::flag(args, "--review-file");
    if let Some(f) = file {
        std::fs::write(f, review.render(false)).map_err(|e| format!("--review-file {f}: {e}"))?;
    }
    if crate::switch(args, "--review") {
        print!("{}", review.render(true));
        if let Some(f) = file {
            println!("review written to {f}");
        }
    } else if let Some(line) = review.summary(file) {
        println!("{line}");
    }
    Ok(())
}

/// `n` and its noun, singular or plural.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A page's heading after its URL in the review lists (two spaces apart), what names the page
/// where URLs are ids or every page has one title: crawled text, so control characters (a
/// terminal's escape sequences) are shown as `?`, and long headings are cut.
fn named(heading: &str) -> String {
    const SHOWN: usize = 80;
    if heading.is_empty() {
        return String::new();
    }
    let mut out: String = heading
        .chars()
        .take(SHOWN)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if heading.chars().nth(SHOWN).is_some() {
        out.push('…');
    }
    format!("  {out}")
}

/// A row of targets grouped by a key (a language, a directory): its count, `x` when left out,
/// its key, whether it is the example's, and a sample page.
fn group_line(
    targets: usize,
    unlike: bool,
    key: &str,
    example: bool,
    samples: &[String],
) -> String {
    kind_line(
        &format!("{targets:>5}"),
        unlike,
        'x',
        &format!(" {key}"),
        example,
        samples,
    )
}

/// One row of the review's lists of kinds: its figures, `mark` when a verdict is on it, its
/// name, whether it is the example's, and its first sample page.
fn kind_line(
    figures: &str,
    marked: bool,
    mark: char,
    name: &str,
    example: bool,
    samples: &[String],
) -> String {
    let mark = if marked { mark } else { ' ' };
    let example = if example { " (the example's)" } else { "" };
    let sample = samples.first().map_or("", String::as_str);
    format!("  {figures} {mark}{name}{example}  e.g. {sample}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_in_the_review_are_inert_and_short() {
        assert_eq!(named(""), "");
        assert_eq!(
            named("sf::Utf< N > Class Template Reference"),
            "  sf::Utf< N > Class Template Reference"
        );
        // A crawled heading cannot drive the terminal.
        assert_eq!(named("a\u{1b}[2Jb\u{7}"), "  a?[2Jb?");
        let long = "é".repeat(100);
        assert_eq!(named(&long), format!("  {}…", "é".repeat(80)));
    }

    fn list(rows: usize, shown: usize) -> List {
        List {
            header: "header:".into(),
            rows: (0..rows).map(|i| format!("  row {i}")).collect(),
            shown,
            what: |n| format!("{n} rows"),
        }
    }

    #[test]
    fn a_capped_list_counts_what_it_leaves_out() {
        let review = Review {
            lists: vec![list(2_000, 20), list(3, 20)],
            gap: None,
            gap_after_first: false,
        };
        let capped = review.render(true);
        let lines: Vec<&str> = capped.lines().collect();
        assert_eq!(lines.len(), 1 + 20 + 1 + 1 + 3, "{capped}");
        assert_eq!(lines[20], "  row 19");
        assert_eq!(
            lines[21],
            "… and 1980 rows not shown (--review-file FILE lists them all)"
        );
        let whole = review.render(false);
        assert_eq!(whole.lines().count(), 1 + 2_000 + 1 + 3);
        assert!(!whole.contains("… and"));
        assert_eq!(
            review.summary(None).unwrap(),
            "review: 2000 rows, 3 rows; --review prints these lists, --review-file FILE writes them whole"
        );
        assert_eq!(
            review.summary(Some("r.txt")).unwrap(),
            "review: 2000 rows, 3 rows; written to r.txt"
        );
    }

    #[test]
    fn the_gap_follows_the_near_misses_as_printed() {
        let mut near = list(12, 10);
        near.header = "closest pages below θ = 0.800 (…):".into();
        let review = Review {
            lists: vec![near, list(1, 20)],
            gap: Some("a gap in the scores".into()),
            gap_after_first: true,
        };
        let capped = review.render(true);
        let lines: Vec<&str> = capped.lines().collect();
        assert!(lines[11].starts_with("… and 2 rows not shown"), "{capped}");
        assert_eq!(lines[12], "a gap in the scores");
        assert_eq!(lines[13], "header:");
        let whole = review.render(false);
        assert_eq!(whole.lines().nth(13), Some("a gap in the scores"));
        let empty = Review {
            lists: Vec::new(),
            gap: None,
            gap_after_first: false,
        };
        assert_eq!(empty.summary(None), None);
        assert_eq!(empty.render(true), "");
    }
}
