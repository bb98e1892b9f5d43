//! `crawl --since EARLIER.jsonl`: what a crawl brought against an earlier crawl's JSON Lines
//! export — the pages new since, those whose text changed (their `textDigest`, the signature of
//! title and visible text), and those no longer found — and `--changes-only`, which keeps the
//! exports to the new and changed pages. Kept in the crawl's state file, so a resumed crawl
//! compares with what it read when it started, whatever became of the file since.

use std::collections::{BTreeSet, HashMap};
use std::io::BufRead;

use exemplar_export::Change;
use serde::{Deserialize, Serialize};

/// The earlier export and what the crawl found against it so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Since {
    /// The file as given.
    pub path: String,
    /// Its pages: URL → text digest (None when its line has none).
    earlier: HashMap<String, Option<String>>,
    /// Pages found that it does not hold, in the order found.
    pub new: Vec<String>,
    /// Pages found whose text digest differs from its, in the order found.
    pub changed: Vec<String>,
    /// Pages found as they were.
    pub same: usize,
}

impl Since {
    /// Reads an earlier JSON Lines export (`exemplar crawl --jsonl`, or the extension's): each
    /// line an object with a `url`, and a `textDigest` when the export has them.
    ///
    /// # Errors
    /// The file cannot be read, or a line is not such an object (named by its number).
    pub fn read(path: &str) -> Result<Since, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("--since {path}: {e}"))?;
        Since::from_reader(path, std::io::BufReader::new(file))
    }

    fn from_reader(path: &str, reader: impl BufRead) -> Result<Since, String> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Line {
            url: String,
            #[serde(default)]
            text_digest: Option<String>,
        }
        let mut earlier = HashMap::new();
        for (i, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| format!("--since {path}: {e}"))?;
            if line.trim().is_empty() {
                continue;
            }
            let page: Line = serde_json::from_str(&line).map_err(|e| {
                format!(
                    "--since {path}: line {}: not a page of a JSON Lines export ({e})",
                    i + 1
                )
            })?;
            earlier.insert(page.url, page.text_digest.filter(|d| !d.is_empty()));
        }
        Ok(Since {
            path: path.to_string(),
            earlier,
            ..Since::default()
        })
    }

    /// Notes a page the crawl found, by its URL and text digest.
    pub fn note(&mut self, url: &str, digest: &str) -> Change {
        let change = match self.earlier.get(url) {
            None => Change::New,
            Some(Some(before)) if !digest.is_empty() && before != digest => Change::Changed,
            Some(_) => Change::Same,
        };
        match change {
            Change::New => self.new.push(url.to_string()),
            Change::Changed => self.changed.push(url.to_string()),
            Change::Same => self.same += 1,
        }
        change
    }

    /// The earlier export's pages the crawl did not find (`found`: every target it found),
    /// sorted.
    pub fn gone(&self, found: &[String]) -> Vec<String> {
        let found: BTreeSet<&str> = found.iter().map(String::as_str).collect();
        let mut gone: Vec<String> = self
            .earlier
            .keys()
            .filter(|u| !found.contains(u.as_str()))
            .cloned()
            .collect();
        gone.sort();
        gone
    }

    /// The summary `crawl` prints: the counts, then up to `shown` URLs of each kind.
    pub fn report(&self, found: &[String], shown: usize) -> Vec<String> {
        let gone = self.gone(found);
        let mut lines = vec![format!(
            "since {}: {} new, {} changed, {} as they were, {} no longer found",
            self.path,
            self.new.len(),
            self.changed.len(),
            self.same,
            gone.len()
        )];
        for (what, urls) in [
            ("new", &self.new),
            ("changed", &self.changed),
            ("gone", &gone),
        ] {
            for u in urls.iter().take(shown) {
                lines.push(format!("  {what}: {u}"));
            }
            if urls.len() > shown {
                lines.push(format!("  {what}: … and {} more", urls.len() - shown));
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn since(text: &str) -> Result<Since, String> {
        Since::from_reader("earlier.jsonl", std::io::Cursor::new(text))
    }

    #[test]
    fn pages_are_new_changed_same_or_gone_against_the_earlier_export() {
        let mut s = since(
            "{\"url\":\"http://h/a\",\"textDigest\":\"00000000000000aa\"}\n\n\
             {\"url\":\"http://h/b\",\"textDigest\":\"00000000000000bb\",\"html\":\"<p>b\"}\n\
             {\"url\":\"http://h/c\"}\n\
             {\"url\":\"http://h/d\",\"textDigest\":\"00000000000000dd\"}\n",
        )
        .expect("read");
        assert_eq!(s.note("http://h/a", "00000000000000aa"), Change::Same);
        assert_eq!(s.note("http://h/b", "00000000000000b0"), Change::Changed);
        assert_eq!(
            s.note("http://h/c", "00000000000000cc"),
            Change::Same,
            "no digest before: nothing says it changed"
        );
        assert_eq!(s.note("http://h/e", "00000000000000ee"), Change::New);
        let found: Vec<String> = ["a", "b", "c", "e"]
            .iter()
            .map(|p| format!("http://h/{p}"))
            .collect();
        assert_eq!(s.gone(&found), ["http://h/d"]);
        assert_eq!(
            s.report(&found, 10),
            [
                "since earlier.jsonl: 1 new, 1 changed, 2 as they were, 1 no longer found",
                "  new: http://h/e",
                "  changed: http://h/b",
                "  gone: http://h/d",
            ]
        );
        let back: Since =
            serde_json::from_str(&serde_json::to_string(&s).expect("json")).expect("state file");
        assert_eq!(back, s);
    }

    #[test]
    fn a_line_that_is_not_a_page_is_named() {
        let err = since("{\"url\":\"http://h/a\"}\nurl,title\n").expect_err("csv line");
        assert!(
            err.starts_with("--since earlier.jsonl: line 2: not a page of a JSON Lines export"),
            "{err}"
        );
        let err = since("{\"title\":\"A\"}\n").expect_err("no url");
        assert!(err.contains("line 1"), "{err}");
        assert!(
            Since::read("/nonexistent/earlier.jsonl")
                .expect_err("missing")
                .starts_with("--since /nonexistent/earlier.jsonl: ")
        );
    }
}
