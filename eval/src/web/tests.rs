//! The local web over the documentation packages the test machine installs (`./build.sh setup`),
//! and over a small tree of files made here for the cross-package links no installed pair shows.
use std::path::Path;
use std::sync::Arc;

use exemplar_native::serve::Request;

use super::backlinks::{Backlinks, PER_CALL};
use super::search::Omega;
use super::*;

/// The sites of these names from the repository's list, read from `/` only.
fn installed(names: &[&str]) -> LocalWeb {
    let all = sites::load(Path::new(sites::DEFAULT_SITES)).unwrap();
    let chosen: Vec<WebSite> = all
        .into_iter()
        .filter(|s| names.contains(&s.name.as_str()))
        .collect();
    assert_eq!(chosen.len(), names.len());
    let empty = std::env::temp_dir().join(format!("exemplar-web-empty-{}", std::process::id()));
    let web = LocalWeb::new(chosen, UnionFs::new(empty));
    for s in 0..web.sites.len() {
        assert!(
            web.available(s),
            "{} is not installed: ./build.sh setup",
            web.sites[s].name
        );
    }
    web
}

fn get(web: &LocalWeb, host: &str, path: &str) -> (u16, String) {
    let req = Request {
        method: "GET".into(),
        path: path.into(),
        headers: vec![("Host".into(), host.into())],
        body: Vec::new(),
    };
    let r = web.respond(&req);
    (r.status, String::from_utf8_lossy(&r.body).into_owned())
}

#[test]
fn sites_are_served_by_host_and_prefix() {
    let web = installed(&["python311", "sphinx", "commons-lang3", "commons-io"]);
    let (code, body) = get(&web, "docs.python.org", "/3.11/library/json.html");
    assert_eq!(code, 200);
    assert!(body.contains("id=\"module-json\""));
    // The alias serves the same page; a prefix without its slash is redirected.
    assert_eq!(
        get(&web, "docs.python.org:80", "/3/library/json.html").1,
        body
    );
    assert_eq!(get(&web, "docs.python.org", "/3.11").0, 301);
    assert_eq!(get(&web, "docs.python.org", "/3.11/library").0, 301);
    assert_eq!(get(&web, "docs.python.org", "/3.11/").0, 200);
    assert_eq!(
        get(
            &web,
            "commons.apache.org",
            "/proper/commons-lang/apidocs/org/apache/commons/lang3/StringUtils.html"
        )
        .0,
        200
    );
    assert_eq!(
        get(
            &web,
            "javadoc.io",
            "/doc/commons-io/commons-io/2.11.0/index.html"
        )
        .0,
        200
    );
    assert_eq!(
        get(
            &web,
            "javadoc.io",
            "/doc/commons-io/commons-io/2.11.0/org/apache/commons/lang3/StringUtils.html"
        )
        .0,
        404
    );
    assert_eq!(get(&web, "commons.apache.org", "/proper/").0, 404);
    assert_eq!(
        get(&web, "docs.python.org", "/3.11/../../etc/passwd").0,
        403
    );
    assert_eq!(get(&web, "elsewhere.example", "/").0, 421);
    let post = Request {
        method: "POST".into(),
        path: "/3.11/".into(),
        headers: vec![("Host".into(), "docs.python.org".into())],
        body: Vec::new(),
    };
    assert_eq!(web.respond(&post).status, 405);
}

#[test]
fn links_to_served_sites_lose_their_tls() {
    let web = installed(&["python311", "sphinx"]);
    let (code, body) = get(
        &web,
        "www.sphinx-doc.org",
        "/en/master/development/tutorials/helloworld.html",
    );
    assert_eq!(code, 200);
    assert!(
        !body.contains("https://docs.python.org/3/"),
        "an https link to a served site is left"
    );
    assert!(body.contains("\"http://docs.python.org/3/using/cmdline.html#envvar-PYTHONPATH\""));
    // A site not served keeps its https link.
    assert!(body.contains("https://github.com/") || !body.contains("github.com/"));
}

#[test]
fn backlinks_come_from_other_sites_fifteen_a_call() {
    let web = installed(&["python311", "sphinx", "werkzeug"]);
    let b = Arc::new(Backlinks::build(&web, |_, _, _| {}));
    let python = b.of("http://docs.python.org/3.11/");
    assert!(
        python.len() > PER_CALL,
        "{} pages link python311",
        python.len()
    );
    assert!(
        python
            .iter()
            .all(|u| !u.starts_with("http://docs.python.org/"))
    );
    // Both linking sites show in the first call.
    let first: Vec<&str> = python.iter().take(PER_CALL).copied().collect();
    assert!(
        first
            .iter()
            .any(|u| u.starts_with("http://www.sphinx-doc.org/"))
    );
    assert!(
        first
            .iter()
            .any(|u| u.starts_with("http://werkzeug.palletsprojects.com/"))
    );
    // A page's own backlinks: a fragment and `index.html` are not part of it.
    let cmdline = b.of("https://docs.python.org/3/using/cmdline.html#x");
    assert!(
        cmdline
            .iter()
            .any(|u| u.contains("tutorials/helloworld.html")),
        "{cmdline:?}"
    );
    assert!(
        b.of("http://docs.python.org/3.11/no-such-page.html")
            .is_empty()
    );

    let mut web = web;
    web.add_service("backlinks.web.test", Arc::clone(&b).service());
    let (code, page) = get(
        &web,
        "backlinks.web.test",
        "/links?url=http%3A%2F%2Fdocs.python.org%2F3.11%2F",
    );
    assert_eq!(code, 200);
    assert_eq!(page.matches("<li>").count(), PER_CALL);
    assert!(page.contains(&format!("start={PER_CALL}\">Next")));
    let (_, last) = get(
        &web,
        "backlinks.web.test",
        &format!(
            "/links?url=http://docs.python.org/3.11/&start={}",
            python.len() - 1
        ),
    );
    assert_eq!(last.matches("<li>").count(), 1);
    assert!(!last.contains("Next"));
    assert_eq!(get(&web, "backlinks.web.test", "/links").0, 400);
}

/// Two packages as Haddock lays them out: a link climbing out of one root into another
/// package's directory, which is a link to where the files really are.
#[test]
fn relative_links_across_packages_reach_the_other_site() {
    let top = std::env::temp_dir().join(format!("exemplar-web-tree-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    let doc = top.join("usr/share/doc");
    std::fs::create_dir_all(doc.join("libghc-aeson-doc/html")).unwrap();
    std::fs::create_dir_all(doc.join("ghc-doc/html/libraries/text-1.2")).unwrap();
    std::os::unix::fs::symlink(
        "ghc-doc/html/libraries/text-1.2",
        doc.join("libghc-text-doc"),
    )
    .unwrap();
    std::fs::write(
        doc.join("libghc-aeson-doc/html/Data-Aeson.html"),
        "<a href=\"../../libghc-text-doc/Data-Text.html#t:Text\">Text</a> <a href=\"Data-Aeson-Types.html\">t</a> \
         <a href=\"file:///usr/share/doc/ghc-doc/html/libraries/text-1.2/index.html\">i</a> <a href=\"../../gone/x.html\">g</a>",
    )
    .unwrap();
    std::fs::write(
        doc.join("ghc-doc/html/libraries/text-1.2/Data-Text.html"),
        "<p>text",
    )
    .unwrap();
    std::fs::write(
        doc.join("ghc-doc/html/libraries/text-1.2/index.html"),
        "<p>text index",
    )
    .unwrap();
    std::fs::write(
        doc.join("libghc-aeson-doc/html/index.html"),
        "<p>aeson index",
    )
    .unwrap();
    let list = |name: &str, root: &str, prefix: &str| {
        format!(
            "[[site]]\nname = \"{name}\"\npackage = \"p\"\nroot = \"{root}\"\nentry = \"index.html\"\nhost = \"hackage.haskell.org\"\n\
             prefix = \"{prefix}\"\ngenerator = \"haddock\"\ndomain = \"haskell-module\"\nexample = \"e.html\"\n\
             target_regex = '^[A-Z].*\\.html$'\nentities = 1\npages = 1\nlinks_to = []\n"
        )
    };
    let text = list(
        "aeson",
        "/usr/share/doc/libghc-aeson-doc/html",
        "/package/aeson/docs/",
    ) + &list(
        "text",
        "/usr/share/doc/ghc-doc/html/libraries/text-1.2",
        "/package/text/docs/",
    );
    let web = LocalWeb::new(sites::parse(&text).unwrap(), UnionFs::new(&top));
    let (code, body) = get(
        &web,
        "hackage.haskell.org",
        "/package/aeson/docs/Data-Aeson.html",
    );
    assert_eq!(code, 200);
    assert!(
        body.contains("\"http://hackage.haskell.org/package/text/docs/Data-Text.html#t:Text\""),
        "{body}"
    );
    assert!(
        body.contains("\"http://hackage.haskell.org/package/text/docs/index.html\""),
        "{body}"
    );
    assert!(
        body.contains("href=\"Data-Aeson-Types.html\""),
        "a link inside the site is left"
    );
    assert!(
        body.contains("href=\"../../gone/x.html\""),
        "a link to nothing served is left"
    );
    assert_eq!(
        get(
            &web,
            "hackage.haskell.org",
            "/package/text/docs/Data-Text.html"
        )
        .1,
        "<p>text"
    );
    // One host, each site under its own prefix.
    assert_eq!(
        get(&web, "hackage.haskell.org", "/package/text/docs/").1,
        "<p>text index"
    );
    assert_eq!(
        get(&web, "hackage.haskell.org", "/package/aeson/docs/").1,
        "<p>aeson index"
    );
    assert_eq!(
        get(
            &web,
            "hackage.haskell.org",
            "/package/aeson/docs/Data-Text.html"
        )
        .0,
        404
    );
    assert_eq!(get(&web, "hackage.haskell.org", "/package/").0, 404);
    let b = Backlinks::build(&web, |_, _, _| {});
    assert_eq!(
        b.of("http://hackage.haskell.org/package/text/docs/"),
        ["http://hackage.haskell.org/package/aeson/docs/Data-Aeson.html"]
    );
    std::fs::remove_dir_all(&top).unwrap();
}

/// Omega over one site, asked through the local web by words and by a page.
#[test]
fn the_search_engine_answers_words_and_pages_alike() {
    let mut web = installed(&["commons-lang3"]);
    let dir = std::env::temp_dir().join(format!("exemplar-web-omega-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let omega = Omega::index(&web, &dir, |_| {}).unwrap();
    assert!(omega.documents > 200, "{} documents", omega.documents);
    web.add_service("search.web.test", omega.service());
    let (code, page) = get(&web, "search.web.test", "/?P=StringUtils+isBlank");
    assert_eq!(code, 200);
    let hit = "http://commons.apache.org/proper/commons-lang/apidocs/org/apache/commons/lang3/StringUtils.html";
    assert!(page.contains(hit), "{}", &page[..page.len().min(2000)]);
    let (code, like) = get(&web, "search.web.test", &format!("/?MORELIKE=U{hit}"));
    assert_eq!(code, 200);
    assert!(
        like.contains("commons/lang3/"),
        "{}",
        &like[..like.len().min(2000)]
    );
    // The same index is reused, not rebuilt.
    let again = Omega::index(&web, &dir, |s| panic!("indexed {s} again")).unwrap();
    assert_eq!(again.documents, omega.documents);
    std::fs::remove_dir_all(&dir).unwrap();
}
