//! DWDBRM's ranking of candidate pages (document `002`, Algorithm 2, Eq. 2–8), as a baseline of
//! the evaluation: five rankers against the seed pages — Naive Bayes, logistic regression, a
//! one-class model, cosine and Jaccard similarity — and PageRank on the candidates' link graph,
//! combined by position with α = 0.2 (Eq. 8). Evaluation code only: the product ranks with
//! [`exemplar_core::discover`].
//!
//! Contract: [`rank`] returns every candidate's index once, best first; it is deterministic
//! (ties go to the smaller index). The document leaves open what these choices settle (its
//! §3.3 names the rankers, not their features or parameters): the keyword vocabulary is the [`VOCABULARY`] most frequent words
//! of the seeds' text (title, meta description and keywords, body; words of three letters or
//! more, a few stop words out); Naive Bayes is Gaussian over URL length, host length, keyword
//! occurrences and distinct keywords; logistic regression is L2-regularised (λ = 0.01),
//! class-balanced, over keyword presence, fitted by 300 steps of gradient descent; the one-class
//! model is a one-class SVM with ν = 1 — every training point a support vector of equal weight,
//! so its decision function ranks as the mean RBF kernel (γ = 1) to the seeds over L2-normalised
//! term frequencies; negatives (for NB and LR) are the caller's sample of random pages;
//! PageRank has damping 0.85, a uniform source vector, dangling pages' rank spread evenly, 50
//! iterations, and keeps only links between candidates. Positions are 0-based.
use std::collections::{HashMap, HashSet};

/// Keywords in the vocabulary at most.
pub const VOCABULARY: usize = 100;
/// Eq. 8's weight of the PageRank position.
pub const ALPHA: f64 = 0.2;

/// A page as the rankers see it.
#[derive(Clone, Debug, Default)]
pub struct Doc {
    /// Its URL.
    pub url: String,
    /// Its words (title, meta description and keywords, body), lower case, in order.
    pub words: Vec<String>,
    /// Its links, absolute, fragments cut.
    pub links: Vec<String>,
}

const STOP: &[&str] = &[
    "the", "and", "for", "with", "this", "that", "from", "are", "was", "not", "you", "all", "can",
    "has", "have", "will", "its", "but", "any", "one", "which", "may", "use", "used", "also",
    "into", "see", "other", "more", "such", "than", "then", "there", "these", "when", "where",
    "http", "https", "www", "html", "nbsp", "amp",
];

/// A page's words and links from its HTML; script and style are skipped.
pub fn doc(url: &str, html: &str) -> Doc {
    let lower = html.to_ascii_lowercase();
    let mut text = String::with_capacity(html.len() / 2);
    let mut links = Vec::new();
    let base = url::Url::parse(url).ok();
    let mut i = 0;
    let b = html.as_bytes();
    while i < b.len() {
        if b[i] != b'<' {
            let end = html[i..].find('<').map_or(b.len(), |k| i + k);
            text.push_str(&html[i..end]);
            text.push(' ');
            i = end;
            continue;
        }
        let end = html[i..].find('>').map_or(b.len(), |k| i + k + 1);
        let tag = &lower[i..end];
        if let Some(name) = ["script", "style"]
            .into_iter()
            .find(|n| tag.starts_with(&format!("<{n}")))
        {
            // Skip to the end of its closing tag.
            let close = format!("</{name}");
            i = lower[end..]
                .find(&close)
                .map(|k| end + k)
                .and_then(|c| lower[c..].find('>').map(|k| c + k + 1))
                .unwrap_or(b.len());
            continue;
        }
        if tag.starts_with("<a ") {
            if let (Some(v), Some(base)) = (attr(&html[i..end], "href"), base.as_ref())
                && let Ok(mut u) = base.join(&v)
            {
                u.set_fragment(None);
                if matches!(u.scheme(), "http" | "https") {
                    links.push(u.to_string());
                }
            }
        } else if tag.starts_with("<meta ") {
            let name = attr(&lower[i..end], "name").unwrap_or_default();
            if (name == "description" || name == "keywords")
                && let Some(c) = attr(&html[i..end], "content")
            {
                text.push_str(&c);
                text.push(' ');
            }
        }
        text.push(' ');
        i = end;
    }
    Doc {
        url: url.to_string(),
        words: words(&text),
        links,
    }
}

/// A tag's attribute value (quoted or not).
fn attr(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(k) = lower[from..].find(name) {
        let at = from + k;
        from = at + name.len();
        let before = lower[..at].chars().last();
        if !before.is_some_and(char::is_whitespace) {
            continue;
        }
        let rest = lower[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let start = tag.len() - rest.trim_start().len();
        let v = &tag[start..];
        return Some(match v.chars().next() {
            Some(q @ ('"' | '\'')) => v[1..].split(q).next().unwrap_or("").to_string(),
            _ => v
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or("")
                .to_string(),
        });
    }
    None
}

/// Lower-case words of three letters or more (letters, digits, `_`, starting with a letter),
/// stop words out.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.len() >= 3 && w.chars().next().is_some_and(char::is_alphabetic))
        .map(str::to_lowercase)
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect()
}

/// The seeds' most frequent words, at most `n` (ties by word).
pub fn vocabulary(seeds: &[Doc], n: usize) -> Vec<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for d in seeds {
        for w in &d.words {
            *count.entry(w.as_str()).or_default() += 1;
        }
    }
    let mut v: Vec<(&str, usize)> = count.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v.into_iter().take(n).map(|(w, _)| w.to_string()).collect()
}

/// A page's features over a vocabulary.
struct Features {
    tf: Vec<f64>,
    present: Vec<f64>,
    set: HashSet<usize>,
    /// URL length, host length, keyword occurrences, distinct keywords.
    shape: [f64; 4],
}

fn features(d: &Doc, index: &HashMap<&str, usize>) -> Features {
    let n = index.len();
    let mut tf = vec![0.0; n];
    for w in &d.words {
        if let Some(&i) = index.get(w.as_str()) {
            tf[i] += 1.0;
        }
    }
    let set: HashSet<usize> = (0..n).filter(|&i| tf[i] > 0.0).collect();
    let present: Vec<f64> = tf.iter().map(|&x| f64::from(u8::from(x > 0.0))).collect();
    let host = url::Url::parse(&d.url)
        .ok()
        .and_then(|u| u.host_str().map(str::len))
        .unwrap_or(0);
    let shape = [
        d.url.len() as f64,
        host as f64,
        tf.iter().sum(),
        set.len() as f64,
    ];
    Features {
        tf,
        present,
        set,
        shape,
    }
}

/// Cosine of two vectors (0 when either is zero).
pub fn cosine(x: &[f64], y: &[f64]) -> f64 {
    let dot: f64 = x.iter().zip(y).map(|(a, b)| a * b).sum();
    let nx = x.iter().map(|a| a * a).sum::<f64>().sqrt();
    let ny = y.iter().map(|a| a * a).sum::<f64>().sqrt();
    if nx == 0.0 || ny == 0.0 {
        0.0
    } else {
        dot / (nx * ny)
    }
}

/// Jaccard of two sets (0 when both are empty).
pub fn jaccard(x: &HashSet<usize>, y: &HashSet<usize>) -> f64 {
    let union = x.union(y).count();
    if union == 0 {
        0.0
    } else {
        x.intersection(y).count() as f64 / union as f64
    }
}

/// PageRank over `n` nodes and directed edges (duplicates count once), damping `d`.
pub fn pagerank(n: usize, edges: &[(usize, usize)], d: f64, iterations: usize) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut seen = HashSet::new();
    for &(a, b) in edges {
        if a < n && b < n && a != b && seen.insert((a, b)) {
            out[a].push(b);
        }
    }
    let uniform = 1.0 / n as f64;
    let mut r = vec![uniform; n];
    for _ in 0..iterations {
        let dangling: f64 = (0..n).filter(|&i| out[i].is_empty()).map(|i| r[i]).sum();
        let mut next = vec![(1.0 - d) * uniform + d * dangling * uniform; n];
        for (i, targets) in out.iter().enumerate() {
            let share = d * r[i] / targets.len().max(1) as f64;
            for &t in targets {
                next[t] += share;
            }
        }
        r = next;
    }
    r
}

/// Each item's 0-based position when sorted by score, highest first (ties: smaller index).
pub fn positions(scores: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let mut pos = vec![0; scores.len()];
    for (p, &i) in order.iter().enumerate() {
        pos[i] = p;
    }
    pos
}

/// Eq. 8: `(1 − α)·mean(ranker positions) + α·PageRank position`, then the candidates' indices
/// by that score ascending (ties: smaller index).
pub fn combine(ranker_positions: &[Vec<usize>], pr_positions: &[usize], alpha: f64) -> Vec<usize> {
    let n = pr_positions.len();
    let k = ranker_positions.len().max(1) as f64;
    let score: Vec<f64> = (0..n)
        .map(|i| {
            let sum: usize = ranker_positions.iter().map(|p| p[i]).sum();
            (1.0 - alpha) * sum as f64 / k + alpha * pr_positions[i] as f64
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| score[a].total_cmp(&score[b]).then(a.cmp(&b)));
    order
}

/// Logistic regression fitted by gradient descent (class-balanced, L2 λ); the weights, bias last.
pub fn fit_logistic(x: &[Vec<f64>], y: &[bool], lambda: f64, steps: usize) -> Vec<f64> {
    let dim = x.first().map_or(0, Vec::len);
    let mut w = vec![0.0; dim + 1];
    let pos = y.iter().filter(|&&v| v).count().max(1) as f64;
    let neg = y.iter().filter(|&&v| !v).count().max(1) as f64;
    let rate = 0.5;
    for _ in 0..steps {
        let mut grad = vec![0.0; dim + 1];
        let mut total = 0.0;
        for (xi, &yi) in x.iter().zip(y) {
            let weight = if yi { 1.0 / pos } else { 1.0 / neg };
            let p = sigmoid(dot_bias(&w, xi));
            let err = weight * (p - f64::from(u8::from(yi)));
            for (g, v) in grad.iter_mut().zip(xi) {
                *g += err * v;
            }
            grad[dim] += err;
            total += weight;
        }
        for j in 0..=dim {
            let reg = if j < dim { lambda * w[j] } else { 0.0 };
            w[j] -= rate * (grad[j] / total.max(f64::MIN_POSITIVE) + reg);
        }
    }
    w
}

fn dot_bias(w: &[f64], x: &[f64]) -> f64 {
    let dim = x.len();
    x.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() + w[dim]
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Gaussian Naive Bayes' log-odds of the positive class, from per-class means and variances.
pub struct GaussianNb {
    mean: [Vec<f64>; 2],
    var: [Vec<f64>; 2],
    prior: [f64; 2],
}

impl GaussianNb {
    /// Fitted on rows and labels (variances floored so a constant feature does not divide by 0).
    pub fn fit(x: &[Vec<f64>], y: &[bool]) -> GaussianNb {
        let dim = x.first().map_or(0, Vec::len);
        let mut mean = [vec![0.0; dim], vec![0.0; dim]];
        let mut var = [vec![0.0; dim], vec![0.0; dim]];
        let mut n = [0.0f64; 2];
        for (xi, &yi) in x.iter().zip(y) {
            let c = usize::from(yi);
            n[c] += 1.0;
            for (m, v) in mean[c].iter_mut().zip(xi) {
                *m += v;
            }
        }
        for c in 0..2 {
            for m in &mut mean[c] {
                *m /= n[c].max(1.0);
            }
        }
        for (xi, &yi) in x.iter().zip(y) {
            let c = usize::from(yi);
            for j in 0..dim {
                var[c][j] += (xi[j] - mean[c][j]).powi(2);
            }
        }
        let all: f64 = n.iter().sum::<f64>().max(1.0);
        for c in 0..2 {
            for v in &mut var[c] {
                *v = (*v / n[c].max(1.0)).max(1e-2);
            }
        }
        GaussianNb {
            mean,
            var,
            prior: [n[0].max(1.0) / all, n[1].max(1.0) / all],
        }
    }

    /// log P(pos | x) − log P(neg | x): Eq. 6's posterior, by rank.
    pub fn log_odds(&self, x: &[f64]) -> f64 {
        let ll = |c: usize| {
            self.prior[c].ln()
                + x.iter()
                    .enumerate()
                    .map(|(j, v)| {
                        let var = self.var[c][j];
                        -0.5 * (2.0 * std::f64::consts::PI * var).ln()
                            - (v - self.mean[c][j]).powi(2) / (2.0 * var)
                    })
                    .sum::<f64>()
        };
        ll(1) - ll(0)
    }
}

fn normalised(v: &[f64]) -> Vec<f64> {
    let n = v.iter().map(|a| a * a).sum::<f64>().sqrt();
    if n == 0.0 {
        v.to_vec()
    } else {
        v.iter().map(|a| a / n).collect()
    }
}

/// The five rankers' scores of each candidate (NB, LR, one-class, cosine, Jaccard; higher is
/// better) given the seeds and the negatives.
pub fn ranker_scores(seeds: &[Doc], negatives: &[Doc], candidates: &[Doc]) -> [Vec<f64>; 5] {
    let vocab = vocabulary(seeds, VOCABULARY);
    let index: HashMap<&str, usize> = vocab
        .iter()
        .enumerate()
        .map(|(i, w)| (w.as_str(), i))
        .collect();
    let fs: Vec<Features> = seeds.iter().map(|d| features(d, &index)).collect();
    let fn_: Vec<Features> = negatives.iter().map(|d| features(d, &index)).collect();
    let fc: Vec<Features> = candidates.iter().map(|d| features(d, &index)).collect();
    let labels: Vec<bool> = fs
        .iter()
        .map(|_| true)
        .chain(fn_.iter().map(|_| false))
        .collect();
    let nb = GaussianNb::fit(
        &fs.iter()
            .chain(&fn_)
            .map(|f| f.shape.to_vec())
            .collect::<Vec<_>>(),
        &labels,
    );
    let lr = fit_logistic(
        &fs.iter()
            .chain(&fn_)
            .map(|f| f.present.clone())
            .collect::<Vec<_>>(),
        &labels,
        0.01,
        300,
    );
    let seed_unit: Vec<Vec<f64>> = fs.iter().map(|f| normalised(&f.tf)).collect();
    let k = fs.len().max(1) as f64;
    let mut out: [Vec<f64>; 5] = Default::default();
    for f in &fc {
        out[0].push(nb.log_odds(&f.shape));
        out[1].push(sigmoid(dot_bias(&lr, &f.present)));
        let unit = normalised(&f.tf);
        out[2].push(
            seed_unit
                .iter()
                .map(|s| {
                    let d2: f64 = s.iter().zip(&unit).map(|(a, b)| (a - b).powi(2)).sum();
                    (-d2).exp()
                })
                .sum::<f64>()
                / k,
        );
        out[3].push(fs.iter().map(|s| cosine(&f.tf, &s.tf)).sum::<f64>() / k);
        out[4].push(fs.iter().map(|s| jaccard(&f.set, &s.set)).sum::<f64>() / k);
    }
    out
}

/// Algorithm 2: the candidates' indices best first.
pub fn rank(seeds: &[Doc], negatives: &[Doc], candidates: &[Doc]) -> Vec<usize> {
    let scores = ranker_scores(seeds, negatives, candidates);
    let by_url: HashMap<&str, usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, d)| (d.url.as_str(), i))
        .collect();
    let mut edges = Vec::new();
    for (i, d) in candidates.iter().enumerate() {
        for l in &d.links {
            if let Some(&j) = by_url.get(l.as_str()) {
                edges.push((i, j));
            }
        }
    }
    let pr = pagerank(candidates.len(), &edges, 0.85, 50);
    let positions_each: Vec<Vec<usize>> = scores.iter().map(|s| positions(s)).collect();
    combine(&positions_each, &positions(&pr), ALPHA)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(url: &str, words: &str, links: &[&str]) -> Doc {
        Doc {
            url: url.into(),
            words: super::words(words),
            links: links.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn pagerank_of_a_tiny_graph_sums_to_one_and_favours_the_linked() {
        // 0 → 2, 1 → 2, 2 → 0; 3 dangling.
        let r = pagerank(4, &[(0, 2), (1, 2), (2, 0), (0, 2)], 0.85, 100);
        let sum: f64 = r.iter().sum();
        assert!((sum - 1.0).abs() < 1e-9, "{sum}");
        assert!(r[2] > r[0] && r[0] > r[1], "{r:?}");
        assert!((r[1] - r[3]).abs() < 1e-12, "two pages nobody links: {r:?}");
        // Closed form for a 2-cycle without dangling: both 0.5.
        let r = pagerank(2, &[(0, 1), (1, 0)], 0.85, 100);
        assert!((r[0] - 0.5).abs() < 1e-9 && (r[1] - 0.5).abs() < 1e-9);
    }

    #[test]
    fn eq8_combines_positions_with_alpha() {
        // Rankers all put 0 first; PageRank puts 1 first.
        let rankers = vec![vec![0, 1, 2]; 5];
        let pr = vec![2, 0, 1];
        // Scores: 0 → 0.8·0 + 0.2·2 = 0.4; 1 → 0.8 + 0 = 0.8; 2 → 1.6 + 0.2 = 1.8.
        assert_eq!(combine(&rankers, &pr, 0.2), [0, 1, 2]);
        // With α = 1, PageRank alone decides.
        assert_eq!(combine(&rankers, &pr, 1.0), [1, 2, 0]);
        assert_eq!(positions(&[0.1, 0.9, 0.5, 0.9]), [3, 0, 2, 1]);
    }

    #[test]
    fn similarities_and_models_prefer_pages_like_the_seeds() {
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-12);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        let a: HashSet<usize> = [1, 2, 3].into();
        let b: HashSet<usize> = [2, 3, 4, 5].into();
        assert!((jaccard(&a, &b) - 2.0 / 5.0).abs() < 1e-12);
        let seeds = [
            d(
                "http://a.test/class/Map.html",
                "class map method field constructor interface",
                &[],
            ),
            d(
                "http://b.test/class/List.html",
                "class list method field constructor interface",
                &[],
            ),
        ];
        let negatives = [
            d("http://n.test/", "news weather sport football", &[]),
            d("http://m.test/about", "about contact team office", &[]),
            d("http://o.test/blog/post", "blog post comment author", &[]),
        ];
        let candidates = [
            d(
                "http://z.test/news",
                "weather sport news",
                &["http://c.test/class/Set.html"],
            ),
            d(
                "http://c.test/class/Set.html",
                "class set method field constructor",
                &[],
            ),
            d(
                "http://y.test/x",
                "football comment",
                &["http://c.test/class/Set.html"],
            ),
        ];
        let s = ranker_scores(&seeds, &negatives, &candidates);
        for (k, ranker) in s.iter().enumerate() {
            assert!(
                ranker[1] > ranker[0] && ranker[1] > ranker[2],
                "ranker {k}: {ranker:?}"
            );
        }
        assert_eq!(rank(&seeds, &negatives, &candidates)[0], 1);
    }

    #[test]
    fn a_page_is_read_into_words_and_absolute_links() {
        let html = r#"<html><head><title>Class Map</title><meta name="Description" content="Java maps">
<script>var hidden = "javascriptword";</script><style>.x{}</style></head>
<body><a href="../b/List.html#top">List</a> <A HREF='http://other.test/'>other</A> text here</body></html>"#;
        let doc = doc("http://a.test/x/Map.html", html);
        assert_eq!(
            doc.links,
            ["http://a.test/b/List.html", "http://other.test/"]
        );
        assert!(doc.words.contains(&"java".to_string()), "{:?}", doc.words);
        assert!(doc.words.contains(&"map".to_string()));
        assert!(doc.words.contains(&"text".to_string()));
        assert!(
            !doc.words
                .iter()
                .any(|w| w == "javascriptword" || w == "var")
        );
        let v = vocabulary(&[doc], 2);
        assert_eq!(v.len(), 2);
    }
}
