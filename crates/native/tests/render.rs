//! The renderer on the quotes application's script-drawn variants, in Debian's Chromium.
use std::sync::Arc;
use std::time::{Duration, Instant};

use exemplar_native::cookies::CookieJar;
use exemplar_native::render::{RenderConfig, Renderer};
use exemplar_testkit::live_apps;

fn quotes(html: &str) -> usize {
    html.matches("class=\"quote\"").count()
}

#[test]
fn script_drawn_delayed_and_scrolling_pages_are_drawn_whole() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let renderer = Renderer::new(RenderConfig::default()).expect("chromium");
    let js = renderer
        .render(&format!("{}/js/", app.base))
        .expect("renders /js/");
    assert_eq!(quotes(&js.html), 10, "{}", js.html);
    // The page as a visitor sees it: its template around the quotes.
    assert!(js.html.contains("header-box"), "{}", js.html);
    // Drawn after a 10 s timer: virtual time fires it at once.
    let t = Instant::now();
    let delayed = renderer
        .render(&format!("{}/js-delayed/page/2/", app.base))
        .expect("renders /js-delayed/");
    assert_eq!(quotes(&delayed.html), 10);
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    // Ten pages of /api/quotes, loaded as the page is scrolled (a scroll may load two: the
    // browser's scroll event and the one sent).
    let scroll = renderer
        .render(&format!("{}/scroll", app.base))
        .expect("renders /scroll");
    assert_eq!(quotes(&scroll.html), 100);
    assert!((5..=9).contains(&scroll.scrolls), "{}", scroll.scrolls);
    assert_eq!(renderer.rendered(), 3);
    assert_eq!(renderer.failed(), 0);
}

#[test]
fn the_browser_carries_the_users_cookies() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let path = std::env::temp_dir().join(format!("exemplar-render-cookies-{}", std::process::id()));
    live_apps::log_in(&app.base, &path).expect("logged in");
    let text = std::fs::read_to_string(&path).expect("cookie file");
    let _ = std::fs::remove_file(&path);
    let jar = CookieJar::from_netscape(&text).expect("Netscape format");
    let home = format!("{}/", app.base);
    let visitor = Renderer::new(RenderConfig::default()).expect("chromium");
    assert!(
        visitor
            .render(&home)
            .expect("renders")
            .html
            .contains(">Login<")
    );
    let user = Renderer::new(RenderConfig {
        cookies: Some(Arc::new(jar)),
        ..RenderConfig::default()
    })
    .expect("chromium");
    let page = user.render(&home).expect("renders");
    assert!(page.html.contains(">Logout<"), "{}", page.html);
}

#[test]
fn a_page_that_does_not_answer_is_an_error_and_the_next_render_works() {
    let app = live_apps::start("quotes-toscrape").expect("the live quotes site");
    let renderer = Renderer::new(RenderConfig::default()).expect("chromium");
    // Nothing listens on port 9 (discard) of this machine.
    let err = renderer
        .render("http://127.0.0.1:9/")
        .expect_err("no server");
    assert!(err.contains("http://127.0.0.1:9/"), "{err}");
    assert_eq!(renderer.failed(), 1);
    let page = renderer
        .render(&format!("{}/js/", app.base))
        .expect("the browser is started again");
    assert_eq!(quotes(&page.html), 10);
}

#[test]
fn a_missing_browser_is_named() {
    let err = Renderer::new(RenderConfig {
        chromium: "/nonexistent/chromium".into(),
        ..RenderConfig::default()
    })
    .expect_err("no browser");
    assert!(err.contains("/nonexistent/chromium"), "{err}");
}

#[test]
fn a_load_more_button_is_pressed_until_the_list_is_whole_and_navigation_never() {
    let dir = exemplar_testkit::root().join("tests/fixtures/load-more");
    let server = exemplar_native::serve::Server::start(0, exemplar_native::serve::static_dir(dir))
        .expect("serve");
    let renderer = Renderer::new(RenderConfig::default()).expect("chromium");
    let page = renderer
        .render(&format!("{}/lamp-1.html", server.url()))
        .expect("renders");
    // Four files of five reviews: the first loaded by the page, three by the button.
    assert_eq!(
        page.html.matches("class=\"review\"").count(),
        20,
        "{}",
        page.html
    );
    assert!(
        !page.html.contains("id=\"more\""),
        "the button went with the last file"
    );
    // Still the list: neither the archive's "Show more" link nor the form's button was pressed.
    assert!(page.url.ends_with("/lamp-1.html"), "{}", page.url);
    assert!(page.html.contains("<title>Reviews of lamp 1</title>"));
}
