//! Replica detection on hand-made hosts: prints, keys, mappings, the evidence's veto.

use super::*;

fn page(path: &str, text: &str) -> SeenPage {
    SeenPage {
        path: path.into(),
        print: PagePrint::of_text(text),
    }
}

/// A text of `n` words, distinct for each `seed`.
fn text(seed: usize, n: usize) -> String {
    (0..n)
        .map(|i| format!("w{}x{}", (seed * 7919 + i * 104_729) % 100_003, i % 5))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_mirror_adds_text_another_version_substitutes_it() {
    let original = text(1, 400);
    let banner = format!(
        "{} Mirrored by example.net on 2026-12-05 {original}",
        text(9, 40)
    );
    let version = original.replacen("w", "v", 3);
    let a = PagePrint::of_text(&original);
    assert_eq!(print::compare(&a, &a), Likeness::Same);
    assert_eq!(
        print::compare(&a, &PagePrint::of_text(&banner)),
        Likeness::FirstInside
    );
    assert_eq!(
        print::compare(&PagePrint::of_text(&banner), &a),
        Likeness::SecondInside
    );
    let other = print::compare(&a, &PagePrint::of_text(&text(2, 400)));
    assert_eq!(other, Likeness::Other);
    // Three words substituted in 400: not inside either way.
    let v = print::compare(&a, &PagePrint::of_text(&version));
    assert!(matches!(v, Likeness::Other | Likeness::Unknown), "{v:?}");
    assert_ne!(v, Likeness::Same);
    // Long pages are sampled consistently: at most MAX_KEPT hashes.
    let long = PagePrint::of_text(&text(3, 5000));
    assert!(long.shingles.len() <= print::MAX_KEPT && long.modulus > 1);
    assert_eq!(
        print::compare(&long, &PagePrint::of_text(&text(3, 5000))),
        Likeness::Same
    );
}

#[test]
fn keys_take_the_url_habits_out() {
    for (a, b) in [
        ("/library/os.html", "/library/os"),
        ("/library/index.html", "/library/"),
        ("/Library/OS.html;jsessionid=ABC123", "/library/os"),
        ("/a/b.html?sid=0123456789abcdef0123", "/a/b"),
        ("/a/b?z=1&a=2", "/a/b?a=2&z=1"),
        ("/", "/index.html"),
    ] {
        assert_eq!(paths::key(a), paths::key(b), "{a} / {b}");
    }
    assert_ne!(paths::key("/a/b?page=2"), paths::key("/a/b?page=3"));
    assert_eq!(
        paths::key(&paths::key("/x/Y.html")),
        paths::key("/x/Y.html")
    );
}

#[test]
fn the_mapping_lines_prefixes_up() {
    let a: Vec<String> = ["/", "/library/os", "/library/sys", "/tutorial/"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let b: Vec<String> = a.iter().map(|k| format!("/mirror/python{k}")).collect();
    let (m, n) = paths::infer(&a, &b).expect("a mapping");
    assert_eq!((m.from.as_str(), m.to.as_str()), ("/", "/mirror/python/"));
    assert_eq!(n, 3, "the root has no rest to line up");
    let (m, _) = paths::infer(&b, &a).expect("the inverse");
    assert_eq!((m.from.as_str(), m.to.as_str()), ("/mirror/python/", "/"));
    // A renumbered prefix is another version, not a mirror.
    let v14: Vec<String> = a.iter().map(|k| format!("/14.0.0/rc4{k}")).collect();
    let v15: Vec<String> = a.iter().map(|k| format!("/15.0.0{k}")).collect();
    assert!(paths::candidates(&v14, &v15, 3).is_empty());
    let (m, _) = paths::infer(&a, &a).expect("identity");
    assert!(m.is_identity());
    assert!(paths::infer(&a, &["/zzz".to_string()]).is_none());
    // Probes keep the page's own case and take the other host's habits.
    let html = Habits::of(["/a.html", "/b.html"]);
    let bare = Habits::of(["/a", "/b", "/c/"]);
    let pre = Mapping {
        from: "/".into(),
        to: "/mirror/ex/".into(),
    };
    assert_eq!(
        paths::translate("/Docs/Guide.html;jsessionid=AB12", &pre, &bare).as_deref(),
        Some("/mirror/ex/Docs/Guide")
    );
    assert_eq!(
        paths::translate(
            "/mirror/ex/Docs/Guide?sid=0123456789abcdef01",
            &pre.inverse(),
            &html
        )
        .as_deref(),
        Some("/Docs/Guide.html")
    );
    assert_eq!(
        paths::translate("/Docs/index.html", &Mapping::identity(), &bare).as_deref(),
        Some("/Docs/")
    );
    assert_eq!(
        paths::translate("/other/x.html", &pre.inverse(), &bare),
        None
    );
    let h = Habits::of(["/a.html", "/b.html", "/c/"]);
    assert_eq!(h.path_of("/x/y"), "/x/y.html");
    assert_eq!(Habits::of(["/a", "/b"]).path_of("/x/y"), "/x/y");
}

fn site(
    host: &str,
    prefix: &str,
    html: bool,
    n: usize,
    edit: impl Fn(usize, String) -> String,
) -> HostPages {
    HostPages {
        host: host.into(),
        addr: None,
        pages: (0..n)
            .map(|i| {
                let ext = if html { ".html" } else { "" };
                page(
                    &format!("{prefix}doc/p{i}{ext}"),
                    &edit(i, text(i + 10, 300)),
                )
            })
            .collect(),
    }
}

#[test]
fn replicas_rank_above_versions_and_unrelated_sites() {
    let original = site("docs.example.org", "/", true, 20, |_, t| t);
    let mirror = site("mirror.example.net", "/mirror/ex/", false, 20, |i, t| {
        format!("{} banner {i} {t}", text(7, 30))
    });
    // Another version: most pages the same, a few changed.
    let version = site("docs.example.org:81", "/", true, 20, |i, t| {
        if i % 4 == 0 {
            t.replacen("w", "q", 6)
        } else {
            t
        }
    });
    let unrelated = site("other.test", "/", true, 20, |i, _| text(i + 500, 300));
    let hosts = vec![original, mirror, version, unrelated];
    let ranked = rank(&hosts);
    assert_eq!((ranked[0].a, ranked[0].b), (0, 1), "{ranked:?}");
    let e = &ranked[0].evidence;
    assert_eq!(e.agreeing(), 20, "{e:?}");
    assert_eq!(e.disagreeing(), 0);
    let m = e.mapping.as_ref().expect("mapping");
    assert_eq!((m.from.as_str(), m.to.as_str()), ("/", "/mirror/ex/"));
    let score = |a: usize, b: usize| {
        ranked
            .iter()
            .find(|r| (r.a, r.b) == (a, b))
            .map_or(0.0, |r| r.score)
    };
    assert!(score(0, 2) < 0.5, "the version vetoed: {}", score(0, 2));
    assert!(score(0, 3) < 0.1);
    assert!(score(0, 1) > 0.85);
}

#[test]
fn the_document_features_and_pareto_ranking() {
    use features::*;
    assert_eq!(levenshtein("www.a.org", "a.org"), 4);
    assert!(obvious_positive("www.exemplo.com.br", "exemplo.com.br"));
    assert!(obvious_positive("exemplo.gov.br", "exemplo.br"));
    assert!(!obvious_positive("a.org", "b.org"));
    assert!(!obvious_positive("192.0.2.1", "192.0.2.2"));
    // dom: (1,1) dominates the other three; (0.5, 0.5) dominates (0, 0) and (0.5, 0).
    let s = baselines::pareto(&[1.0, 0.5, 0.0, 0.5], &[1.0, 0.5, 0.0, 0.0]);
    assert!(s[0] > s[1] && s[1] > s[3] && s[3] > s[2], "{s:?}");
}
