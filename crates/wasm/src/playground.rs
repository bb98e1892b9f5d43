//! The playground's API (`www/`): why two pages are (not) alike, and what a pattern will crawl.
//!
//! | export | returns |
//! |---|---|
//! | `compareTrees(htmlA, htmlB, options?)` | `{verdict, a, b, ops}`: both compared views as outlines with each node's status and partner, and the edit script |
//! | `testPattern(json, urls)` | `{levels: [{level, paginate, regexes: [{regex, accepts}]}], urls: [{url, steps}]}` |
//! | `generaliseUrls(urls, negatives?)` | `{regexes, groups}`: what the pattern learner makes of these URLs |
//!
//! Owns only the presentation of results the core computes: the mapping is
//! [`rtdm::mapping`], the view [`crate::similarity::View`], the steps [`Compiled::step`], the
//! generalisation [`pattern::generalise`].
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::{JsOptions, NO_URL, error, parse, to_js};
use crate::dom::{NodeId, Tree};
use crate::pattern::{self, Compiled, Pattern, Step};
use crate::rtdm::{self, EditOp, PairKind};
use crate::similarity::{self, View};
use crate::url_pattern;

/// URLSim's K, as the pattern learner uses it.
const K: usize = 2;
/// At most this many URLs per call (the page stays responsive).
const MAX_URLS: usize = 20_000;

/// One side of a comparison: the compared view, node by node in preorder.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Outline {
    labels: Vec<String>,
    /// Parent index, `-1` for the root.
    parents: Vec<i64>,
    /// `matched` · `identical` · `deleted` / `inserted` · `mismatch` (the root of a subtree cut
    /// by a label mismatch).
    status: Vec<&'static str>,
    /// The node it is matched with on the other side, `-1` for none.
    partner: Vec<i64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Op {
    op: &'static str,
    /// Node on side A (`-1` for none).
    a: i64,
    /// Node on side B (`-1` for none).
    b: i64,
    cost: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TreeComparison {
    verdict: similarity::Verdict,
    a: Outline,
    b: Outline,
    ops: Vec<Op>,
    /// The sum of the operations' costs (equals `verdict.distance`).
    cost: u32,
}

/// For each node of the compared (weighted) tree, its node in the shaped view: [`View::weigh`]
/// turns a node of weight `w` into a chain of `w` consecutive preorder nodes.
fn chain_map(view: &View, shaped: &Tree, weighted: &Tree) -> Option<Vec<NodeId>> {
    if shaped.len() == weighted.len() {
        return Some((0..shaped.len() as NodeId).collect());
    }
    let depths = similarity::branching_depths(shaped);
    let mut map = Vec::with_capacity(weighted.len());
    for (i, &d) in depths.iter().enumerate() {
        let w = 1 + view
            .top_weight
            .saturating_mul(view.top_depth.saturating_sub(d));
        map.extend(std::iter::repeat_n(i as NodeId, w as usize));
    }
    (map.len() == weighted.len()).then_some(map)
}

/// Statuses and partners of the weighted nodes of both sides.
struct Marks {
    status: Vec<&'static str>,
    partner: Vec<i64>,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks {
            status: vec!["matched"; n],
            partner: vec![-1; n],
        }
    }

    fn subtree(&mut self, tree: &Tree, root: NodeId, status: &'static str) {
        for k in root..root + tree.size(root) {
            self.status[k as usize] = status;
        }
    }
}

fn outline(shaped: &Tree, map: &[NodeId], marks: &Marks, other_map: &[NodeId]) -> Outline {
    let n = shaped.len();
    let mut status = vec!["matched"; n];
    let mut partner = vec![-1i64; n];
    // The bottom of each chain decides (a chain's top is matched whenever its bottom is).
    for (w, &s) in map.iter().enumerate() {
        status[s as usize] = marks.status[w];
        partner[s as usize] = match marks.partner[w] {
            -1 => -1,
            p => other_map.get(p as usize).map_or(-1, |&o| i64::from(o)),
        };
    }
    Outline {
        labels: (0..n as NodeId)
            .map(|i| shaped.name(i).to_string())
            .collect(),
        parents: (0..n as NodeId)
            .map(|i| shaped.parent(i).map_or(-1, i64::from))
            .collect(),
        status,
        partner,
    }
}

/// Compares two pages like `similarity()` and shows why: both compared views as outlines (each
/// node with its status and partner on the other side) and the edit script of the RTDM
/// mapping, whose costs add up to the distance.
///
/// Throws an `Error` on invalid options or a page over the size limits.
#[wasm_bindgen(js_name = compareTrees)]
pub fn compare_trees(
    #[wasm_bindgen(js_name = htmlA)] html_a: &str,
    #[wasm_bindgen(js_name = htmlB)] html_b: &str,
    #[wasm_bindgen(unchecked_param_type = "SimilarityOptions")] options: JsValue,
) -> Result<JsValue, js_sys::Error> {
    let options = JsOptions::from_js(&options)?;
    let page_a = parse(html_a, NO_URL, &options.parse)?;
    let page_b = parse(html_b, NO_URL, &options.parse)?;
    let verdict = similarity::compare_pages(&page_a, &page_b, &options.similarity);
    let view = options.similarity.view;
    let (shaped_a, shaped_b) = (view.shape(&page_a.tree), view.shape(&page_b.tree));
    let (wa, wb) = (view.apply(&page_a.tree), view.apply(&page_b.tree));
    let map_a = chain_map(&view, &shaped_a, &wa).ok_or_else(|| error("unexpected view shape"))?;
    let map_b = chain_map(&view, &shaped_b, &wb).ok_or_else(|| error("unexpected view shape"))?;
    let mapping = rtdm::mapping(&wa, &wb);
    let (mut ma, mut mb) = (Marks::new(wa.len()), Marks::new(wb.len()));
    for p in &mapping.pairs {
        let len = match p.kind {
            PairKind::Identical => wa.size(p.a),
            PairKind::Matched => 1,
        };
        if p.kind == PairKind::Identical {
            ma.subtree(&wa, p.a, "identical");
            mb.subtree(&wb, p.b, "identical");
        }
        for k in 0..len {
            ma.partner[(p.a + k) as usize] = i64::from(p.b + k);
            mb.partner[(p.b + k) as usize] = i64::from(p.a + k);
        }
    }
    let shaped_of = |map: &[NodeId], x: NodeId| map.get(x as usize).map_or(-1, |&s| i64::from(s));
    let mut ops = Vec::with_capacity(mapping.ops.len());
    for op in &mapping.ops {
        ops.push(match *op {
            EditOp::Delete { a, cost } => {
                ma.subtree(&wa, a, "deleted");
                Op {
                    op: "delete",
                    a: shaped_of(&map_a, a),
                    b: -1,
                    cost,
                }
            }
            EditOp::Insert { b, cost } => {
                mb.subtree(&wb, b, "inserted");
                Op {
                    op: "insert",
                    a: -1,
                    b: shaped_of(&map_b, b),
                    cost,
                }
            }
            EditOp::Relabel { a, b, cost } => {
                ma.subtree(&wa, a, "deleted");
                mb.subtree(&wb, b, "inserted");
                ma.status[a as usize] = "mismatch";
                mb.status[b as usize] = "mismatch";
                ma.partner[a as usize] = i64::from(b);
                mb.partner[b as usize] = i64::from(a);
                Op {
                    op: "mismatch",
                    a: shaped_of(&map_a, a),
                    b: shaped_of(&map_b, b),
                    cost,
                }
            }
        });
    }
    // A chain whose top is cut keeps the status of its top.
    fix_chain_tops(&map_a, &mut ma);
    fix_chain_tops(&map_b, &mut mb);
    to_js(&TreeComparison {
        verdict,
        a: outline(&shaped_a, &map_a, &ma, &map_b),
        b: outline(&shaped_b, &map_b, &mb, &map_a),
        ops,
        cost: mapping.distance,
    })
}

/// When the top of a chain is mismatched, the whole shaped node is: copy the top's status and
/// partner down the chain so the bottom (which [`outline`] reads) carries them.
fn fix_chain_tops(map: &[NodeId], marks: &mut Marks) {
    let mut top = 0usize;
    for w in 0..map.len() {
        if w == 0 || map[w] != map[w - 1] {
            top = w;
        } else if marks.status[top] == "mismatch" {
            marks.status[w] = "mismatch";
            marks.partner[w] = marks.partner[top];
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RegexResult {
    regex: String,
    /// Indices of the URLs it matches.
    accepts: Vec<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LevelResult {
    /// 1-based.
    level: usize,
    paginate: bool,
    from_targets: bool,
    regexes: Vec<RegexResult>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UrlResult {
    url: String,
    /// Where the URL leads when found on a page of level `from` (0 = the entry), one entry per
    /// level: `"target"`, `"level 2"`, `"level 1 (pagination)"` or `null`.
    steps: Vec<Option<String>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PatternTest {
    levels: Vec<LevelResult>,
    urls: Vec<UrlResult>,
}

/// Non-empty trimmed lines, at most [`MAX_URLS`].
fn lines(text: &str) -> Result<Vec<&str>, js_sys::Error> {
    let out: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if out.len() > MAX_URLS {
        return Err(error(format!(
            "{} URLs: at most {MAX_URLS} at a time",
            out.len()
        )));
    }
    Ok(out)
}

/// Runs a pattern's regexes over URLs (one a line): level by level, which URLs each regex
/// accepts, and for each URL where it leads from a page of each level.
///
/// Throws an `Error` when the pattern is invalid (as `validatePattern`).
#[wasm_bindgen(js_name = testPattern)]
pub fn test_pattern(json: &str, urls: &str) -> Result<JsValue, js_sys::Error> {
    let pattern = Pattern::from_json(json).map_err(error)?;
    let compiled: Compiled = pattern.compile().map_err(error)?;
    let urls = lines(urls)?;
    let mut levels = Vec::with_capacity(pattern.levels.len());
    for (i, level) in pattern.levels.iter().enumerate() {
        let mut regexes = Vec::with_capacity(level.regexes.len());
        for r in &level.regexes {
            let re = regex::RegexBuilder::new(r)
                .size_limit(64 << 20)
                .build()
                .map_err(|e| error(format!("level {}: bad regex: {e}", i + 1)))?;
            regexes.push(RegexResult {
                regex: r.clone(),
                accepts: (0..urls.len()).filter(|&u| re.is_match(urls[u])).collect(),
            });
        }
        levels.push(LevelResult {
            level: i + 1,
            paginate: level.paginate,
            from_targets: level.from_targets,
            regexes,
        });
    }
    let urls = urls
        .iter()
        .map(|&url| UrlResult {
            url: url.to_string(),
            steps: (0..compiled.len())
                .map(|from| {
                    compiled.step(from, url).map(|s| match s {
                        Step::Target => "target".to_string(),
                        Step::Level {
                            level,
                            paginated: false,
                        } => format!("level {level}"),
                        Step::Level {
                            level,
                            paginated: true,
                        } => format!("level {level} (pagination)"),
                    })
                })
                .collect(),
        })
        .collect();
    to_js(&PatternTest { levels, urls })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Generalisation {
    /// The regexes the learner would write for these URLs (none matches a negative).
    regexes: Vec<String>,
    /// The URLSim groups (indices of the URLs), each generalised on its own.
    groups: Vec<Vec<usize>>,
    /// One regex per group, without the negatives.
    group_regexes: Vec<Option<String>>,
}

/// Generalises URLs (one a line) as the pattern learner does: URLSim groups, the regex tree, and
/// splits until none of the `negatives` (one a line, may be empty) matches.
///
/// Throws an `Error` when there are too many URLs.
#[wasm_bindgen(js_name = generaliseUrls)]
pub fn generalise_urls(urls: &str, negatives: &str) -> Result<JsValue, js_sys::Error> {
    let pos = lines(urls)?;
    let neg = lines(negatives)?;
    let groups = url_pattern::group(&pos, K);
    let group_regexes = groups
        .iter()
        .map(|g| {
            let members: Vec<&str> = g.iter().filter_map(|&i| pos.get(i).copied()).collect();
            url_pattern::url_pattern(&members).map(|p| p.regex)
        })
        .collect();
    to_js(&Generalisation {
        regexes: pattern::generalise(&pos, &neg, K),
        groups,
        group_regexes,
    })
}
