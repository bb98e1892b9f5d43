//! The tests of `page` (a sibling file: they outgrew the module).
use super::*;

fn page(html: &str) -> Page {
    Page::from_html(html, "http://example.com/dir/page.html?x=1").unwrap()
}

#[test]
fn the_declared_language_is_the_html_elements() {
    let lang = |html: &str| page(html).lang;
    assert_eq!(lang("<!DOCTYPE html><html lang=\"pt-BR\"><p>x"), "pt-br");
    assert_eq!(lang("<html xml:lang=\"fr\"><p>x"), "fr");
    assert_eq!(lang("<html lang=\"de\" xml:lang=\"fr\"><p>x"), "de");
    // A second `<html>` tag adds the attribute the first lacked, as browsers do.
    assert_eq!(lang("<html><body><html lang=ja><p>x"), "ja");
    // Not the language of some element inside, nor a malformed tag.
    assert_eq!(lang("<html><body lang=fr><p lang=it>x"), "");
    assert_eq!(lang("<html lang=\"{{lang}}\"><p>x"), "");
    assert_eq!(lang("<p>no html tag"), "");
}

/// Without `<html lang>`, HTML's pragma-set default language, then the response's
/// `Content-Language`, each when it names one language.
#[test]
fn a_page_without_html_lang_takes_its_meta_then_its_headers_language() {
    let meta = |content: &str| {
        format!(
            "<html><head><meta http-equiv=\"Content-Language\" content=\"{content}\"></head><p>x"
        )
    };
    assert_eq!(page(&meta(" FR ")).lang, "fr");
    assert_eq!(page(&meta("de, en")).lang, "");
    assert_eq!(page(&meta("en-GB fr")).lang, "en-gb");
    assert_eq!(
        page("<html lang=it><head><meta http-equiv=content-language content=fr>").lang,
        "it"
    );
    // Inside the body it is no pragma.
    assert_eq!(
        page("<html><body><meta http-equiv=content-language content=fr><p>x").lang,
        ""
    );
    let mut p = page("<p>x");
    p.header_language(Some("de, en"));
    assert_eq!(p.lang, "");
    p.header_language(Some("pt_BR"));
    assert_eq!(p.lang, "pt-br");
    p.header_language(Some("fr"));
    assert_eq!(p.lang, "pt-br", "the page's own first");
    let mut q = page(&meta("ja"));
    q.header_language(Some("fr"));
    assert_eq!(q.lang, "ja");
}

#[test]
fn the_canonical_url_is_the_heads_first_link_rel_canonical() {
    let canonical = |html: &str| page(html).canonical;
    assert_eq!(
        canonical("<head><link rel=\"Canonical\" href=\"/p/1#top\"><link rel=canonical href=/p/2>"),
        Some("http://example.com/p/1".to_string()),
        "resolved, fragment dropped, the first"
    );
    assert_eq!(
        canonical("<head><link rel=\"alternate canonical\" href=\"p2.html\">"),
        Some("http://example.com/dir/p2.html".to_string()),
        "one of several rel tokens"
    );
    assert_eq!(
        canonical("<head><base href=\"/root/\"><link rel=canonical href=\"x.html\">"),
        Some("http://example.com/root/x.html".to_string()),
        "against the base"
    );
    // After the base and the language, still found (one walk collects all three).
    let p = page(
        "<head><meta http-equiv=content-language content=fr><base href=\"/b/\">\
         <link rel=stylesheet href=s.css><link rel=canonical href=\"https://mirror.org/c\">",
    );
    assert_eq!(p.canonical.as_deref(), Some("https://mirror.org/c"));
    assert_eq!(p.lang, "fr");
    assert_eq!(p.base, "http://example.com/b/");
    assert_eq!(canonical("<head><link rel=canonical>"), None, "no href");
    assert_eq!(
        canonical("<head><link rel=canonical href=\"mailto:a@b\">"),
        None
    );
    assert_eq!(canonical("<link rel=stylesheet href=s.css><p>x"), None);
    // In the body it declares nothing (search engines ignore it there too).
    assert_eq!(canonical("<body><p>x<link rel=canonical href=/p/1>"), None);
    // Not a link to follow.
    assert!(
        page("<head><link rel=canonical href=/p/1>")
            .links
            .is_empty()
    );
}

#[test]
fn the_main_heading_is_the_first_h1_else_a_title_classed_element() {
    let h = |body: &str| page(&format!("<title>Site</title><body>{body}</body>")).heading;
    assert_eq!(
        h(
            "<nav><div class=page-title>Menu</div></nav><h1>json \u{2014} <code>JSON</code>\n  encoder<a>\u{b6}</a></h1><h1>Second</h1>"
        ),
        "json \u{2014} JSON encoder \u{b6}"
    );
    // Doxygen: no h1; `div.title` holds the kind and, nested, the class's group.
    assert_eq!(
        h(
            "<div class=headertitle><div class=title>sf::Utf&lt; N &gt; Class Template Reference\
           <div class=ingroups><a href=group__system.html>System module</a></div></div></div>"
        ),
        "sf::Utf< N > Class Template Reference System module"
    );
    assert_eq!(h("<p class='entry_Heading x'>Post</p>"), "Post");
    // DocBook reference pages (PostgreSQL, BoostBook): no h1; the page's name comes before
    // the titled sections.
    assert_eq!(
        h(
            "<div class=refnamediv><h2><span class=refentrytitle>Class template vector</span></h2></div>\
           <div class=refsynopsisdiv><h2 class=refsynopsisdiv-title>Synopsis</h2></div>"
        ),
        "Class template vector"
    );
    for (class, titled) in [
        ("Title", true),
        ("page-TITLE", true),
        ("a x_heading", true),
        ("headertitle", false),
        ("subtitle", false),
        ("itle", false),
        ("é-title", true),
        ("éle", false),
        ("refentrytitle", true),
        ("refentrytitles", false),
    ] {
        assert_eq!(names_a_title(class), titled, "{class}");
    }
    for none in [
        "<div class=headertitle>a</div><div class=subtitle>b</div>",
        "<p>text</p>",
        "<h1><script>x()</script></h1>",
    ] {
        assert_eq!(h(none), "", "{none}");
    }
    // An empty h1 gives way to a titled element.
    assert_eq!(h("<h1></h1><div class=title>T</div>"), "T");
    // Bounded, cut on a character boundary.
    let long = h(&format!("<h1>{}</h1>", "\u{e9}".repeat(400)));
    assert!(
        long.len() <= MAX_HEADING && long.chars().all(|c| c == '\u{e9}'),
        "{long}"
    );
    assert!(long.len() >= MAX_HEADING - 1);
}

#[test]
fn push_collapsed_joins_split_whitespace_words() {
    let oracle = |out: &str, s: &str| {
        let mut out = out.to_string();
        for w in s.split_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            out.push_str(w);
        }
        out
    };
    let parts = [
        "", " ", "  ", "a", "bc", "é", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{85}", "\u{a0}",
        "\u{1680}", "\u{2003}", "\u{2028}", "\u{202f}", "\u{205f}", "\u{3000}", "\u{2013}",
        "\u{e2}", "€", "北", "\u{180e}", "\u{200b}",
    ];
    for prefix in ["", "x", "x "] {
        for a in parts {
            for b in parts {
                for c in parts {
                    let s = format!("{a}{b}{c}{a}");
                    let mut out = prefix.to_string();
                    push_collapsed(&mut out, &s);
                    assert_eq!(out, oracle(prefix, &s), "{prefix:?} + {s:?}");
                }
            }
        }
    }
}

#[test]
fn fragment_links_resolve_like_join() {
    for base in [
        "http://example.com/dir/page.html?x=1#top",
        "https://e.com",
        "http://[::1]:8080/a/b/?q#",
        "http://e.com/a%20b/c?d=%C3%A9",
        "file:///usr/share/doc/x.html",
        "http://user:pw@e.com:80/",
    ] {
        let url = Url::parse(base).unwrap();
        for href in ["#", "#x", "  #a b ", "#é%20", "#\t#"] {
            let w = Walker {
                nodes: &[],
                same_document: std::cell::OnceCell::new(),
                form_owners: FxHashMap::default(),
                url: url.clone(),
                encoding: String::new(),
                max_depth: 1,
            };
            let slow = url.join(href.trim()).ok().and_then(http_without_fragment);
            assert_eq!(w.resolve(&url, href), slow, "{base} + {href:?}");
        }
    }
}

#[test]
fn external_scripts_are_recorded_once_resolved_in_document_order() {
    let p = page(
        r#"<head><base href="/docs/"><script src="menudata.js"></script>
        <script src="/static/app.js#v2"></script><script>var x = "inline.html";</script>
        <script src="menudata.js"></script><script src="data:text/javascript,1"></script>
        </head><body><script src="https://cdn.example.org/lib.js"></script></body>"#,
    );
    assert_eq!(
        p.scripts,
        [
            "http://example.com/docs/menudata.js",
            "http://example.com/static/app.js",
            "https://cdn.example.org/lib.js"
        ]
    );
    let many: String = (0..MAX_SCRIPTS + 10)
        .map(|i| format!("<script src=s{i}.js></script>"))
        .collect();
    assert_eq!(page(&many).scripts.len(), MAX_SCRIPTS);
}

#[test]
fn links_resolve_against_base_and_drop_fragments() {
    let p = page(
        r#"<head><base href="/root/"></head><body>
        <a href="a.html#top">  First
           link </a>
        <a href="https://other.org/x" rel="external NoFollow"><img alt="Logo"></a>
        <a href="mailto:x@y.z">mail</a><a href="javascript:void(0)">js</a><a>no href</a>
        <map><area href="b.html" alt="Area B"></map>"#,
    );
    let urls: Vec<_> = p.links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "http://example.com/root/a.html",
            "https://other.org/x",
            "http://example.com/root/b.html"
        ]
    );
    assert_eq!(p.links[0].text, "First link");
    assert!(!p.links[0].nofollow);
    assert_eq!(p.links[1].text, "Logo");
    assert!(p.links[1].nofollow);
    assert_eq!(p.links[2].text, "Area B");
    assert_eq!(p.tree.name(p.links[0].node), "a");
    assert_eq!(p.base, "http://example.com/root/");
    assert_eq!(p.same_site_links().count(), 2);
}

#[test]
fn a_refresh_to_another_url_is_a_link() {
    // R's help aliases: a page whose only content is a redirect.
    let p = page(
        "<head><meta http-equiv='refresh' content='0; url=../html/Comparison.html'>\
         <title>HTTP redirect</title></head><body></body>",
    );
    let urls: Vec<_> = p.links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(urls, ["http://example.com/html/Comparison.html"]);
    assert_eq!(p.tree.name(p.links[0].node), "meta");
    for (content, url) in [
        ("0;URL='moved.html'", Some("moved.html")),
        ("5, url = \"a b.html\" ", Some("a b.html")),
        ("2.5;x.html", Some("x.html")),
        ("0; URL=https://other.org/", Some("https://other.org/")),
        // The page itself, reloaded; not a refresh at all.
        ("30", None),
        ("0; url=", None),
        ("soon; url=x.html", None),
        ("", None),
    ] {
        assert_eq!(refresh_url(content), url, "{content:?}");
    }
    // Other http-equiv directives are not links.
    let q = page("<head><meta http-equiv=content-type content='0; url=x.html'></head>");
    assert!(q.links.is_empty());
}

#[test]
fn labels_per_design_comments_and_script_text_dropped() {
    let p = page(
        "<!DOCTYPE html><html><head><title> A  page </title><style>p{}</style>\
         <script>var x = '<p>';</script></head><body><!-- c --><p>Hi <b>there</b></p>\n \
         <noscript>enable js</noscript><SVG><foreignObject/></SVG></body></html>",
    );
    assert_eq!(
        p.tree.outline(),
        "html\n  head\n    title\n      #text\n    style\n    script\n  body\n    p\n      #text\n      b\n        #text\n    noscript\n    svg\n      foreignobject\n"
    );
    assert_eq!(p.title, "A page");
    assert_eq!(p.terms().to_vec(), ["hi"]);
}

#[test]
fn meta_robots_images_prices_and_text_counts() {
    let p = page(
        "<meta name=ROBOTS content='NoIndex, follow'><body><img src=a><img src=b>\
         <p>Apartamento R$ 450.000</p><a href=x>Ver fotos</a></body>",
    );
    assert_eq!(
        p.robots,
        MetaRobots {
            noindex: true,
            nofollow: false
        }
    );
    assert_eq!(p.image_count, 2);
    assert_eq!(p.price_count(), 1);
    assert_eq!(p.terms().to_vec(), ["apartamento", "ver", "fotos"]);
    assert_eq!(p.text_chars, "Apartamento R$ 450.000 Ver fotos".len());
    assert!(p.link_text_chars >= "Ver fotos".len());
}

#[test]
fn forms_controls_owners_and_labels() {
    let p = page(
        r#"<form id=s action="/busca" method=GET>
             <label for=q>Search for</label><input id=q name=q>
             Cidade <select name=city><option value=sp selected>São Paulo<option>Rio</select>
             <label>Only new <input type=checkbox name=new value=1 checked></label>
             <input type=radio name=t value=a><input type=radio name=t value=b>
             <textarea name=notes>hello</textarea>
             <button>Go</button>
           </form>
           <form action="javascript:go()" method=post id=login>
             <input type=password name=pw><input type=email name=mail placeholder="E-mail">
           </form>
           <input name=outside form=s>
           <table><form id=t action=t.cgi><tr><td><input name=intable></td></tr></form></table>"#,
    );
    assert_eq!(p.forms.len(), 3);
    let s = &p.forms[0];
    assert_eq!(
        (s.action.as_str(), s.method.as_str()),
        ("http://example.com/busca", "get")
    );
    assert!(!s.scripted);
    let names: Vec<_> = s
        .controls
        .iter()
        .map(|&i| p.controls[i].name.as_str())
        .collect();
    assert_eq!(
        names,
        ["q", "city", "new", "t", "t", "notes", "", "outside"]
    );
    let c = |name: &str| p.controls.iter().find(|c| c.name == name).unwrap();
    assert_eq!(c("q").label, "Search for");
    assert_eq!(c("q").kind, ControlKind::Text);
    assert_eq!(c("city").kind, ControlKind::Select);
    assert_eq!(c("city").options, ["sp", "Rio"]);
    assert_eq!(c("city").value, "sp");
    assert_eq!(c("city").label, "Cidade");
    assert_eq!(c("new").label, "Only new");
    assert!(c("new").checked);
    assert_eq!(c("notes").value, "hello");
    assert_eq!(p.controls[s.controls[6]].kind, ControlKind::Submit);
    assert_eq!(p.controls[s.controls[6]].value, "Go");
    let login = &p.forms[1];
    assert!(login.scripted);
    assert_eq!(login.method, "post");
    assert_eq!(c("pw").kind, ControlKind::Password);
    assert_eq!(c("mail").kind, ControlKind::Email);
    assert_eq!(c("mail").label, "E-mail");
    // A form inside a table is closed by the parser but still owns its controls
    // (html5ever's associate_with_form).
    assert_eq!(c("intable").form, Some(2));
    assert_eq!(p.forms[2].action, "http://example.com/dir/t.cgi");
}

#[test]
fn deep_document_does_not_crash_and_depth_is_capped() {
    let depth = 100_000;
    let html = format!(
        "{}deep<p>text{}",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    let p = page(&html);
    let max = ParseOptions::default().max_depth;
    assert!(p.tree.height() <= max + 1, "height {}", p.tree.height());
    // Nesting past 4 × max_depth is dropped before tree building (DepthGuard); the content
    // is kept.
    assert_eq!(p.tree.len(), 4 * max as usize + 6); // html head body, divs, #text p #text
    assert_eq!(p.terms().to_vec(), ["deep", "text"]);
}

#[test]
fn huge_page_is_a_clear_error_or_parses_under_a_raised_cap() {
    let row = "<div class=item><a href='/x'>item</a> <span>R$ 10</span></div>\n";
    let html = row.repeat(20_000_000 / row.len() + 1);
    assert!(html.len() > 20_000_000);
    let err = Page::from_html(&html, "http://example.com/").unwrap_err();
    assert!(err.is_too_large());
    assert!(err.to_string().contains("max_bytes"), "{err}");
    let opts = ParseOptions {
        max_bytes: 32 << 20,
        max_nodes: 4_000_000,
        ..ParseOptions::default()
    };
    let p = Page::parse(html.as_bytes(), "http://example.com/", None, &opts).unwrap();
    assert!(p.links.len() > 250_000);
    let tight = ParseOptions {
        max_nodes: 1000,
        ..ParseOptions::default()
    };
    let err = Page::from_html_with(&row.repeat(1000), "http://example.com/", &tight).unwrap_err();
    assert!(err.to_string().contains("max_nodes"), "{err}");
}

#[test]
fn bad_url_is_an_error_and_charset_comes_from_the_header() {
    assert!(Page::from_html("<p>x", "not a url").is_err());
    let p = Page::parse(
        b"<p>A\xe7\xe3o",
        "http://e.com/",
        Some("text/html; charset=iso-8859-1"),
        &ParseOptions::default(),
    )
    .unwrap();
    assert_eq!(p.terms().to_vec(), ["ação"]);
    assert_eq!(p.encoding, "windows-1252");
}

#[test]
fn id_kind_is_the_prefix_of_an_id_naming_the_page() {
    let slug = |u: &str| page_slug(&Url::parse(u).unwrap());
    assert_eq!(slug("http://e.com/library/json.html"), "json");
    assert_eq!(slug("http://e.com/post/42/"), "42");
    assert_eq!(slug("http://e.com/"), "");
    assert_eq!(id_kind("module-json", "json").as_deref(), Some("module-"));
    assert_eq!(id_kind("Module_JSON", "json").as_deref(), Some("module_"));
    assert_eq!(id_kind("post-42", "42").as_deref(), Some("post-"));
    assert_eq!(
        id_kind("module-email.charset", "email.charset").as_deref(),
        Some("module-")
    );
    // The id is the page's name, does not end with it, or the prefix is not a kind word.
    assert_eq!(id_kind("SQL-VACUUM", "sql-vacuum"), None);
    assert_eq!(id_kind("runners", "asyncio-runner"), None);
    assert_eq!(id_kind("xjson", "json"), None);
    assert_eq!(id_kind("id-1-json", "json"), None);
    assert_eq!(id_kind("--json", "json"), None);
    assert_eq!(id_kind("a-b", "b"), None);
}

#[test]
fn id_prefixes_are_kind_declarations_not_heading_anchors() {
    assert_eq!(slug_form("Module Objects¶"), "module-objects");
    assert_eq!(
        slug_form("2to3 — Automated Python 2 to 3"),
        "to3-automated-python-2-to-3"
    );
    assert_eq!(slug_form("module.__path__"), "module-path");
    let p = Page::from_html(
        "<body><section id='module-xml.parsers.expat'><h1>xml.parsers.expat — Fast XML</h1>\
         <section id='module-objects'><h2>Module Objects<a>¶</a></h2></section>\
         <span id='to3-automated-python'></span><h2>2to3 — Automated Python</h2>\
         <div id='post_42'></div><div id='9lives-x'></div><p id='plain'></p></section></body>",
        "http://e.com/library/pyexpat.html",
    )
    .unwrap();
    // module-objects and to3-automated-python are the anchors of headings; 9lives- has a
    // digit; plain has no separator.
    assert_eq!(
        p.tree.id_prefixes(),
        ["module-", "module-xml.", "module-xml.parsers.", "post_"]
    );
    // No strict kind: no id ends with the page's own name.
    assert!(p.tree.kind_labels().is_empty());
    // Kept through serde and validation.
    let json = serde_json::to_string(&p.tree).unwrap();
    let back: Tree = serde_json::from_str(&json).unwrap();
    assert_eq!(
        back.validated().unwrap().id_prefixes(),
        p.tree.id_prefixes()
    );
}

#[test]
fn a_small_element_named_after_the_page_gives_no_kind() {
    // javadoc's package pages are all `package-summary.html`; the optional "related
    // packages" section's id ends with that name but is not what the page is.
    let rows: String = (0..40)
        .map(|i| format!("<tr><td><a href='C{i}.html'>C{i}</a></td><td>d</td></tr>"))
        .collect();
    let html = format!(
        "<body><main><table>{rows}</table>\
         <section id=related-package-summary><p>x</p></section></main></body>"
    );
    let url = "http://e.com/java/util/package-summary.html";
    assert!(
        Page::from_html(&html, url)
            .unwrap()
            .tree
            .kind_labels()
            .is_empty()
    );
    // The same id on the page's main element is a kind.
    let main =
        format!("<body><section id=related-package-summary><table>{rows}</table></section></body>");
    assert!(
        !Page::from_html(&main, url)
            .unwrap()
            .tree
            .kind_labels()
            .is_empty()
    );
}

#[test]
fn an_empty_anchor_gives_its_kind_to_its_parent_unless_the_parent_has_one() {
    let names = |p: &Page| -> Vec<String> {
        let t = &p.tree;
        let mut v: Vec<String> = t
            .kind_labels()
            .iter()
            .zip(t.class_labels())
            .filter(|(a, b)| a != b)
            .map(|(&a, _)| t.label_name(a).to_string())
            .collect();
        v.sort();
        v
    };
    // Sphinx's automodule: the module id on an empty span inside the section, whose own id
    // is its heading's anchor.
    let html = "<body><nav>n</nav><section id=celery-apps-multi><h1>celery.apps.multi</h1>\
        <span class=target id=module-celery.apps.multi></span><p>Start workers.</p>\
        <dl><dt>Cluster</dt><dd>A cluster.</dd></dl></section></body>";
    let p = Page::from_html(html, "http://e.com/reference/celery.apps.multi.html").unwrap();
    assert_eq!(names(&p), ["section#module-"]);
    // The similarity sees the kind; the classifier's own-id reading does not.
    assert!(!p.declares_kind);
    // A section with a kind of its own keeps it; a label target inside names it by chance.
    let html = "<body><section id=module-werkzeug.exceptions><span id=http-exceptions></span>\
        <h1>HTTP Exceptions</h1><p>a</p><p>b</p><p>c</p></section></body>";
    let p = Page::from_html(html, "http://e.com/exceptions.html").unwrap();
    assert_eq!(names(&p), ["section#module-werkzeug."]);
    assert!(p.declares_kind);
    // A non-empty small element still gives no kind, to itself or its parent.
    let html = "<body><section><span id=module-json>json</span><p>a</p><p>b</p><p>c</p>\
        <p>d</p><p>e</p></section></body>";
    let p = Page::from_html(html, "http://e.com/json.html").unwrap();
    assert!(names(&p).is_empty(), "{:?}", names(&p));
}

#[test]
fn kind_labels_only_when_an_id_names_the_page() {
    let html = "<body><section id=module-json class=s><p>x</p></section><div id=other></div>";
    let p = Page::from_html(html, "http://e.com/json.html").unwrap();
    let kinds = p.tree.kind_labels();
    assert_eq!(kinds.len(), p.tree.len());
    let names: Vec<&str> = kinds.iter().map(|&l| p.tree.label_name(l)).collect();
    assert!(names.contains(&"section.s#module-"), "{names:?}");
    assert_eq!(
        kinds
            .iter()
            .zip(p.tree.class_labels())
            .filter(|(a, b)| a != b)
            .count(),
        1
    );
    let q = Page::from_html(html, "http://e.com/other.html").unwrap();
    assert!(q.tree.kind_labels().is_empty());
    // Kind labels survive serialization and validation.
    let json = serde_json::to_string(&p.tree).unwrap();
    let back: Tree = serde_json::from_str(&json).unwrap();
    assert_eq!(back.validated().unwrap().kind_labels(), kinds);
}

#[test]
fn a_page_declares_its_types_from_open_graph_json_ld_microdata_and_rel() {
    let html = r#"<html><head><meta property="og:type" content="zalando_sharing:Product">
        <link rel="next" href="?page=3"><link rel=prev href="?page=1">
        <script type="application/ld+json">{"@context":"https://schema.org",
          "@graph":[{"@type":"BreadcrumbList"},{"@type" : ["Product", "http://schema.org/Thing"],
          "name":"x"}]}</script>
        <script type="application/ld+json">{"@type": "Product", "offers": {"@type": </script>
        </head><body><div itemscope itemtype="https://schema.org/Offer http://schema.org/bad%20type">
        <p>Short.</p><p>A <a href=x>longer</a> paragraph.</p><script>var p = "<p>";</script>
        </div></body></html>"#;
    let p = Page::from_html(html, "http://shop.test/p/1").unwrap();
    assert_eq!(
        p.declares,
        [
            "og:product",
            "rel:next",
            "rel:prev",
            "schema:breadcrumblist",
            "schema:offer",
            "schema:product",
            "schema:thing"
        ]
    );
    assert_eq!(
        p.paragraphs,
        [6, 20],
        "bytes of visible text, a space between text nodes"
    );
    let plain = Page::from_html("<p>one</p>", "http://shop.test/").unwrap();
    assert!(plain.declares.is_empty());
}

#[test]
fn declarations_are_bounded_on_a_hostile_page() {
    let mut html = String::from("<script type=application/ld+json>[");
    for i in 0..10_000 {
        html.push_str(&format!("{{\"@type\":\"T{i}\"}},"));
    }
    html.push_str("]</script>");
    for _ in 0..10_000 {
        html.push_str("<p>x</p>");
    }
    let p = Page::from_html(&html, "http://e.test/").unwrap();
    assert_eq!(p.declares.len(), MAX_DECLARES);
    assert_eq!(p.paragraphs.len(), MAX_PARAGRAPHS);
}
