//! "Find more sites like this": domain discovery (document `002`, DWDBRM; design §9) and the
//! backlink site locator (document `000`, Algorithm 3), sans-IO like the mapper.
//!
//! From seed pages of one kind (a few item pages of a site or two, or a saved crawler's
//! targets), [`Discoverer`] finds other sites with pages of that kind. In rounds, it applies one
//! of four operators to its best pages so far, chosen by a policy ([`Policy`]; UCB1 by
//! default, Eq. 9–11 of the document):
//! - **keyword search**: a query of words the seed sites share, through a search engine's
//!   results-page URL template (`{q}`);
//! - **related search**: pages like a page, through a template (`{url}`);
//! - **forward crawl**: the links of the best pages to other sites;
//! - **backward crawl**: the pages linking a found site, through a backlink provider's template
//!   (`{url}`), and those pages' links to other sites (the locator).
//!
//! An operator whose template is not configured is never chosen. Each candidate page is fetched
//! and scored against the seeds ([`profile`]: structure by RTDM and words). A site is the
//! shallowest directory whose home page a page links (`site_root`: several sites may share a
//! host, as Hackage's packages do). A candidate scoring at least [`DiscoverConfig::probe`] on a
//! site not known yet starts the entity-site detector ([`crate::detect`]) there, and the site
//! is accepted only when the detector finds a section and one of its sample items, fetched,
//! scores at least [`DiscoverConfig::relevant`]: its best section must be of the seeds' kind.
//! An accepted site that serves a site known under another name (the seeds' own site under
//! another version prefix or host, a mirror of a site found) is no new site: its first relevant
//! sample is compared by its text ([`crate::replica::print`]) with the page at the same path
//! of a site listed, and asked for under the seed sites' prefixes and those of sites listed on
//! its host (a fetch each); the same text, or one inside the other, makes it a
//! [`Replica`], reported apart and never listed.
//! A round's reward is the document's `Σ (1 − pos/len) · new / k` over the candidates it
//! brought (new: a relevant page of a site that is not a seed's).
//!
//! Contract: page fetches (seeds, candidates, samples and the detectors' pages) never pass
//! [`DiscoverConfig::max_fetches`], calls of the search engine and the backlink provider never
//! pass [`DiscoverConfig::max_queries`]; robots.txt is obeyed; an answer that is not a page
//! (an error, garbage, nothing) costs what it cost and yields nothing; the run ends when the
//! budget is spent or no operator has anything left to do. The result ([`Discovery`]) lists
//! the accepted sites best first (by the mean score of their best relevant pages), each with
//! its entry page, sample items and the pair a crawler is learned from.
pub mod profile;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::detect::{DetectConfig, Detection, Detector};
use crate::dom::{Page, ParseOptions};
use crate::fetch::{
    Delivered, FetchRequest, FetchResult, Frontier, Machine, Next, Politeness, Poll, RequestKind,
};
use crate::replica::{self, Likeness, PagePrint};
use profile::Profile;

/// A way to find candidate pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Operator {
    /// A query of the seeds' words to a search engine.
    Keyword,
    /// Pages like a page, from a search engine.
    Related,
    /// Links of the best pages to other sites.
    Forward,
    /// Pages linking the sites found, and their links.
    Backward,
}

impl Operator {
    /// All four, in a fixed order.
    pub const ALL: [Operator; 4] = [
        Operator::Keyword,
        Operator::Related,
        Operator::Forward,
        Operator::Backward,
    ];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Operator::Keyword => "keyword",
            Operator::Related => "related",
            Operator::Forward => "forward",
            Operator::Backward => "backward",
        }
    }
}

/// How the next operator is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Policy {
    /// UCB1: the best mean reward plus `sqrt(2 ln n / n_op)`; each operator tried once first.
    Bandit,
    /// One operator only (while it has work).
    Only(Operator),
    /// Each in turn.
    RoundRobin,
    /// At random (a seeded generator), for the comparison the issue asks for.
    Random(u64),
}

/// Settings of a run.
#[derive(Clone, Debug)]
pub struct DiscoverConfig {
    /// Page fetches at most (seeds, candidates, samples, detectors).
    pub max_fetches: usize,
    /// Calls of the search engine and the backlink provider at most.
    pub max_queries: usize,
    /// A search engine's results page for a query: a URL with `{q}`.
    pub search: Option<String>,
    /// A search engine's results page of pages like a page: a URL with `{url}`.
    pub related: Option<String>,
    /// A backlink provider's page of pages linking a URL: a URL with `{url}`.
    pub backlinks: Option<String>,
    /// How operators are chosen.
    pub policy: Policy,
    /// The best pages an operator is applied to in a round.
    pub top_k: usize,
    /// Candidates taken from one answer or one page at most.
    pub per_call: usize,
    /// The score from which a page is of the seeds' kind.
    pub relevant: f64,
    /// The score from which a candidate's site is worth the detector even when the page is not
    /// of the seeds' kind (a site's home page, a listing of such pages).
    pub probe: f64,
    /// Structure's share of the score.
    pub structure_weight: f64,
    /// Markup's share of the score (the class names of the elements); the rest is words'.
    pub markup_weight: f64,
    /// The entity-site detector's settings.
    pub detect: DetectConfig,
    /// Politeness.
    pub politeness: Politeness,
    /// Body size at most, bytes.
    pub max_bytes: usize,
}

impl Default for DiscoverConfig {
    fn default() -> Self {
        DiscoverConfig {
            max_fetches: 5000,
            max_queries: 500,
            search: None,
            related: None,
            backlinks: None,
            policy: Policy::Bandit,
            top_k: 5,
            per_call: 20,
            // Chosen on the development domains of the local web (java-class, python-module,
            // c-ref; docs/results.md): markup tells a generator's kind across themes, which
            // structure and words did not.
            relevant: 0.5,
            probe: 0.35,
            structure_weight: 0.25,
            markup_weight: 0.5,
            detect: DetectConfig::default(),
            politeness: Politeness::default(),
            max_bytes: 8 << 20,
        }
    }
}

/// A site found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FoundSite {
    /// The site: the URL prefix its section lives under.
    pub site: String,
    /// The mean score of its best relevant pages (at most three).
    pub score: f64,
    /// Its section's index page: where a crawler starts.
    pub entry: String,
    /// Sample item pages, the first of them checked against the seeds.
    pub examples: Vec<String>,
    /// Its relevant pages seen.
    pub pages: usize,
    /// The operator whose candidate led to it.
    pub found_by: Operator,
    /// Page fetches spent when it was accepted.
    pub found_at: usize,
}

/// One round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Round {
    /// Its operator.
    pub operator: Operator,
    /// Candidates it brought.
    pub candidates: usize,
    /// Relevant pages of sites not seeded among them.
    pub relevant: usize,
    /// Its reward.
    pub reward: f64,
}

/// A point of the harvest curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Harvest {
    /// Page fetches spent.
    pub fetches: usize,
    /// Relevant pages of sites not seeded, found so far.
    pub relevant_pages: usize,
    /// Sites accepted so far.
    pub sites: usize,
}

/// The answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Discovery {
    /// Accepted sites, best first.
    pub sites: Vec<FoundSite>,
    /// Sites refused by the detector or by their samples (their prefixes).
    pub refused: Vec<String>,
    /// The seed sites' prefixes.
    pub seed_sites: Vec<String>,
    /// Page fetches.
    pub fetches: usize,
    /// Search and backlink calls.
    pub queries: usize,
    /// The rounds, in order.
    pub rounds: Vec<Round>,
    /// The harvest, after each page.
    pub harvest: Vec<Harvest>,
    /// Why the seeds or a service could not be read, when they could not.
    pub problems: Vec<String>,
    /// Sites found to be another name of a seed site or of a site listed (the same pages
    /// under another prefix or host): never listed themselves.
    pub replicas: Vec<Replica>,
    /// The pages met off the seed sites, best scored first (at most [`RANKED_PAGES`]): the
    /// source document ranks pages, not sites.
    pub pages: Vec<RankedPage>,
    /// Every page scored against the seeds after them (candidates and sites' samples), in
    /// the order scored, with the page fetches spent then (seed sites' pages included): the
    /// pages [`Discovery::pages`] ranks, for an evaluation to score a harvest curve or another
    /// ranking of the same pages on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub met: Vec<MetPage>,
}

/// A page scored during a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetPage {
    /// Its URL (as fetched).
    pub url: String,
    /// Page fetches spent when it was judged.
    pub fetches: usize,
}

/// Seed pages a run takes at most: more seeds cost fetches and add little to their profile.
pub const MAX_SEEDS: usize = 20;

/// The seed pages a saved crawler gives: its example, its known targets and its last level's
/// samples, in that order, without repeats, at most [`MAX_SEEDS`].
pub fn seeds_of_pattern(pattern: &crate::pattern::Pattern) -> Vec<String> {
    let samples = pattern
        .levels
        .last()
        .map(|l| l.samples.as_slice())
        .unwrap_or_default();
    let mut seeds: Vec<String> = Vec::new();
    for u in std::iter::once(&pattern.example)
        .chain(&pattern.known_targets)
        .chain(samples)
    {
        if seeds.len() == MAX_SEEDS {
            break;
        }
        if !u.is_empty() && !seeds.contains(u) {
            seeds.push(u.clone());
        }
    }
    seeds
}

/// A page's text print for the replica comparisons: its title too, which names its site
/// where the text may not (two shops' copies of a maker's description).
fn print_of(page: &Page) -> PagePrint {
    PagePrint::of_text(&format!("{}\n{}", page.title, page.text))
}

/// A site that serves another's pages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Replica {
    /// Its prefix.
    pub site: String,
    /// The site it copies: a seed site or a site listed.
    pub of: String,
}

/// Pages [`Discovery::pages`] keeps at most.
pub const RANKED_PAGES: usize = 500;

/// A page met, with its score against the seeds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankedPage {
    /// Its URL.
    pub url: String,
    /// Its score.
    pub score: f64,
}

#[derive(Clone, Debug, PartialEq)]
enum Item {
    Seed,
    Service {
        operator: Operator,
    },
    Candidate {
        pos: usize,
        len: usize,
        via_backlink: bool,
    },
    Sample {
        site: usize,
    },
    /// A sample's path asked for under another site's prefix: is the site that one's replica?
    Probe {
        site: usize,
        of: usize,
    },
}

/// A relevant page kept for the operators.
struct Kept {
    url: String,
    score: f64,
    /// Its links to other hosts.
    outlinks: Vec<String>,
    used: HashSet<Operator>,
}

#[derive(Debug, PartialEq)]
enum SiteState {
    Seed,
    Sampling,
    /// Of the seeds' kind; its replica probes not all answered yet.
    Probing,
    Accepted,
    Refused,
    /// Another name of a seed site or of a site found.
    Replica,
    /// Taken into a site holding it, found later: its evidence is that site's now.
    Merged,
}

struct Site {
    prefix: String,
    state: SiteState,
    entry: String,
    examples: Vec<String>,
    /// Scores of its relevant pages met.
    scores: Vec<f64>,
    /// Scores of the detector's samples.
    checks: Vec<f64>,
    samples_left: usize,
    found_by: Operator,
    backlinks_used: bool,
    /// Its first relevant sample's URL and text print (the replica probes compare it).
    print: Option<(String, PagePrint)>,
    probes_left: usize,
}

impl Site {
    /// Whether it stands for a site of its own (not refused, merged or a copy).
    fn open(&self) -> bool {
        !matches!(
            self.state,
            SiteState::Refused | SiteState::Merged | SiteState::Replica
        )
    }
}

/// A site to run the detector on.
#[derive(Clone, Debug)]
struct Pending {
    /// The page that led to it.
    url: String,
    /// Its score.
    score: f64,
    /// The operator whose candidate it was.
    op: Operator,
    /// The site's root ([`site_root`]) and the page there its page links.
    prefix: String,
    entry: String,
}

/// Where a request's answer goes.
enum Route {
    Own(u64),
    Detector(u64),
}

/// The discovery run. See the module docs.
pub struct Discoverer {
    config: DiscoverConfig,
    frontier: Frontier<Item>,
    routes: HashMap<u64, Route>,
    next_id: u64,
    seeds: Vec<(String, Page)>,
    seeds_pending: usize,
    profile: Option<Profile>,
    kept: Vec<Kept>,
    sites: Vec<Site>,
    detections: VecDeque<Pending>,
    detector: Option<(Detector, Pending)>,
    seen: HashSet<String>,
    queries_made: HashSet<String>,
    queries_started: usize,
    /// The service calls' URLs (counted as queries, not page fetches).
    service_urls: HashSet<String>,
    pulls: BTreeMap<Operator, (usize, f64)>,
    round: Option<(Operator, f64, usize, usize)>,
    rng: u64,
    turn: usize,
    started_fetches: usize,
    result: Discovery,
    done: bool,
}

impl Discoverer {
    /// A run from seed page URLs.
    ///
    /// # Errors
    /// No seed, a seed that is no http(s) URL, a template without its placeholder.
    pub fn new(seeds: &[String], config: DiscoverConfig) -> Result<Discoverer, String> {
        if seeds.is_empty() {
            return Err("no seed page".into());
        }
        for (name, t, ph) in [
            ("search", &config.search, "{q}"),
            ("related", &config.related, "{url}"),
            ("backlinks", &config.backlinks, "{url}"),
        ] {
            if let Some(t) = t
                && (!t.contains(ph) || crate::canon::canonicalize(&t.replace(ph, "x")).is_none())
            {
                {
                    return Err(format!(
                        "{name} template {t:?}: an http(s) URL with {ph} is needed"
                    ));
                }
            }
        }
        config.politeness.validate()?;
        let mut frontier = Frontier::new(config.politeness.clone());
        let mut n = 0;
        for s in seeds {
            let url =
                crate::canon::canonicalize(s).ok_or(format!("seed {s:?} is no http(s) URL"))?;
            n += usize::from(frontier.push(url, Item::Seed));
        }
        let rng = match config.policy {
            Policy::Random(seed) => seed | 1,
            _ => 1,
        };
        Ok(Discoverer {
            config,
            frontier,
            routes: HashMap::new(),
            next_id: 1,
            seeds: Vec::new(),
            seeds_pending: n,
            profile: None,
            kept: Vec::new(),
            sites: Vec::new(),
            detections: VecDeque::new(),
            detector: None,
            seen: HashSet::new(),
            queries_made: HashSet::new(),
            queries_started: 0,
            service_urls: HashSet::new(),
            pulls: BTreeMap::new(),
            round: None,
            rng,
            turn: 0,
            started_fetches: 0,
            result: Discovery::default(),
            done: false,
        })
    }

    /// The answer so far.
    pub fn discovery(&self) -> &Discovery {
        &self.result
    }

    /// The answer.
    pub fn into_discovery(self) -> Discovery {
        self.result
    }

    fn budget_left(&self) -> bool {
        self.started_fetches < self.config.max_fetches
    }

    fn route(&mut self, r: FetchRequest, to: Route) -> Poll {
        let id = self.next_id;
        self.next_id += 1;
        self.routes.insert(id, to);
        Poll::Fetch(FetchRequest { id, ..r })
    }

    /// The site a URL lies in, if known.
    fn site_of(&self, url: &str) -> Option<usize> {
        self.sites
            .iter()
            .enumerate()
            .filter(|(_, s)| s.state != SiteState::Merged && url.starts_with(&s.prefix))
            .max_by_key(|(_, s)| s.prefix.len())
            .map(|(i, _)| i)
    }

    fn pending_detection(&self, prefix: &str) -> bool {
        self.detections.iter().any(|p| p.prefix == prefix)
            || self
                .detector
                .as_ref()
                .is_some_and(|(_, p)| p.prefix == prefix)
    }

    fn take(&mut self, url: String, item: Item, result: FetchResult) {
        let page = read_page(&url, result, self.config.max_bytes);
        match item {
            Item::Seed => {
                self.seeds_pending = self.seeds_pending.saturating_sub(1);
                match page {
                    Ok(p) => self.seeds.push((url, p)),
                    Err(e) => self.result.problems.push(format!("seed {url}: {e}")),
                }
                if self.seeds_pending == 0 {
                    self.start();
                }
            }
            Item::Service { operator } => match page {
                Ok(p) => self.candidates_from(&p, operator),
                Err(e) => self
                    .result
                    .problems
                    .push(format!("{} {url}: {e}", operator.name())),
            },
            Item::Candidate {
                pos,
                len,
                via_backlink,
            } => {
                let Ok(p) = page else { return };
                self.judge(&url, &p, pos, len);
                if via_backlink {
                    self.push_candidates(off_host_links(&p), false);
                }
            }
            Item::Sample { site } => {
                let score = match page {
                    Ok(p) => {
                        let score = self.profile.as_mut().map_or(0.0, |pr| pr.score(&p).0);
                        let s = &mut self.sites[site];
                        if score >= self.config.relevant
                            && s.print.is_none()
                            && url.starts_with(&s.prefix)
                        {
                            s.print = Some((url.clone(), print_of(&p)));
                        }
                        self.result.met.push(MetPage {
                            url: url.clone(),
                            fetches: self.result.fetches,
                        });
                        self.kept.push(Kept {
                            url: url.clone(),
                            score,
                            outlinks: outlinks(&p),
                            used: HashSet::new(),
                        });
                        score
                    }
                    Err(_) => 0.0,
                };
                let s = &mut self.sites[site];
                s.checks.push(score);
                s.samples_left = s.samples_left.saturating_sub(1);
                self.settle(site);
            }
            Item::Probe { site, of } => {
                let same = match (&page, &self.sites[site].print) {
                    (Ok(p), Some((_, print))) => matches!(
                        replica::print::compare(print, &print_of(p)),
                        Likeness::Same | Likeness::FirstInside | Likeness::SecondInside
                    ),
                    _ => false,
                };
                let s = &mut self.sites[site];
                s.probes_left = s.probes_left.saturating_sub(1);
                if s.state != SiteState::Probing {
                    return;
                }
                if same {
                    s.state = SiteState::Replica;
                    let replica = Replica {
                        site: s.prefix.clone(),
                        of: self.sites[of].prefix.clone(),
                    };
                    self.result.replicas.push(replica);
                } else if s.probes_left == 0 {
                    self.accept(site);
                }
            }
        }
    }

    /// A site whose samples are all in: accepted when one of them is of the seeds' kind.
    fn settle(&mut self, i: usize) {
        let relevant = self.config.relevant;
        let s = &mut self.sites[i];
        if s.samples_left > 0 || s.state != SiteState::Sampling {
            return;
        }
        if !s.checks.iter().any(|&x| x >= relevant) {
            s.state = SiteState::Refused;
            self.result.refused.push(s.prefix.clone());
            return;
        }
        // Another name of a site known? A site listed whose sample lies at the same path
        // (a mirror's detector meets the same listing first) is compared at once; the seeds'
        // own sites, and sites listed on its host, are asked for its sample's path under their
        // prefix, and the answers compared by their text.
        if let Some(of) = self.copies_listed(i) {
            self.sites[i].state = SiteState::Replica;
            let replica = Replica {
                site: self.sites[i].prefix.clone(),
                of: self.sites[of].prefix.clone(),
            };
            self.result.replicas.push(replica);
            return;
        }
        let s = &self.sites[i];
        let probes: Vec<(usize, String)> = match &s.print {
            Some((url, _)) if url.starts_with(&s.prefix) => {
                let rel = &url[s.prefix.len()..];
                let host = host_of(&s.prefix);
                (0..self.sites.len())
                    .filter(|&a| a != i)
                    .filter(|&a| {
                        let other = &self.sites[a];
                        other.state == SiteState::Seed
                            || (other.state == SiteState::Accepted
                                && host_of(&other.prefix) == host)
                    })
                    .map(|a| (a, format!("{}{rel}", self.sites[a].prefix)))
                    .collect()
            }
            _ => Vec::new(),
        };
        let mut asked = 0;
        for (a, u) in probes {
            let Some(u) = crate::canon::canonicalize(&u) else {
                continue;
            };
            // Asked again when it was met before (a seed page is the likeliest probe).
            let item = Item::Probe { site: i, of: a };
            if !self.frontier.push(u.clone(), item.clone()) {
                self.frontier.push_again(u, item);
            }
            asked += 1;
        }
        let s = &mut self.sites[i];
        s.probes_left = asked;
        if asked > 0 {
            s.state = SiteState::Probing;
            return;
        }
        self.accept(i);
    }

    /// A site listed whose first relevant sample, at the same path under its prefix, has the
    /// same text as site `i`'s.
    fn copies_listed(&self, i: usize) -> Option<usize> {
        fn rel(s: &Site) -> Option<(&str, &PagePrint)> {
            let (u, p) = s.print.as_ref()?;
            Some((u.strip_prefix(s.prefix.as_str())?, p))
        }
        let (path, print) = rel(&self.sites[i])?;
        (0..self.sites.len()).find(|&a| {
            a != i
                && self.sites[a].state == SiteState::Accepted
                && rel(&self.sites[a]).is_some_and(|(r, p)| {
                    r == path
                        && matches!(
                            replica::print::compare(print, p),
                            Likeness::Same | Likeness::FirstInside | Likeness::SecondInside
                        )
                })
        })
    }

    /// Lists a site of the seeds' kind.
    fn accept(&mut self, i: usize) {
        let relevant = self.config.relevant;
        let fetches = self.result.fetches;
        let s = &mut self.sites[i];
        s.state = SiteState::Accepted;
        let mut best: Vec<f64> = s.scores.iter().chain(&s.checks).copied().collect();
        best.sort_by(|a, b| b.total_cmp(a));
        best.truncate(3);
        self.result.sites.push(FoundSite {
            site: s.prefix.clone(),
            score: best.iter().sum::<f64>() / best.len() as f64,
            entry: s.entry.clone(),
            examples: s.examples.clone(),
            pages: s
                .scores
                .iter()
                .chain(&s.checks)
                .filter(|&&x| x >= relevant)
                .count(),
            found_by: s.found_by,
            found_at: fetches,
        });
    }

    /// The seeds are in: the profile, and their own sites (never results).
    fn start(&mut self) {
        if self.seeds.is_empty() {
            self.result
                .problems
                .push("no seed page could be read".into());
            self.done = true;
            return;
        }
        let pages: Vec<(String, &Page)> = self
            .seeds
            .iter()
            .map(|(u, p)| (host_of(u).to_string(), p))
            .collect();
        self.profile = Some(Profile::new(
            &pages,
            self.config.structure_weight,
            self.config.markup_weight,
        ));
        let roots: Vec<(String, String)> = self
            .seeds
            .iter()
            .map(|(u, p)| (u.clone(), site_root(p).0))
            .collect();
        for (u, prefix) in roots {
            self.seen.insert(u);
            let known = self
                .sites
                .iter()
                .position(|s| prefix.starts_with(&s.prefix));
            if known.is_none() {
                self.sites.push(Site {
                    prefix: prefix.clone(),
                    state: SiteState::Seed,
                    entry: String::new(),
                    examples: Vec::new(),
                    scores: Vec::new(),
                    checks: Vec::new(),
                    samples_left: 0,
                    found_by: Operator::Forward,
                    backlinks_used: false,
                    print: None,
                    probes_left: 0,
                });
                self.result.seed_sites.push(prefix);
            }
        }
        let seeds: Vec<(String, f64, Vec<String>)> = self
            .seeds
            .iter()
            .map(|(u, p)| (u.clone(), 1.0, outlinks(p)))
            .collect();
        for (url, score, outlinks) in seeds {
            self.kept.push(Kept {
                url,
                score,
                outlinks,
                used: HashSet::new(),
            });
        }
    }

    /// Scores a candidate page and keeps it for the operators; one scoring at least
    /// [`DiscoverConfig::probe`] on a site not known starts a detection there.
    fn judge(&mut self, url: &str, page: &Page, pos: usize, len: usize) {
        let Some(profile) = self.profile.as_mut() else {
            return;
        };
        let (score, ..) = profile.score(page);
        self.result.met.push(MetPage {
            url: url.to_string(),
            fetches: self.result.fetches,
        });
        self.kept.push(Kept {
            url: url.to_string(),
            score,
            outlinks: outlinks(page),
            used: HashSet::new(),
        });
        let site = self.site_of(url).or_else(|| self.site_of(&page.url));
        let relevant = score >= self.config.relevant;
        if relevant && site.is_none_or(|s| self.sites[s].state != SiteState::Seed) {
            self.result.harvest_add_page();
            if let Some(r) = self.round.as_mut() {
                r.1 += 1.0 - pos as f64 / len.max(1) as f64;
                r.3 += 1;
            }
        }
        match site {
            Some(s) if relevant && self.sites[s].state != SiteState::Seed => {
                self.sites[s].scores.push(score);
            }
            Some(_) => {}
            None if score >= self.config.probe => {
                let (prefix, entry) = site_root(page);
                if self.site_of(&prefix).is_none() && !self.pending_detection(&prefix) {
                    let op = self.round.map_or(Operator::Forward, |r| r.0);
                    self.detections.push_back(Pending {
                        url: url.to_string(),
                        score,
                        op,
                        prefix,
                        entry,
                    });
                }
            }
            None => {}
        }
    }

    /// A detection's answer: the site is sampled (a section found) or refused. Its examples
    /// are the section's items within the site's root, else the page that led to it; its
    /// samples are those items, or the section's own when it lies elsewhere on the host (a
    /// package's page linking its neighbours'): either way the best section is checked.
    fn detected(&mut self, d: Detection, p: Pending) {
        let prefix = p.prefix.clone();
        if self.site_of(&prefix).is_some() {
            return;
        }
        // A site holding sites found before (found from an inner page first) takes them in:
        // one record, the first's, holds their evidence; a seed among them makes it the seeds'.
        let inner: Vec<usize> = (0..self.sites.len())
            .filter(|&i| {
                self.sites[i].state != SiteState::Merged
                    && self.sites[i].prefix.starts_with(&prefix)
            })
            .collect();
        for &i in &inner {
            let old = std::mem::replace(&mut self.sites[i].prefix, prefix.clone());
            let r = &mut self.result;
            r.sites.retain(|s| s.site != old);
            r.refused.retain(|x| *x != old);
            r.replicas.retain(|x| x.site != old);
            for x in r.seed_sites.iter_mut().filter(|x| **x == old) {
                x.clone_from(&prefix);
            }
        }
        self.result.seed_sites.dedup();
        if let Some((&keep, rest)) = inner.split_first() {
            let was = |s: &Site, st: SiteState| s.state == st;
            let seed = inner.iter().any(|&i| was(&self.sites[i], SiteState::Seed));
            let accepted = inner
                .iter()
                .any(|&i| was(&self.sites[i], SiteState::Accepted));
            for &o in rest {
                let scores = std::mem::take(&mut self.sites[o].scores);
                let checks = std::mem::take(&mut self.sites[o].checks);
                self.sites[o].state = SiteState::Merged;
                self.sites[keep].scores.extend(scores);
                self.sites[keep].checks.extend(checks);
            }
            if seed {
                self.sites[keep].state = SiteState::Seed;
            } else if accepted {
                self.sites[keep].state = SiteState::Sampling;
                self.sites[keep].samples_left = 0;
                self.settle(keep);
            }
            return;
        }
        let section = d.sections.first().filter(|_| d.entity_site);
        let inside: Vec<String> = section
            .map(|s| {
                s.examples
                    .iter()
                    .filter(|e| e.starts_with(&prefix))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let samples: Vec<String> = match section {
            None => Vec::new(),
            Some(s) if inside.is_empty() => s.examples.iter().take(1).cloned().collect(),
            Some(_) => inside.iter().take(2).cloned().collect(),
        };
        let entry = section
            .and_then(|s| s.index.iter().find(|i| i.starts_with(&prefix)).cloned())
            .unwrap_or(p.entry.clone());
        let examples = if inside.is_empty() {
            vec![p.url.clone()]
        } else {
            inside
        };
        let idx = self.sites.len();
        self.sites.push(Site {
            prefix: prefix.clone(),
            state: if samples.is_empty() {
                SiteState::Refused
            } else {
                SiteState::Sampling
            },
            entry,
            examples,
            scores: if p.score >= self.config.relevant {
                vec![p.score]
            } else {
                Vec::new()
            },
            checks: Vec::new(),
            samples_left: samples.len(),
            found_by: p.op,
            backlinks_used: false,
            print: None,
            probes_left: 0,
        });
        if samples.is_empty() {
            self.result.refused.push(prefix);
            return;
        }
        for u in samples {
            if !self.frontier.push(u.clone(), Item::Sample { site: idx }) {
                self.frontier.push_again(u, Item::Sample { site: idx });
            }
        }
    }

    /// Candidates from a service's answer: its links off the service's own host, in order.
    fn candidates_from(&mut self, page: &Page, op: Operator) {
        self.push_candidates(off_host_links(page), op == Operator::Backward);
    }

    fn push_candidates(&mut self, links: Vec<String>, via_backlink: bool) {
        let mut fresh: Vec<String> = Vec::new();
        for l in links {
            let Some(u) = crate::canon::canonicalize(&l) else {
                continue;
            };
            if self.seen.contains(&u) || fresh.contains(&u) {
                continue;
            }
            if self.site_of(&u).is_some() {
                continue;
            }
            fresh.push(u);
            if fresh.len() >= self.config.per_call {
                break;
            }
        }
        let len = fresh.len();
        for (pos, u) in fresh.into_iter().enumerate() {
            self.seen.insert(u.clone());
            self.frontier.push(
                u,
                Item::Candidate {
                    pos,
                    len,
                    via_backlink,
                },
            );
            if let Some(r) = self.round.as_mut() {
                r.2 += 1;
            }
        }
    }

    /// The operators that have work now.
    fn ready(&self) -> Vec<Operator> {
        let queries_left = self.queries_started < self.config.max_queries;
        Operator::ALL
            .into_iter()
            .filter(|&op| match op {
                Operator::Keyword => {
                    queries_left && self.config.search.is_some() && self.next_query().is_some()
                }
                Operator::Related => {
                    queries_left
                        && self.config.related.is_some()
                        && self.inputs(op).next().is_some()
                }
                Operator::Forward => self.inputs(op).next().is_some(),
                Operator::Backward => {
                    queries_left
                        && self.config.backlinks.is_some()
                        && self.sites.iter().any(|s| !s.backlinks_used && s.open())
                }
            })
            .collect()
    }

    /// The best pages an operator has not been applied to.
    fn inputs(&self, op: Operator) -> impl Iterator<Item = usize> + '_ {
        let mut order: Vec<usize> = (0..self.kept.len())
            .filter(|&i| !self.kept[i].used.contains(&op))
            .collect();
        order.sort_by(|&a, &b| {
            self.kept[b]
                .score
                .total_cmp(&self.kept[a].score)
                .then(a.cmp(&b))
        });
        order
            .into_iter()
            .filter(move |&i| op != Operator::Forward || !self.kept[i].outlinks.is_empty())
    }

    /// The next query not asked: pairs, then triples, of the seeds' best terms.
    fn next_query(&self) -> Option<String> {
        let terms = self.profile.as_ref()?.query_terms(8);
        let n = terms.len();
        let mut queries = Vec::new();
        if n >= 3 {
            queries.push(format!("{} {} {}", terms[0], terms[1], terms[2]));
        }
        for i in 0..n {
            for j in i + 1..n {
                queries.push(format!("{} {}", terms[i], terms[j]));
            }
        }
        queries.extend(terms.iter().cloned());
        queries.into_iter().find(|q| !self.queries_made.contains(q))
    }

    fn choose(&mut self, ready: &[Operator]) -> Operator {
        match self.config.policy {
            Policy::Only(op) => op,
            Policy::RoundRobin => {
                self.turn += 1;
                ready[self.turn % ready.len()]
            }
            Policy::Random(_) => {
                // xorshift64
                self.rng ^= self.rng << 13;
                self.rng ^= self.rng >> 7;
                self.rng ^= self.rng << 17;
                ready[(self.rng % ready.len() as u64) as usize]
            }
            Policy::Bandit => {
                if let Some(&op) = ready.iter().find(|op| !self.pulls.contains_key(op)) {
                    return op;
                }
                let n: usize = self.pulls.values().map(|p| p.0).sum();
                let ucb = |op: &Operator| {
                    let (k, total) = self.pulls[op];
                    total / k as f64 + (2.0 * (n as f64).ln() / k as f64).sqrt()
                };
                *ready
                    .iter()
                    .max_by(|a, b| ucb(a).total_cmp(&ucb(b)))
                    .unwrap_or(&ready[0])
            }
        }
    }

    /// Closes the round that ran, and starts the next; false when none can start.
    fn next_round(&mut self) -> bool {
        if let Some((op, reward, candidates, relevant)) = self.round.take() {
            let reward = reward / self.config.top_k.max(1) as f64;
            let p = self.pulls.entry(op).or_insert((0, 0.0));
            p.0 += 1;
            p.1 += reward;
            self.result.rounds.push(Round {
                operator: op,
                candidates,
                relevant,
                reward,
            });
        }
        if !self.budget_left() {
            return false;
        }
        let ready = self.ready();
        if ready.is_empty() {
            return false;
        }
        let op = self.choose(&ready);
        if !ready.contains(&op) {
            return false;
        }
        self.round = Some((op, 0.0, 0, 0));
        let k = self.config.top_k.max(1);
        match op {
            Operator::Keyword => {
                if let (Some(t), Some(q)) = (self.config.search.clone(), self.next_query()) {
                    self.queries_made.insert(q.clone());
                    self.push_service(t.replace("{q}", &encode(&q)), op);
                }
            }
            Operator::Related => {
                let inputs: Vec<usize> = self.inputs(op).take(k).collect();
                let t = self.config.related.clone().unwrap_or_default();
                for i in inputs {
                    self.kept[i].used.insert(op);
                    let url = self.kept[i].url.clone();
                    self.push_service(t.replace("{url}", &encode(&url)), op);
                }
            }
            Operator::Forward => {
                let inputs: Vec<usize> = self.inputs(op).take(k).collect();
                for i in inputs {
                    self.kept[i].used.insert(op);
                    let links = self.kept[i].outlinks.clone();
                    self.push_candidates(links, false);
                }
            }
            Operator::Backward => {
                let t = self.config.backlinks.clone().unwrap_or_default();
                let mut order: Vec<usize> = (0..self.sites.len())
                    .filter(|&i| !self.sites[i].backlinks_used && self.sites[i].open())
                    .collect();
                // Accepted sites first, then the seeds' own.
                order.sort_by_key(|&i| (self.sites[i].state != SiteState::Accepted, i));
                for i in order.into_iter().take(k) {
                    self.sites[i].backlinks_used = true;
                    let url = self.sites[i].prefix.clone();
                    self.push_service(t.replace("{url}", &encode(&url)), op);
                }
            }
        }
        true
    }

    fn push_service(&mut self, url: String, operator: Operator) {
        if self.queries_started >= self.config.max_queries {
            return;
        }
        if let Some(u) = crate::canon::canonicalize(&url) {
            self.queries_started += 1;
            self.service_urls.insert(u.clone());
            // A query asked again (another round's) is asked again, not skipped as seen.
            self.frontier.push_again(u, Item::Service { operator });
        }
    }

    fn finish(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        self.frontier.clear_queue();
        if let Some((mut d, p)) = self.detector.take() {
            d.cancel();
            self.detected(d.into_detection(), p);
        }
        if self.round.is_some() {
            self.next_round_close_only();
        }
        // Probes never answered: listed unchecked rather than lost.
        for i in 0..self.sites.len() {
            if self.sites[i].state == SiteState::Probing {
                self.accept(i);
            }
        }
        self.result.sites.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.found_at.cmp(&b.found_at))
        });
        let mut seen = HashSet::new();
        let mut pages: Vec<RankedPage> = self
            .kept
            .iter()
            .filter(|k| {
                self.site_of(&k.url)
                    .is_none_or(|s| self.sites[s].state != SiteState::Seed)
                    && seen.insert(k.url.as_str())
            })
            .map(|k| RankedPage {
                url: k.url.clone(),
                score: k.score,
            })
            .collect();
        pages.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.url.cmp(&b.url)));
        pages.truncate(RANKED_PAGES);
        self.result.pages = pages;
    }

    fn next_round_close_only(&mut self) {
        if let Some((op, reward, candidates, relevant)) = self.round.take() {
            let reward = reward / self.config.top_k.max(1) as f64;
            self.result.rounds.push(Round {
                operator: op,
                candidates,
                relevant,
                reward,
            });
        }
    }
}

impl Discovery {
    fn harvest_add_page(&mut self) {
        let last = self.harvest.last().copied().unwrap_or(Harvest {
            fetches: 0,
            relevant_pages: 0,
            sites: 0,
        });
        self.harvest.push(Harvest {
            fetches: self.fetches,
            relevant_pages: last.relevant_pages + 1,
            sites: self.sites.len(),
        });
    }
}

impl Machine for Discoverer {
    fn poll(&mut self, now_ms: u64) -> Poll {
        loop {
            if self.done {
                return Poll::Done;
            }
            let mut wait: Option<u64> = None;
            let mut busy = false;
            let budget_left = self.budget_left();
            if let Some((d, _)) = self.detector.as_mut() {
                match d.poll(now_ms) {
                    Poll::Fetch(r) => {
                        if r.kind == RequestKind::Page && !budget_left {
                            d.cancel();
                            continue;
                        }
                        if r.kind == RequestKind::Page {
                            self.started_fetches += 1;
                        }
                        let inner = r.id;
                        return self.route(r, Route::Detector(inner));
                    }
                    Poll::Done => {
                        if let Some((d, p)) = self.detector.take() {
                            self.detected(d.into_detection(), p);
                        }
                        continue;
                    }
                    Poll::WaitUntil(t) => wait = Some(t),
                    Poll::Busy => busy = true,
                }
            }
            match self.frontier.next(now_ms) {
                Next::Fetch(r) => {
                    // Pages count when asked, so that requests in flight never pass the budget.
                    let page = r.kind == RequestKind::Page && !self.service_urls.contains(&r.url);
                    if page && !self.budget_left() {
                        self.finish();
                        continue;
                    }
                    if page {
                        self.started_fetches += 1;
                        self.result.fetches = self.started_fetches;
                    }
                    let inner = r.id;
                    return self.route(r, Route::Own(inner));
                }
                Next::Disallowed(q) => {
                    // robots.txt forbids it: a seed or a sample counts as answered with nothing.
                    let why = FetchResult::Failed("disallowed by robots.txt".into());
                    self.take(q.url, q.item, why);
                    continue;
                }
                Next::WaitUntil(t) => {
                    return Poll::WaitUntil(wait.map_or(t, |w| w.min(t)));
                }
                Next::Busy | Next::Full => return Poll::Busy,
                Next::Empty => {}
            }
            if busy {
                return Poll::Busy;
            }
            if let Some(t) = wait {
                return Poll::WaitUntil(t);
            }
            if self.detector.is_some() {
                return Poll::Busy;
            }
            if self.profile.is_none() {
                // Seeds still to come (none queued and none in flight: all failed).
                if self.seeds_pending > 0 {
                    return Poll::Busy;
                }
                self.finish();
                continue;
            }
            if let Some(p) = self.detections.pop_front() {
                if self.site_of(&p.prefix).is_some() || !self.budget_left() {
                    continue;
                }
                match Detector::new(&p.url, self.config.detect.clone()) {
                    Ok(d) => self.detector = Some((d, p)),
                    Err(e) => self
                        .result
                        .problems
                        .push(format!("detector at {}: {e}", p.url)),
                }
                continue;
            }
            if !self.next_round() {
                self.finish();
            }
        }
    }

    fn handle(&mut self, id: u64, result: FetchResult, now_ms: u64) {
        match self.routes.remove(&id) {
            Some(Route::Detector(inner)) => {
                if let Some((d, _)) = self.detector.as_mut() {
                    d.handle(inner, result, now_ms);
                }
                self.result.fetches = self.started_fetches;
            }
            Some(Route::Own(inner)) => match self.frontier.deliver(inner, result) {
                Delivered::Page(q, result) => {
                    if matches!(q.item, Item::Service { .. }) {
                        self.result.queries += 1;
                    }
                    if !self.done {
                        self.take(q.url, q.item, result);
                    }
                }
                Delivered::Robots { .. } | Delivered::Retry(_) | Delivered::Unknown => {}
            },
            None => {}
        }
    }

    fn cancel(&mut self) {
        self.finish();
    }
}

/// The page of a result, or why there is none.
fn read_page(url: &str, result: FetchResult, max_bytes: usize) -> Result<Page, String> {
    let r = match result {
        FetchResult::Failed(e) => return Err(format!("failed: {e}")),
        FetchResult::Response(r) => r,
    };
    if !(200..300).contains(&r.status) {
        return Err(format!("HTTP {}", r.status));
    }
    if !r.is_html() {
        return Err("not HTML".into());
    }
    let final_url = if r.final_url.is_empty() {
        url
    } else {
        &r.final_url
    };
    let opts = ParseOptions {
        max_bytes,
        ..ParseOptions::default()
    };
    Page::parse(&r.body, final_url, r.header("content-type"), &opts).map_err(|e| e.to_string())
}

/// A URL's host (with its port), lower case.
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?', '#']).next().unwrap_or("")
}

/// A page's links to other hosts, in order.
fn off_host_links(page: &Page) -> Vec<String> {
    let host = host_of(&page.url);
    page.links
        .iter()
        .map(|l| l.url.clone())
        .filter(|u| host_of(u) != host)
        .collect()
}

/// A page's links, once each, in order.
fn outlinks(page: &Page) -> Vec<String> {
    let mut seen = HashSet::new();
    page.links
        .iter()
        .filter(|l| seen.insert(l.url.as_str()))
        .map(|l| l.url.clone())
        .collect()
}

/// A page's site: the shallowest directory above it (its own included) whose home page it
/// links on its own host (the directory itself, or an `index`, `overview`, `contents` … page
/// in it), and that page. Pages link their site's home ("Overview", "Contents", a logo) and
/// rarely a home above it; a link to another part of the host (a neighbouring package's
/// documentation, or its landing page `/package/name`) is not a home above it and does not
/// count.
fn site_root(page: &Page) -> (String, String) {
    let own = directory(&page.url);
    let mut best = (own.clone(), page.url.clone());
    for l in &page.links {
        if host_of(&l.url) != host_of(&page.url) {
            continue;
        }
        let d = directory(&l.url);
        if own.starts_with(&d) && d.len() < best.0.len() && home_like(&l.url) {
            best = (d, l.url.clone());
        }
    }
    best
}

/// Whether a URL names a directory's home page: the directory itself or an index-like page.
fn home_like(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let last = path.rsplit('/').next().unwrap_or("");
    let stem = last.split('.').next().unwrap_or("").to_ascii_lowercase();
    matches!(
        stem.as_str(),
        "" | "index"
            | "default"
            | "home"
            | "contents"
            | "overview"
            | "overview-summary"
            | "toc"
            | "start"
            | "main"
    )
}

/// A URL up to its last `/` (its directory).
fn directory(url: &str) -> String {
    let cut = url.split(['?', '#']).next().unwrap_or(url);
    match cut.rfind('/') {
        Some(i) if i > cut.find("://").map_or(0, |j| j + 2) => cut[..=i].to_string(),
        _ => format!("{cut}/"),
    }
}

/// A value percent-encoded for a query string.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests;
