use exemplar::mapper::{NodeState, SiteMap};
#[test]
#[ignore]
fn generalisation() {
    for ratio in [0.0, 0.25, 0.5, 1.0] {
        for site in ["pg", "cl", "py", "sfml"] {
            let map: SiteMap = serde_json::from_str(
                &std::fs::read_to_string(format!("/tmp/{site}/m.json")).unwrap(),
            )
            .unwrap();
            let targets: Vec<&str> = map
                .nodes
                .iter()
                .filter(|n| n.state == NodeState::Target)
                .map(|n| n.url.as_str())
                .collect();
            let negs: Vec<&str> = map
                .nodes
                .iter()
                .filter(|n| n.state == NodeState::Page)
                .map(|n| n.url.as_str())
                .collect();
            let folds = 5;
            let (mut hit, mut total, mut alts, mut nhit, mut ntotal, mut excl) = (0, 0, 0, 0, 0, 0);
            for f in 0..folds {
                let train: Vec<&str> = targets
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % folds != f)
                    .map(|(_, u)| *u)
                    .collect();
                let test: Vec<&str> = targets
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % folds == f)
                    .map(|(_, u)| *u)
                    .collect();
                let ntrain: Vec<&str> = negs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % folds != f)
                    .map(|(_, u)| *u)
                    .collect();
                let ntest: Vec<&str> = negs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % folds == f)
                    .map(|(_, u)| *u)
                    .collect();
                let res = exemplar::pattern::generalise_excluding(&train, &ntrain, 2, ratio);
                alts += res.regexes.len();
                excl += res.exclude.len();
                let set = regex::RegexSet::new(&res.regexes).unwrap();
                for t in &test {
                    total += 1;
                    if set.is_match(t) {
                        hit += 1;
                    }
                }
                for t in &ntest {
                    ntotal += 1;
                    if set.is_match(t) {
                        nhit += 1;
                    }
                }
            }
            eprintln!(
                "ratio {ratio} {site}: held-out targets matched {hit}/{total}, held-out others matched {nhit}/{ntotal}, alternatives {:.1}, exclusions {:.1}",
                alts as f64 / folds as f64,
                excl as f64 / folds as f64
            );
        }
    }
}
