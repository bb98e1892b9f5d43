//! A postback application (issue 63 part 4): a POST form with a view state and a select whose
//! options the answer fills once another is chosen (ASP.NET's pattern, the quotes
//! `search.aspx`). With an example that is one of its result pages, mapping steps through the
//! dependent select, learning makes the form the target level, and a crawl — resumed from a
//! snapshot midway — collects every result page and no step, with the hidden state the
//! application sent carried along.
use std::collections::{BTreeSet, HashMap};

use exemplar_core::crawler::{CrawlConfig, Crawler, Event};
use exemplar_core::fetch::{FetchRequest, FetchResponse, FetchResult, Politeness, Poll};
use exemplar_core::forms;
use exemplar_core::mapper::{ExamplePage, MapConfig, Mapper};
use exemplar_core::pattern;

const HOST: &str = "http://cars.test";

/// Makers and their models: the dependent select's options.
fn catalogue() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("Alba", vec!["Arrow", "Breeze", "Comet"]),
        ("Borea", vec!["Dune", "Ember"]),
        ("Cirra", vec!["Frost", "Gale", "Haze", "Isle"]),
        ("Delta", vec!["Jade"]),
        ("Etna", vec!["Kite", "Lynx"]),
    ]
}

fn pairs() -> BTreeSet<(String, String)> {
    catalogue()
        .into_iter()
        .flat_map(|(m, models)| {
            models
                .into_iter()
                .map(move |x| (m.to_string(), x.to_string()))
        })
        .collect()
}

fn options(values: &[&str], selected: &str) -> String {
    let mut out = String::from("<option>----------</option>");
    for v in values {
        let sel = if *v == selected { " selected" } else { "" };
        out.push_str(&format!("<option value='{v}'{sel}>{v}</option>"));
    }
    out
}

/// The application's one page: the form in its state, and the results when a model is chosen.
fn page(maker: &str, model: &str, state: &str) -> String {
    let makers: Vec<&str> = catalogue().iter().map(|(m, _)| *m).collect();
    let models = catalogue()
        .into_iter()
        .find(|(m, _)| *m == maker)
        .map(|(_, v)| v)
        .unwrap_or_default();
    let results = if model.is_empty() {
        String::new()
    } else {
        let specs: String = (1..=4)
            .map(|i| {
                format!(
                    "<li class=spec><b>{model} trim {i}</b>: {} horsepower, {} seats, built by {maker} \
                     in its {} plant, rated {} of ten by owners</li>",
                    90 + 7 * i + model.len(),
                    2 + i,
                    ["northern", "southern", "coastal", "inland"][i % 4],
                    5 + i
                )
            })
            .collect();
        format!(
            "<div class=results><h2>{maker} {model}</h2><p>Every trim of the {maker} {model}, \
             as the dealer lists it.</p><ul>{specs}</ul></div>"
        )
    };
    format!(
        "<html><head><title>Car finder</title></head><body><nav><a href='/'>Home</a>\
         <a href='/about'>About</a></nav><form method=post action='/filter' name=f>\
         <label for=maker>Maker</label><select name=maker id=maker onchange='__doPostBack()'>{}</select>\
         <label for=model>Model</label><select name=model id=model>{}</select>\
         <input type=hidden name=__STATE value='{state}'><input type=submit name=go value=Find>\
         </form>{results}<script>function __doPostBack(){{document.forms.f.submit()}}</script>\
         </body></html>",
        options(&makers, maker),
        options(&models, model)
    )
}

fn html(body: String) -> FetchResult {
    FetchResult::Response(FetchResponse {
        status: 200,
        final_url: String::new(),
        headers: vec![("content-type".into(), "text/html".into())],
        body: body.into_bytes(),
        truncated: false,
    })
}

fn status(code: u16) -> FetchResult {
    FetchResult::Response(FetchResponse {
        status: code,
        ..FetchResponse::default()
    })
}

/// The application, its view states starting with `session`. It refuses a state it did not
/// send (another session's, or one naming another maker), as ASP.NET refuses a forged or
/// expired one, so the state an answer sent must be what the next submission carries.
fn app(r: &FetchRequest, session: &str, posts: &mut Vec<HashMap<String, String>>) -> FetchResult {
    let Ok(u) = url::Url::parse(&r.url) else {
        return status(400);
    };
    match (u.path(), &r.post) {
        ("/" | "/about", None) => html(format!(
            "<html><head><title>Cars</title></head><body><a href='/search'>Find a car</a>\
             <a href='/about'>About</a><p>{}</p></body></html>",
            if u.path() == "/" {
                "Welcome"
            } else {
                "About us"
            }
        )),
        ("/search", None) => html(page("", "", session)),
        ("/filter", Some(body)) => {
            let form: HashMap<String, String> = url::form_urlencoded::parse(body.body.as_bytes())
                .into_owned()
                .collect();
            posts.push(form.clone());
            let get = |k: &str| form.get(k).cloned().unwrap_or_default();
            let (maker, model, state) = (get("maker"), get("model"), get("__STATE"));
            let Some((_, models)) = catalogue().into_iter().find(|(m, _)| *m == maker) else {
                return html(page("", "", session));
            };
            let stepped = format!("{session},{maker}");
            if state != session && state != stepped {
                return status(500);
            }
            if models.contains(&model.as_str()) {
                if state == session {
                    // A model chosen without the step that lists them: refused.
                    return status(500);
                }
                html(page(&maker, &model, &state))
            } else {
                html(page(&maker, "", &stepped))
            }
        }
        (_, Some(_)) => status(405),
        _ => status(404),
    }
}

fn example() -> ExamplePage {
    let body = "maker=Cirra&model=Gale&__STATE=s0%2CCirra&go=Find";
    ExamplePage {
        url: forms_key("/filter", body),
        body: page("Cirra", "Gale", "s0,Cirra").into_bytes(),
        content_type: Some("text/html".into()),
    }
}

fn forms_key(path: &str, body: &str) -> String {
    exemplar_core::fetch::post_key(&format!("{HOST}{path}"), body)
}

/// The (maker, model) a result's key submitted.
fn chosen(key: &str) -> (String, String) {
    let (_, body) = exemplar_core::fetch::split_post_key(key);
    let form: HashMap<String, String> =
        url::form_urlencoded::parse(body.unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let get = |k: &str| form.get(k).cloned().unwrap_or_default();
    (get("maker"), get("model"))
}

#[test]
fn placeholders_choose_nothing_and_a_filled_select_is_found() {
    assert!(forms::is_placeholder("----------") && forms::is_placeholder("--"));
    assert!(
        !forms::is_placeholder("") && !forms::is_placeholder("Any") && !forms::is_placeholder("2")
    );
    let spec = |html: &str| {
        let p = exemplar_html::Page::from_html(html, &format!("{HOST}/search")).expect("parses");
        forms::valid_forms(&p).remove(0)
    };
    let before = spec(&page("", "", "s0"));
    let step = spec(&page("Borea", "", "s0,Borea"));
    assert_eq!(forms::filled_selects(&before, &step), ["model"]);
    // The same form met again as it was is no step; nor is a maker chosen with no models.
    assert!(forms::filled_selects(&before, &before).is_empty());
    assert!(forms::filled_selects(&step, &step).is_empty());
    // Enumerating the first form sends each maker, never the placeholder.
    let mut e = forms::query::Enumeration::new(&before, 100);
    let mut makers = Vec::new();
    while let Some(v) = e.next_values() {
        makers.push(v[0].1.clone());
    }
    assert_eq!(makers, ["Alba", "Borea", "Cirra", "Delta", "Etna"]);
}

#[test]
fn a_postback_form_with_a_dependent_select_is_learned_and_crawled() {
    let mut posts = Vec::new();
    let mut m = Mapper::new(
        &format!("{HOST}/search"),
        example(),
        MapConfig {
            politeness: Politeness::unthrottled(1),
            ..MapConfig::default()
        },
    )
    .expect("mapper");
    let mut now = 0;
    loop {
        match m.poll(now) {
            Poll::Fetch(r) => {
                let res = app(&r, "s0", &mut posts);
                m.handle(r.id, res, now);
            }
            Poll::WaitUntil(t) => now = t,
            Poll::Busy => panic!("synchronous driver"),
            Poll::Done => break,
        }
    }
    let map = m.site_map();
    let form = &map.forms[0];
    assert_eq!(form.dependent, ["model"]);
    assert_eq!(form.steps.len(), 5, "one step a maker");
    let targets: BTreeSet<(String, String)> = map
        .targets()
        .map(|t| chosen(&map.nodes[t as usize].url))
        .collect();
    assert_eq!(targets, pairs(), "mapping reached every result");
    assert!(!map.may_be_target(0), "the form's own page is no result");
    // No submission sent a placeholder, and every chained one carried the step's state.
    assert!(
        posts
            .iter()
            .all(|p| p.get("maker").is_some_and(|v| !v.starts_with('-')))
    );
    let pattern = pattern::learn_from_map(map, m.config(), 0).expect("learns");
    assert!(!pattern.entry_target);
    assert_eq!(pattern.levels.len(), 1, "{:#?}", pattern.levels);
    let fl = pattern.levels[0]
        .form
        .as_ref()
        .expect("the target level is the form's");
    assert_eq!(fl.dependent, ["model"]);
    pattern.validate().expect("a valid pattern");
    // Read back as users keep it.
    let pattern: pattern::Pattern =
        serde_json::from_str(&serde_json::to_string(&pattern).expect("json")).expect("reads");

    let mut c = Crawler::new(pattern, CrawlConfig::default(), Some(example())).expect("crawler");
    let mut now = 1_000;
    let (mut collected, mut handled) = (Vec::new(), 0);
    let mut posts = Vec::new();
    loop {
        let poll = c.poll(now);
        // Results are delivered in order from within `poll`, the last ones with `Done`.
        for e in c.drain_events() {
            if let Event::Target(t) = e {
                collected.push(t.url.clone());
            }
        }
        match poll {
            Poll::Fetch(r) => {
                now += 10;
                // Another session: the state learning saw is refused now.
                let res = app(&r, "t7", &mut posts);
                c.handle(r.id, res, now);
                handled += 1;
                if handled == 4 {
                    // A worker killed mid-crawl: the crawl resumes from its snapshot.
                    let json = serde_json::to_string(&c.snapshot()).expect("snapshot");
                    c = Crawler::restore(serde_json::from_str(&json).expect("json"))
                        .expect("restores");
                }
            }
            Poll::WaitUntil(t) => now = t,
            Poll::Busy => panic!("synchronous driver"),
            Poll::Done => break,
        }
    }
    let got: BTreeSet<(String, String)> = collected.iter().map(|u| chosen(u)).collect();
    assert_eq!(got, pairs(), "every result page, and no step");
    assert_eq!(collected.len(), pairs().len(), "each once");
    // The search page, a step per maker, a result per model: nothing else.
    assert_eq!(c.progress().fetched, 1 + 5 + pairs().len());
    assert!(
        posts
            .iter()
            .all(|p| p.get("maker").is_some_and(|v| !v.starts_with('-')))
    );
}
