//! The tests of `url_pattern` (a sibling file: they outgrew the module).
use super::*;

#[test]
fn urls_are_blanked_one_word_or_number_at_a_time() {
    let keys = one_token_variants("http://docs.test/a/page-12.html", false);
    // http, docs, test, a, page, 12, html
    assert_eq!(keys.len(), 7);
    assert!(keys.contains(&"http://docs.test/a/page-\u{0}.html".to_string()));
    assert!(keys.iter().all(|k| k.matches('\u{0}').count() == 1));
    // A file name of one word keeps it: blanked, it would be the whole directory.
    let keys = one_token_variants("http://docs.test/a/pgbench.html", false);
    assert_eq!(keys.len(), 5, "{keys:?}");
    assert!(!keys.contains(&"http://docs.test/a/\u{0}.html".to_string()));
    assert!(keys.contains(&"http://docs.test/\u{0}/pgbench.html".to_string()));
    let keys = one_token_variants("http://docs.test/a/pgbench.html", true);
    assert_eq!(keys.len(), 6, "{keys:?}");
    assert!(keys.contains(&"http://docs.test/a/\u{0}.html".to_string()));
}

#[test]
fn variants_hashed_are_equal_exactly_where_the_variants_are() {
    let urls = [
        "http://docs.test/a/page-12.html",
        "http://docs.test/a/page-13.html",
        "http://docs.test/b/page-12.html",
        "http://docs.test/a/pgbench.html",
        "http://docs.test/a/pg.html",
        "http://docs.test/a/page-12.htm",
        "http://docs.test/a/page12.html",
        "http://docs.test/a/page-12.html?x=1",
    ];
    let mut by_text: Vec<(String, u64)> = Vec::new();
    for u in urls {
        for sole in [false, true] {
            let texts = one_token_variants(u, sole);
            let hashes = one_token_variant_hashes(u, sole);
            assert_eq!(texts.len(), hashes.len(), "{u}");
            by_text.extend(texts.into_iter().zip(hashes));
        }
    }
    let shared = by_text
        .iter()
        .filter(|(t, _)| by_text.iter().filter(|(o, _)| o == t).count() > 2)
        .count();
    assert!(shared > 0, "some URLs share a variant");
    for (t, h) in &by_text {
        for (o, g) in &by_text {
            assert_eq!(t == o, h == g, "{t:?} {o:?}");
        }
    }
}

fn pattern(urls: &[&str]) -> String {
    let p = url_pattern(urls).expect("pattern");
    let re = p.compile().expect("compiles");
    for u in urls {
        let n = normalize(u).expect("url");
        assert!(re.is_match(&n), "{} does not match {n}", p.regex);
    }
    p.regex
}

fn matches(regex: &str, url: &str) -> bool {
    regex::Regex::new(regex).expect("compiles").is_match(url)
}

#[test]
fn levels_split_site_segments_and_query() {
    assert_eq!(
        levels("http://127.0.0.1:8000/a/b.html?x=1&y=2#frag").unwrap(),
        ["http://127.0.0.1:8000", "a", "b.html?x=1&y=2"]
    );
    assert_eq!(levels("http://h/a/").unwrap(), ["http://h", "a", ""]);
    assert_eq!(levels("http://h").unwrap(), ["http://h", ""]);
    assert_eq!(levels("http://h/?q").unwrap(), ["http://h", "?q"]);
    assert_eq!(
        levels("HTTP://H.example/A").unwrap(),
        ["http://h.example", "A"]
    );
    assert_eq!(levels("not a url"), None);
    assert_eq!(levels("mailto:a@b.c"), None);
    assert_eq!(levels(""), None);
}

#[test]
fn similarity_counts_differing_levels() {
    assert!(url_similar("http://h/a/b/c", "http://h/a/x/y", 2));
    assert!(!url_similar("http://h/a/b/c", "http://h/z/x/y", 2));
    assert!(url_similar("http://h/a/b/c", "http://h/z/x/y", 3));
    assert!(!url_similar("http://h/a/b", "http://h/a/b/c", 2));
    assert!(!url_similar("http://h/a/b", "http://g/a/b", 2));
    assert!(!url_similar("http://h/a/b", "http://h:81/a/b", 2));
    assert!(url_similar("http://h/a?x=1", "http://h/a?x=2", 1));
    assert!(!url_similar("junk", "junk", 2));
}

#[test]
fn group_with_k2() {
    let urls = [
        "http://h/a/1/x.html",     // 0
        "http://h/a/2/y.html",     // 1: 2 levels from 0
        "http://h/b/3/z.html",     // 2: 3 levels from 0 → new group
        "http://h/a/1/z.html",     // 3: 1 from 0, 2 from 1
        "http://h/b/3/w.html",     // 4: 3 from 0; 1 from 2
        "http://h/a/1",            // 5: fewer levels
        "http://other/a/1/x.html", // 6: other site
        "nonsense",                // 7
        "http://h/a/2/x.html",     // 8: 1 from 0, 1 from 1, 2 from 3 → group 0
        "http://h/b/2/y.html",     // 9: 3 from 0 → not group 0; 2 from 2 and 4 → group 1
    ];
    assert_eq!(
        group(&urls, DEFAULT_K),
        vec![vec![0, 1, 3, 8], vec![2, 4, 9], vec![5], vec![6], vec![7]]
    );
    // Joining needs similarity to every member, not just the first.
    let urls = ["http://h/a/b/c", "http://h/a/b/x", "http://h/a/y/c"];
    assert_eq!(group(&urls, 1), vec![vec![0, 1], vec![2]]);
    assert_eq!(group(&[], 2), Vec::<Vec<usize>>::new());
}

#[test]
fn tokenize_cuts_runs_and_symbols() {
    let t = tokenize("Chaves:Silvio8=.html");
    let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["Chaves", ":", "Silvio", "8", "=", ".", "html"]);
    assert_eq!(t[0].class, Class::Alpha);
    assert_eq!(t[1].class, Class::Punct(':'));
    assert_eq!(t[3].class, Class::Digit);
    let texts: Vec<String> = tokenize("a--é9").into_iter().map(|t| t.text).collect();
    assert_eq!(texts, ["a", "-", "-", "é", "9"]);
    assert!(tokenize("").is_empty());
}

#[test]
fn regex_tree_lca() {
    assert_eq!(Class::Alpha.lca(Class::Digit), Class::AlphaNum);
    assert_eq!(Class::Alpha.lca(Class::Alpha), Class::Alpha);
    assert_eq!(Class::Punct('-').lca(Class::Punct('_')), Class::Symbol);
    assert_eq!(Class::Punct('-').lca(Class::Punct('-')), Class::Punct('-'));
    assert_eq!(Class::Digit.lca(Class::Punct('-')), Class::Any);
    assert_eq!(Class::AlphaNum.lca(Class::Digit), Class::AlphaNum);
}

#[test]
fn thesis_example() {
    let urls = [
        "http://h/x/Chaves:Silvio8=.html",
        "http://h/x/Ugher:MangabeiraD=.html",
        "http://h/x/Mendes:Sergio.html",
    ];
    let re = pattern(&urls);
    // The design (after the thesis' Figure 3.4) reads `[A-Za-z]+:[A-Za-z]+[A-Za-z0-9]*=?\.html`.
    // The figure's column holds `8` and `D` (its tokenizer cut `Mangabeira D`); ours takes the
    // longest letter run, so `MangabeiraD` is one token and the optional column holds `8` alone,
    // hence `[0-9]*`. Same shape; both accept the siblings below.
    assert_eq!(re, r"^http://h/x/[A-Za-z]+:[A-Za-z]+[0-9]*=?\.html$");
    assert!(matches(&re, "http://h/x/Silva:Joao.html"));
    assert!(matches(&re, "http://h/x/Costa:Ana7=.html"));
    assert!(!matches(&re, "http://h/x/a/b.html"));
    assert!(!matches(&re, "http://h/x/Silva.html"));
    // The full URLs of the figure: levels 6 and 7 differ.
    let re = pattern(&[
        "http://www.informatik.uni-trier.de/~ley/db/indices/a-tree/c/Chaves:Silvio8=.html",
        "http://www.informatik.uni-trier.de/~ley/db/indices/a-tree/u/Ugher:MangabeiraD=.html",
        "http://www.informatik.uni-trier.de/~ley/db/indices/a-tree/m/Mendes:Sergio.html",
    ]);
    assert_eq!(
        re,
        r"^http://www\.informatik\.uni-trier\.de/~ley/db/indices/a-tree/[A-Za-z]+/[A-Za-z]+:[A-Za-z]+[0-9]*=?\.html$"
    );
}

#[test]
fn postgresql_docs() {
    let base = "https://www.postgresql.org/docs/current/";
    let sql: Vec<String> = [
        "sql-vacuum.html",
        "sql-analyze.html",
        "sql-createtable.html",
    ]
    .iter()
    .map(|p| format!("{base}{p}"))
    .collect();
    let sql: Vec<&str> = sql.iter().map(String::as_str).collect();
    let re = pattern(&sql);
    assert_eq!(
        re,
        r"^https://www\.postgresql\.org/docs/current/sql-[A-Za-z]+\.html$"
    );
    assert!(matches(&re, &format!("{base}sql-copy.html")));
    assert!(!matches(&re, &format!("{base}app-pgdump.html")));

    let mixed: Vec<String> = [
        "sql-vacuum.html",
        "app-pgdump.html",
        "sql-createtable.html",
        "pgbench.html",
    ]
    .iter()
    .map(|p| format!("{base}{p}"))
    .collect();
    let mixed: Vec<&str> = mixed.iter().map(String::as_str).collect();
    let re = pattern(&mixed);
    assert_eq!(
        re,
        r"^https://www\.postgresql\.org/docs/current/[A-Za-z]+(?:-[A-Za-z]+)?\.html$"
    );
    assert!(matches(&re, &format!("{base}sql-copy.html")));
    assert!(matches(&re, &format!("{base}initdb.html")));
    assert!(!matches(&re, &format!("{base}release-17-2.html")));
    assert!(!matches(&re, &format!("{base}sql/copy.html")));
}

#[test]
fn javadoc_with_different_depths() {
    let base = "https://commons.apache.org/proper/commons-lang/apidocs/org/apache/commons/lang3/";
    let urls = [
        format!("{base}StringUtils.html"),
        format!("{base}text/StrBuilder.html"),
        format!("{base}ArrayUtils.html"),
        format!("{base}text/WordUtils.html"),
    ];
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let re = pattern(&urls);
    let site =
        r"https://commons\.apache\.org/proper/commons-lang/apidocs/org/apache/commons/lang3/";
    assert_eq!(
        re,
        format!(r"^(?:{site}[A-Za-z]+\.html|{site}text/[A-Za-z]+\.html)$")
    );
    assert!(matches(&re, &format!("{base}BooleanUtils.html")));
    assert!(matches(&re, &format!("{base}text/StrTokenizer.html")));
    assert!(!matches(&re, &format!("{base}text/x/StrTokenizer.html")));
    // Grouped first, as the mapper does: one pattern per depth.
    assert_eq!(group(&urls, DEFAULT_K), vec![vec![0, 2], vec![1, 3]]);
}

#[test]
fn doxygen_names() {
    let base = "https://www.sfml-dev.org/documentation/2.6.1/";
    let urls = [
        format!("{base}classsf_1_1Texture.html"),
        format!("{base}classsf_1_1Sprite.html"),
        format!("{base}structsf_1_1Event_1_1KeyEvent.html"),
    ];
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let re = pattern(&urls);
    assert_eq!(
        re,
        r"^https://www\.sfml-dev\.org/documentation/2\.6\.1/[A-Za-z]+_1_1[A-Za-z]+(?:_[0-9]+_[0-9]+[A-Za-z]+)?\.html$"
    );
    for name in [
        "classsf_1_1RenderWindow.html",
        "structsf_1_1Event_1_1MouseButtonEvent.html",
        "classsf_1_1Music.html",
    ] {
        assert!(matches(&re, &format!("{base}{name}")), "{name}");
    }
    assert!(!matches(&re, &format!("{base}namespacesf.html")));
    assert!(!matches(
        &re,
        &format!("{base}classsf_1_1Texture-members.html")
    ));
}

#[test]
fn python_docs() {
    let base = "https://docs.python.org/3/library/";
    let urls = [
        format!("{base}json.html"),
        format!("{base}os.path.html"),
        format!("{base}os.html"),
        format!("{base}collections.abc.html"),
    ];
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let re = pattern(&urls);
    assert_eq!(
        re,
        r"^https://docs\.python\.org/3/library/[A-Za-z]+(?:\.[A-Za-z]+)?\.html$"
    );
    assert!(matches(&re, &format!("{base}pathlib.html")));
    assert!(matches(&re, &format!("{base}xml.dom.html")));
    assert!(!matches(&re, &format!("{base}index/x.html")));
}

#[test]
fn query_strings() {
    let re = pattern(&["http://h/list?page=2", "http://h/list?page=10"]);
    assert_eq!(re, r"^http://h/list\?page=[0-9]+$");
    assert!(matches(&re, "http://h/list?page=3"));
    assert!(!matches(&re, "http://h/list?page=x"));

    let re = pattern(&["http://h/list", "http://h/list?page=2"]);
    assert_eq!(re, r"^http://h/list(?:\?page=[0-9]+)?$");

    let re = pattern(&["http://h/item?id=3&x=y", "http://h/item?id=10&x=zz"]);
    assert_eq!(re, r"^http://h/item\?id=[0-9]+&x=[A-Za-z]+$");

    let re = pattern(&["http://h/a/show.php?id=1", "http://h/b/show.php?id=22"]);
    assert_eq!(re, r"^http://h/[A-Za-z]+/show\.php\?id=[0-9]+$");
}

#[test]
fn identifiers_are_one_token() {
    let texts = |s: &str| -> Vec<(String, Class)> {
        tokenize(s).into_iter().map(|t| (t.text, t.class)).collect()
    };
    // Two runs: a word and a number, as the thesis cuts them.
    assert_eq!(
        texts("page12"),
        [("page".into(), Class::Alpha), ("12".into(), Class::Digit)]
    );
    // Three are words and numbers (Doxygen's `_1_1Vector2`); four or more, one identifier.
    assert_eq!(texts("1Vector2").len(), 3);
    assert_eq!(
        texts("h=3f9a;x"),
        [
            ("h".into(), Class::Alpha),
            ("=".into(), Class::Punct('=')),
            ("3f9a".into(), Class::AlphaNum),
            (";".into(), Class::Punct(';')),
            ("x".into(), Class::Alpha),
        ]
    );
    // A prefix shared by two values does not cut an identifier open.
    assert_eq!(level_regex(&["ab12", "ab12c3"]), "[A-Za-z0-9]+");
    assert_eq!(level_regex(&["ab12-x", "ab12c3-x"]), "[A-Za-z0-9]+-x");
}

/// Datasette's rows, named by Debian package (its `~2E` encodes a dot): no structure to align,
/// so one class of the characters seen — which leaves out the rows' `.json` alternates.
#[test]
fn names_without_a_common_structure_are_one_class() {
    let names = [
        "4ti2",
        "9menu",
        "abcm2ps",
        "bash",
        "g~2B~2B-12",
        "libjs-highlight~2Ejs",
        "lib32gcc-s1",
        "python3-pyqt5~2Eqtsvg",
        "xfonts-100dpi-transcoded",
        "zstd",
    ];
    let urls: Vec<String> = names
        .iter()
        .map(|n| format!("http://h/db/packages/{n}"))
        .collect();
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let re = pattern(&urls);
    assert_eq!(re, r"^http://h/db/packages/[A-Za-z0-9\-\~]+$");
    assert!(matches(&re, "http://h/db/packages/coreutils"));
    assert!(!matches(&re, "http://h/db/packages/bash.json"));
    assert!(!matches(&re, "http://h/db/packages/bash.csv?_size=max"));
    // Names that share a separator are aligned, however they differ.
    let re = level_regex(&[
        "classsf_1_1Texture.html",
        "classsf_1_1Vector2.html",
        "structsf_1_1Event_1_1SizeEvent.html",
        "structsf_1_1Font_1_1Info.html",
        "classsf_1_1Shader_1_1CurrentTextureType.html",
    ]);
    assert!(re.contains("_1_1"), "{re}");
    assert!(
        !regex::Regex::new(&format!("^{re}$"))
            .expect("compiles")
            .is_match("Event_8hpp_source.html")
    );
    // Names of one structure are still aligned.
    assert_eq!(
        level_regex(&["sql-vacuum", "sql-analyze", "app-pgdump", "pgbench"]),
        "[A-Za-z]+(?:-[A-Za-z]+)?"
    );
    // Symbols that mean something in a class are escaped.
    assert_eq!(
        coarse_regex(&["a&b", "c]d", "e^f", "x\\y", ""]),
        r"[A-Za-z\&\\\]\^]*"
    );
    let re = regex::Regex::new(&format!("^{}$", coarse_regex(&["a&&b", "c--d", "e~~f"])))
        .expect("compiles in Rust's syntax");
    assert!(re.is_match("a&-~b") && !re.is_match("a.b"));
    // Query parameters stay aligned, however little the values share: one class would
    // take every combination of sorts and facets.
    let queries = [
        "",
        "?_sort=name",
        "?_facet=section&_facet=priority&size=20",
        "?_next=100",
        "?maintainer=54&_facet=description&_sort_by_desc=size",
        "?_filter_column=id&_filter_op=not&_filter_value=x&_sort=id&_sort_by_desc=on",
    ];
    let values: Vec<String> = queries.iter().map(|q| format!("t{q}")).collect();
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    let re = level_regex(&values);
    assert_ne!(re, format!("t{}", coarse_regex(&queries)));
    assert!(re.len() > 100, "{re}");
}

/// gitweb's commit pages: 40-digit hex hashes in a `;`-separated query. Cut into letter and
/// digit runs, every hash had its own shape and unseen hashes were missed.
#[test]
fn commit_hashes_generalise_to_one_class() {
    // A deterministic stream of hex hashes (xorshift).
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut hash = || {
        (0..40)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b"0123456789abcdef"[(x % 16) as usize])
            })
            .collect::<String>()
    };
    let base = "http://h/cgi-bin/gitweb.cgi?p=repo.git;a=commit;h=";
    let seen: Vec<String> = (0..30).map(|_| format!("{base}{}", hash())).collect();
    let seen: Vec<&str> = seen.iter().map(String::as_str).collect();
    let re = pattern(&seen);
    assert_eq!(
        re,
        r"^http://h/cgi-bin/gitweb\.cgi\?p=repo\.git;a=commit;h=[A-Za-z0-9]+$"
    );
    let unseen: Vec<String> = (0..200).map(|_| format!("{base}{}", hash())).collect();
    assert!(unseen.iter().all(|u| matches(&re, u)));
    assert!(!matches(
        &re,
        "http://h/cgi-bin/gitweb.cgi?p=repo.git;a=commitdiff;h=3f9a"
    ));
    // With the page that has no hash: the hash is optional, as a whole.
    let mut with_bare = seen.clone();
    with_bare.push("http://h/cgi-bin/gitweb.cgi?p=repo.git;a=commit");
    assert_eq!(
        pattern(&with_bare),
        r"^http://h/cgi-bin/gitweb\.cgi\?p=repo\.git;a=commit(?:;h=[A-Za-z0-9]+)?$"
    );
    // UUIDs: each group of hex digits is an identifier or a plain run, all one column.
    let re = pattern(&[
        "http://h/item/6f1c2a4e-0b7d-4c3a-9e21-5d8f0a1b2c3d",
        "http://h/item/0a9b8c7d-1e2f-4a5b-8c6d-7e8f9a0b1c2d",
        "http://h/item/12345678-abcd-4ef0-9123-456789abcdef",
    ]);
    assert!(matches(
        &re,
        "http://h/item/deadbeef-0000-4111-8222-333344445555"
    ));
}

#[test]
fn common_affixes_snap_to_tokens() {
    assert_eq!(
        level_regex(&["sql-vacuum.html", "sql-analyze.html"]),
        r"sql-[A-Za-z]+\.html"
    );
    assert_eq!(level_regex(&["item12", "item13"]), "item[0-9]+");
    assert_eq!(
        level_regex(&["a12.html", "b2.html"]),
        r"[A-Za-z]+[0-9]+\.html"
    );
    assert_eq!(level_regex(&["aa", "aaa"]), "[A-Za-z]+");
    assert_eq!(
        level_regex(&["a.html", "a.b.html"]),
        r"a\.(?:[A-Za-z]+\.)?html"
    );
    assert_eq!(level_regex(&["x", "x"]), "x");
    assert_eq!(level_regex(&[]), "");
    assert_eq!(level_regex(&["2023", "abc"]), "[A-Za-z0-9]+");
    assert_eq!(
        level_regex(&["x-y", "a_b"]),
        "[A-Za-z]+[^A-Za-z0-9/?][A-Za-z]+"
    );
    assert_eq!(level_regex(&["", "x"]), "[A-Za-z]*");
}

#[test]
fn escaping_is_portable() {
    assert_eq!(
        escape(r"a.b-c?d=e&f(g)[h]{i}^$|*+\"),
        r"a\.b-c\?d=e&f\(g\)\[h\]\{i\}\^\$\|\*\+\\"
    );
    let p = UrlPattern::literal("http://h/é?a=(1)#x");
    let re = p.compile().unwrap();
    assert!(re.is_match("http://h/é?a=(1)#x"));
    assert!(!re.is_match("http://h/é?a=(1)#xy"));
}

#[test]
fn invalid_input() {
    assert_eq!(url_pattern(&[]), None);
    assert_eq!(url_pattern(&["http://h/a", "no url"]), None);
    let one = url_pattern(&["http://h/a.html"]).unwrap();
    assert_eq!(one.regex, r"^http://h/a\.html$");
    // Different sites become alternatives.
    let re = pattern(&["http://a/x/1", "http://b/x/1", "http://a/x/2"]);
    assert_eq!(re, r"^(?:http://a/x/[0-9]+|http://b/x/1)$");
}

#[test]
fn long_infixes_fall_back_to_one_class() {
    let a = format!("http://h/q?{}", "a=1&".repeat(30));
    let b = format!("http://h/q?{}", "b=2&".repeat(31));
    let re = pattern(&[&a, &b]);
    assert_eq!(re, r"^http://h/q\?[A-Za-z0-9\&=]+&$");
}

#[test]
fn five_thousand_urls() {
    let urls: Vec<String> = (0..5000)
        .map(|i| {
            format!(
                "https://docs.example.org/v{}/api/{}-{}.html?rev={}",
                i % 7,
                ["module", "class", "fn", "struct"][i % 4],
                "x".repeat(1 + i % 13),
                i * 31
            )
        })
        .collect();
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    let re = pattern(&refs);
    assert_eq!(
        re,
        r"^https://docs\.example\.org/v[0-9]+/api/[A-Za-z]+-[A-Za-z]+\.html\?rev=[0-9]+$"
    );
}
