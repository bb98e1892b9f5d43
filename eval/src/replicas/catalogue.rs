//! Every virtual host of the replica data and the labelled pairs ([`Catalogue`]): per site its
//! original, its replicas in the pairs, and further replicas that serve only as distractors; the
//! replica pairs (the original against each replica) and the hard negatives (other versions of
//! one documentation, two sites of one generator, unrelated sites on one address), by split.
//!
//! Contract: a pure function of the site list and plan. Each site's variations are the plan's
//! specs taken in turn from an offset of its own (its index × `replicas_per_site`, so that
//! consecutive sites tile the list), skipping a spec that does not apply to it or whose host
//! name is taken; a replica's seed is `mix(turn + 1, site name)`, the original's
//! `mix(0, site name)`. Replicas get addresses in turn from the plan's network (a `www` replica
//! keeps its original's), the replicas of the pairs first, so that the number of distractors
//! changes none of them. A host pair is listed once: a pair of sites of one project is a
//! `version` negative, else one of one generator a `generator` negative; the hosts of the pairs
//! that share an address, of two sites neither, are `address` negatives.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::Ipv4Addr;
use std::path::Path;
use std::sync::Arc;

use super::host::VirtualHost;
use super::mix;
use super::sites::{self, Plan, Site, Split};
use super::variation::Variation;

/// What a pair is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairKind {
    /// A site's original and one of its replicas.
    Replica,
    /// Two versions of one documentation (`libboost1.74-doc`, `libboost1.81-doc`).
    Version,
    /// Two sites made by one generator (shared template paths and boilerplate pages).
    Generator,
    /// Two unrelated sites on one address.
    Address,
}

impl PairKind {
    /// `replica`, `version`, `generator`, `address`.
    pub fn name(self) -> &'static str {
        match self {
            PairKind::Replica => "replica",
            PairKind::Version => "version",
            PairKind::Generator => "generator",
            PairKind::Address => "address",
        }
    }

    /// The kinds of hard negatives.
    pub const NEGATIVES: [PairKind; 3] =
        [PairKind::Version, PairKind::Generator, PairKind::Address];
}

/// Two hosts and whether the second replicates the first.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The first host (a replica pair's original).
    pub a: Arc<VirtualHost>,
    /// The second host.
    pub b: Arc<VirtualHost>,
    /// Whether they serve the same site.
    pub replica: bool,
    /// What the pair is.
    pub kind: PairKind,
}

impl Pair {
    /// Its split (both hosts' sites are in it).
    pub fn split(&self) -> Split {
        self.a.site.split
    }
}

/// A site's hosts, as indices into [`Catalogue::hosts`].
#[derive(Debug, Default)]
struct SiteHosts {
    original: usize,
    replicas: Vec<usize>,
    extra: Vec<usize>,
}

/// Every host and pair of the replica data.
#[derive(Debug)]
pub struct Catalogue {
    /// The plan they follow.
    pub plan: Plan,
    /// The sites, in the file's order.
    pub sites: Vec<Arc<Site>>,
    /// The pairs: replica pairs site by site, then the hard negatives split by split.
    pub pairs: Vec<Pair>,
    hosts: Vec<Arc<VirtualHost>>,
    by_site: Vec<SiteHosts>,
    by_name: HashMap<String, usize>,
}

impl Catalogue {
    /// The catalogue of a site list (`eval/replica-sites.toml`: [`sites::DEFAULT_SITES`]).
    ///
    /// # Errors
    /// When the file is malformed ([`sites::load`]) or its plan cannot be followed.
    pub fn load(path: &Path) -> Result<Catalogue, String> {
        let (plan, sites) = sites::load(path)?;
        Catalogue::new(plan, sites).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The catalogue of a plan and sites.
    ///
    /// # Errors
    /// A variation spec that does not parse, an empty list in the plan, a split with fewer than
    /// two sites, or a site for which the plan's replicas cannot be made.
    pub fn new(plan: Plan, sites: Vec<Site>) -> Result<Catalogue, String> {
        let sites: Vec<Arc<Site>> = sites.into_iter().map(Arc::new).collect();
        let lists = [
            &plan.variations,
            &plan.tlds,
            &plan.mirror_labels,
            &plan.mirror_orgs,
            &plan.mirror_prefixes,
        ];
        if lists.iter().any(|l| l.is_empty()) || !(8..=24).contains(&plan.variant_network.1) {
            return Err("[plan]: an empty list or a variant network outside /8../24".into());
        }
        for split in Split::ALL {
            if sites.iter().filter(|s| s.split == split).count() < 2 {
                return Err(format!("fewer than two {} sites", split.name()));
            }
        }
        let mut maker = Maker::new(&plan, &sites);
        let mut hosts = Vec::new();
        let mut by_site: Vec<SiteHosts> = Vec::new();
        for site in &sites {
            by_site.push(SiteHosts {
                original: hosts.len(),
                ..SiteHosts::default()
            });
            hosts.push(Arc::new(VirtualHost::new(
                site.host.clone(),
                site.addr,
                Arc::clone(site),
                Variation::Same,
                mix(0, &site.name),
            )));
        }
        for (s, site) in sites.iter().enumerate() {
            for _ in 0..plan.replicas_per_site {
                let h = maker.next(s, site)?.ok_or(format!(
                    "{}: fewer than {} replicas can be made",
                    site.name, plan.replicas_per_site
                ))?;
                by_site[s].replicas.push(hosts.len());
                hosts.push(Arc::new(h));
            }
        }
        for split in Split::ALL {
            let n = sites.iter().filter(|s| s.split == split).count();
            let per_site = plan.distractors.div_ceil(n - 1);
            for (s, site) in sites.iter().enumerate() {
                if site.split != split {
                    continue;
                }
                while 1 + by_site[s].replicas.len() + by_site[s].extra.len() < per_site {
                    let Some(h) = maker.next(s, site)? else { break };
                    by_site[s].extra.push(hosts.len());
                    hosts.push(Arc::new(h));
                }
            }
        }
        let by_name = sites
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), i))
            .collect();
        let mut c = Catalogue {
            plan,
            sites,
            pairs: Vec::new(),
            hosts,
            by_site,
            by_name,
        };
        c.pairs = c.make_pairs();
        Ok(c)
    }

    fn make_pairs(&self) -> Vec<Pair> {
        let h = |i: usize| Arc::clone(&self.hosts[i]);
        let pair = |a: usize, b: usize, kind: PairKind| Pair {
            a: h(a),
            b: h(b),
            replica: kind == PairKind::Replica,
            kind,
        };
        let mut pairs = Vec::new();
        for sh in &self.by_site {
            for &r in &sh.replicas {
                pairs.push(pair(sh.original, r, PairKind::Replica));
            }
        }
        for split in Split::ALL {
            let members: Vec<usize> = (0..self.sites.len())
                .filter(|&s| self.sites[s].split == split)
                .collect();
            // Version and generator negatives: the originals, then each original against the
            // other site's replicas in turn.
            for (k, &x) in members.iter().enumerate() {
                for &y in &members[k + 1..] {
                    let Some(kind) = self.kind_of(x, y) else {
                        continue;
                    };
                    let (hx, hy) = (&self.by_site[x], &self.by_site[y]);
                    let mut list = vec![(hx.original, hy.original)];
                    for j in 0..hx.replicas.len().max(hy.replicas.len()) {
                        if let Some(&r) = hy.replicas.get(j) {
                            list.push((hx.original, r));
                        }
                        if let Some(&r) = hx.replicas.get(j) {
                            list.push((hy.original, r));
                        }
                    }
                    list.truncate(self.plan.negatives_per_site_pair);
                    pairs.extend(list.into_iter().map(|(a, b)| pair(a, b, kind)));
                }
            }
            // Address negatives: hosts of the pairs that share an address, of unrelated sites.
            let mut by_addr: BTreeMap<Ipv4Addr, Vec<(usize, usize)>> = BTreeMap::new();
            for &s in &members {
                let sh = &self.by_site[s];
                for &i in std::iter::once(&sh.original).chain(&sh.replicas) {
                    by_addr.entry(self.hosts[i].addr).or_default().push((s, i));
                }
            }
            for group in by_addr.values() {
                for (k, &(sa, a)) in group.iter().enumerate() {
                    for &(sb, b) in &group[k + 1..] {
                        if sa != sb && self.kind_of(sa, sb).is_none() {
                            pairs.push(pair(a, b, PairKind::Address));
                        }
                    }
                }
            }
        }
        pairs
    }

    /// Whether two sites are a version or generator negative.
    fn kind_of(&self, x: usize, y: usize) -> Option<PairKind> {
        let (x, y) = (&self.sites[x], &self.sites[y]);
        if x.project == y.project {
            Some(PairKind::Version)
        } else if x.generator == y.generator {
            Some(PairKind::Generator)
        } else {
            None
        }
    }

    /// The pairs of one split.
    pub fn pairs(&self, split: Split) -> impl Iterator<Item = &Pair> {
        self.pairs.iter().filter(move |p| p.split() == split)
    }

    /// Every host: per site its original, its replicas of the pairs, then its other replicas.
    pub fn hosts(&self) -> &[Arc<VirtualHost>] {
        &self.hosts
    }

    /// Every host of one split's sites (the distractors included).
    pub fn all_hosts(&self, split: Split) -> Vec<Arc<VirtualHost>> {
        self.hosts
            .iter()
            .filter(|h| h.site.split == split)
            .cloned()
            .collect()
    }

    /// The hosts a replica of `site` is ranked against: every host of its split serving another
    /// site (at least the plan's `distractors`).
    pub fn distractors(&self, site: &str) -> Vec<Arc<VirtualHost>> {
        let Some(&s) = self.by_name.get(site) else {
            return Vec::new();
        };
        let split = self.sites[s].split;
        self.hosts
            .iter()
            .filter(|h| h.site.split == split && h.site.name != site)
            .cloned()
            .collect()
    }

    /// A site's original host.
    pub fn original(&self, site: &str) -> Option<&Arc<VirtualHost>> {
        let &s = self.by_name.get(site)?;
        Some(&self.hosts[self.by_site[s].original])
    }

    /// A site's replicas in the pairs.
    pub fn replicas(&self, site: &str) -> Vec<&Arc<VirtualHost>> {
        self.by_name.get(site).map_or_else(Vec::new, |&s| {
            self.by_site[s]
                .replicas
                .iter()
                .map(|&i| &self.hosts[i])
                .collect()
        })
    }

    /// The host of a name.
    pub fn host(&self, name: &str) -> Option<&Arc<VirtualHost>> {
        self.hosts.iter().find(|h| h.host == name)
    }

    /// The data set in a few tables: sites, hosts, replica pairs by variation and hard negatives
    /// by kind, per split.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let count = |f: &dyn Fn(Split) -> usize| {
            let (d, t) = (f(Split::Dev), f(Split::Test));
            format!("{d:>6} {t:>6} {:>6}", d + t)
        };
        out.push_str(&format!(
            "{:<34} {:>6} {:>6} {:>6}\n",
            "", "dev", "test", "all"
        ));
        out.push_str(&format!(
            "{:<34} {}\n",
            "sites",
            count(&|s| self.sites.iter().filter(|x| x.split == s).count())
        ));
        out.push_str(&format!(
            "{:<34} {}\n",
            "sites installed",
            count(&|s| {
                self.sites
                    .iter()
                    .filter(|x| x.split == s && x.available())
                    .count()
            })
        ));
        out.push_str(&format!(
            "{:<34} {}\n",
            "hosts in pairs",
            count(&|s| {
                self.by_site
                    .iter()
                    .zip(&self.sites)
                    .filter(|(_, x)| x.split == s)
                    .map(|(h, _)| 1 + h.replicas.len())
                    .sum()
            })
        ));
        out.push_str(&format!(
            "{:<34} {}\n",
            "hosts with distractors",
            count(&|s| self.all_hosts(s).len())
        ));
        let least = |s: Split| {
            self.sites
                .iter()
                .filter(|x| x.split == s)
                .map(|x| self.distractors(&x.name).len())
                .min()
                .unwrap_or(0)
        };
        let (d, t) = (least(Split::Dev), least(Split::Test));
        out.push_str(&format!(
            "{:<34} {d:>6} {t:>6} {:>6}\n",
            "distractors per site, at least",
            d.min(t)
        ));
        let mut by_variation: BTreeMap<String, [usize; 2]> = BTreeMap::new();
        for p in self.pairs.iter().filter(|p| p.replica) {
            by_variation.entry(p.b.variation.name()).or_default()[p.split() as usize] += 1;
        }
        out.push_str("\nreplica pairs by variation\n");
        for (name, [d, t]) in &by_variation {
            out.push_str(&format!("  {name:<32} {d:>6} {t:>6} {:>6}\n", d + t));
        }
        out.push_str(&format!(
            "  {:<32} {}\n",
            "all",
            count(&|s| self.pairs(s).filter(|p| p.replica).count())
        ));
        out.push_str("\nhard negatives by kind\n");
        for kind in PairKind::NEGATIVES {
            out.push_str(&format!(
                "  {:<32} {}\n",
                kind.name(),
                count(&|s| self.pairs(s).filter(|p| p.kind == kind).count())
            ));
        }
        out.push_str(&format!(
            "  {:<32} {}\n",
            "all",
            count(&|s| self.pairs(s).filter(|p| !p.replica).count())
        ));
        let missing: Vec<String> = self
            .sites
            .iter()
            .filter(|s| !s.available())
            .map(|s| match &s.package {
                Some(p) => format!("{} ({p})", s.name),
                None => s.name.clone(),
            })
            .collect();
        if !missing.is_empty() {
            out.push_str(&format!(
                "\nnot installed (they serve nothing; ./build.sh eval-replicas installs them): {}\n",
                missing.join(", ")
            ));
        }
        out
    }
}

/// Makes each site's replicas in turn.
struct Maker<'a> {
    plan: &'a Plan,
    taken: HashSet<String>,
    turns: Vec<usize>,
    next_addr: u32,
    end_addr: u32,
}

impl<'a> Maker<'a> {
    fn new(plan: &'a Plan, sites: &[Arc<Site>]) -> Maker<'a> {
        let (net, len) = plan.variant_network;
        // A /8../24 network (checked by `Catalogue::new`).
        let host_bits = 32 - u32::from(len.clamp(8, 24));
        let base = u32::from(net) & (u32::MAX << host_bits);
        Maker {
            plan,
            taken: sites.iter().map(|s| s.host.clone()).collect(),
            turns: vec![0; sites.len()],
            next_addr: base,
            end_addr: base + ((1u32 << host_bits) - 1),
        }
    }

    /// The site's next replica (`None` when the specs give no more).
    fn next(&mut self, s: usize, site: &Arc<Site>) -> Result<Option<VirtualHost>, String> {
        let specs = &self.plan.variations;
        let offset = s * self.plan.replicas_per_site;
        // Every spec many times over: hosts differ by seed, except `www` (one per site).
        let limit = specs.len() * 100;
        while self.turns[s] < limit {
            let turn = self.turns[s];
            self.turns[s] += 1;
            let seed = mix(turn as u64 + 1, &site.name);
            let spec = &specs[(offset + turn) % specs.len()];
            let prefixes = &self.plan.mirror_prefixes;
            let v = Variation::parse(spec, || {
                prefixes[(mix(seed, "prefix") % prefixes.len() as u64) as usize]
                    .replace("{project}", &site.project)
            })
            .map_err(|e| format!("[plan] variations: {e}"))?;
            if !v.applies_to(site) || v.has(&Variation::Same) {
                continue;
            }
            let (host, addr) = if v.has(&Variation::Www) {
                let host = match site.host.strip_prefix("www.") {
                    Some(bare) => bare.to_string(),
                    None => format!("www.{}", site.host),
                };
                (Some(host), site.addr)
            } else if v.has(&Variation::IpLiteral) {
                let addr = self.addr()?;
                (Some(addr.to_string()), addr)
            } else if v.has(&Variation::OtherTld) {
                (self.other_tld(&site.host, seed), self.peek_addr()?)
            } else {
                (self.mirror_host(seed), self.peek_addr()?)
            };
            let Some(host) = host.filter(|h| !self.taken.contains(h)) else {
                continue;
            };
            if addr != site.addr && !v.has(&Variation::IpLiteral) {
                self.addr()?;
            }
            self.taken.insert(host.clone());
            return Ok(Some(VirtualHost::new(
                host,
                addr,
                Arc::clone(site),
                v,
                seed,
            )));
        }
        Ok(None)
    }

    /// The next replica address, without taking it.
    fn peek_addr(&self) -> Result<Ipv4Addr, String> {
        let mut a = self.next_addr;
        while a <= self.end_addr {
            let last = a & 0xff;
            if last != 0 && last != 255 {
                return Ok(Ipv4Addr::from(a));
            }
            a += 1;
        }
        Err("[plan] variant_network: no addresses left".into())
    }

    /// Takes the next replica address.
    fn addr(&mut self) -> Result<Ipv4Addr, String> {
        let a = self.peek_addr()?;
        self.next_addr = u32::from(a) + 1;
        Ok(a)
    }

    /// The host with another top-level domain, the first free one from a seeded start.
    fn other_tld(&self, host: &str, seed: u64) -> Option<String> {
        let tlds = &self.plan.tlds;
        let stem = tlds
            .iter()
            .filter(|t| t.contains('.'))
            .find_map(|t| host.strip_suffix(&format!(".{t}")))
            .or_else(|| host.rsplit_once('.').map(|(stem, _)| stem))?;
        let start = (mix(seed, "tld") % tlds.len() as u64) as usize;
        (0..tlds.len())
            .map(|k| format!("{stem}.{}", tlds[(start + k) % tlds.len()]))
            .find(|h| h != host && !self.taken.contains(h))
    }

    /// A free mirror host name, `LABEL[N].ORG`.
    fn mirror_host(&self, seed: u64) -> Option<String> {
        let (labels, orgs) = (&self.plan.mirror_labels, &self.plan.mirror_orgs);
        (0..100).find_map(|k| {
            let h = mix(seed, &format!("mirror {k}"));
            let label = &labels[(h % labels.len() as u64) as usize];
            let org = &orgs[((h >> 16) % orgs.len() as u64) as usize];
            let n = (h >> 40) % 10;
            let num = if n < 6 {
                String::new()
            } else {
                (n - 4).to_string()
            };
            let host = format!("{label}{num}.{org}");
            (!self.taken.contains(&host)).then_some(host)
        })
    }
}
