//! The JavaScript API (`crates/wasm/src/lib.rs`) in a real browser: headless Chromium through
//! wasm-bindgen-test-runner and chromedriver (`./build.sh test`, or by hand:
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown --test wasm`).
#![cfg(target_arch = "wasm32")]
#![deny(clippy::unwrap_used)]

use exemplar_html::ParseOptions;
use exemplar_similarity as similarity;
use exemplar_wasm::{PreparedExample, TS_TYPES, classify_page, parse_page, similarity_js};
use serde_json::{Value, json};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{error_message, json_of, options};

const LISTING: &str = include_str!("../../../tests/fixtures/demo-site/imoveis/apartamentos.html");
const ENTITY: &str =
    include_str!("../../../tests/fixtures/demo-site/imovel/101-apartamento-2-quartos-lapa.html");
const ENTITY_2: &str =
    include_str!("../../../tests/fixtures/demo-site/imovel/115-casa-5-quartos-tatuape.html");
const BASE: &str = "http://127.0.0.1:8000/";

fn url(path: &str) -> String {
    format!("{BASE}{path}")
}

#[wasm_bindgen_test]
fn classify_page_tells_a_listing_from_a_property_page() {
    let listing = json_of(classify_page(LISTING, &url("imoveis/apartamentos.html")));
    assert_eq!(listing["kind"], "index", "{listing}");
    let entity = json_of(classify_page(
        ENTITY,
        &url("imovel/101-apartamento-2-quartos-lapa.html"),
    ));
    assert_eq!(entity["kind"], "entity", "{entity}");
    for c in [&listing, &entity] {
        let confidence = c["confidence"].as_f64().unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&confidence), "{c}");
        assert!(c["evidence"].is_array(), "{c}");
    }
}

#[wasm_bindgen_test]
fn similarity_of_a_page_with_itself_is_one_and_with_another_below() {
    let same = json_of(similarity_js(ENTITY, ENTITY, JsValue::UNDEFINED));
    assert_eq!(same["similarity"], 1.0, "{same}");
    assert_eq!(same["distance"], 0, "{same}");
    assert_eq!(same["similar"], true, "{same}");
    assert_eq!(same["sizeA"], same["sizeB"]);

    let other = json_of(similarity_js(ENTITY, LISTING, JsValue::UNDEFINED));
    let s = other["similarity"].as_f64().unwrap_or(-1.0);
    assert!((0.0..1.0).contains(&s), "{other}");
    assert!(other["distance"].as_u64().unwrap_or(0) > 0, "{other}");
    let keys: Vec<&str> = other
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for key in [
        "similarity",
        "distance",
        "sizeA",
        "sizeB",
        "similar",
        "threshold",
    ] {
        assert!(keys.contains(&key), "missing {key}: {other}");
    }
}

#[wasm_bindgen_test]
fn threshold_option_decides_similar() {
    let lenient = json_of(similarity_js(
        ENTITY,
        LISTING,
        options(json!({"threshold": 0.0})),
    ));
    assert_eq!(lenient["similar"], true);
    assert_eq!(lenient["threshold"], 0.0);
    let strict = json_of(similarity_js(
        ENTITY,
        ENTITY_2,
        options(json!({"threshold": 1.0})),
    ));
    assert_eq!(strict["threshold"], 1.0);
    assert_eq!(strict["similar"], strict["similarity"] == 1.0);
    let full = json_of(similarity_js(
        ENTITY,
        ENTITY_2,
        options(json!({"view": {"collapse": "none"}})),
    ));
    assert!(
        full["sizeA"].as_u64() > lenient["sizeA"].as_u64(),
        "{full} {lenient}"
    );
}

#[wasm_bindgen_test]
fn prepared_example_agrees_with_similarity() {
    let mut example = PreparedExample::new(ENTITY, &url("imovel/101.html"), JsValue::UNDEFINED)
        .unwrap_or_else(|e| panic!("{}", String::from(e.message())));
    assert!(example.size() > 10);
    for (html, path) in [
        (ENTITY, "imovel/a.html"),
        (ENTITY_2, "imovel/b.html"),
        (LISTING, "imovel/c.html"),
    ] {
        let prepared = json_of(example.compare(html, &url(path)));
        let direct = json_of(similarity_js(ENTITY, html, JsValue::UNDEFINED));
        assert_eq!(prepared, direct);
        let similar = example
            .is_similar(html, &url(path))
            .unwrap_or_else(|e| panic!("{}", String::from(e.message())));
        assert_eq!(Value::Bool(similar), direct["similar"], "{direct}");
        assert_eq!(prepared["sizeA"].as_u64(), Some(u64::from(example.size())));
    }
    // Outside the example's directory a page keeps 90% of its score (place weight).
    let away = json_of(example.compare(ENTITY, &url("outro/a.html")));
    assert_eq!(away["placeAgreement"], 0.9, "{away}");
    assert_eq!(away["similarity"], 1.0, "{away}");
}

#[wasm_bindgen_test]
fn parse_page_summarizes() {
    let summary = json_of(parse_page(ENTITY, &url("imovel/101.html")));
    assert_eq!(
        summary["title"],
        "Apartamento com 2 quartos em Lapa · R$ 1.170.000 | Casa Nova Imóveis"
    );
    assert!(summary["nodes"].as_u64().unwrap_or(0) > 100, "{summary}");
    assert!(summary["links"].as_u64().unwrap_or(0) >= 10, "{summary}");
    assert_eq!(summary["forms"], 1, "{summary}");
    assert!(summary["images"].as_u64().unwrap_or(0) >= 4, "{summary}");
    assert!(summary["prices"].as_u64().unwrap_or(0) >= 1, "{summary}");
    assert!(summary["height"].as_u64().unwrap_or(0) > 5, "{summary}");
}

#[wasm_bindgen_test]
fn malformed_options_are_js_errors() {
    let cases = [
        (json!({"threshold": "high"}), "invalid options"),
        (json!({"threshold": 2}), "threshold"),
        (json!({"treshold": 0.5}), "unknown option treshold"),
        (
            json!({"view": {"colapse": "all"}}),
            "unknown option view.colapse",
        ),
        (json!({"view": {"collapse": "sideways"}}), "invalid options"),
        (json!({"parse": {"maxBytes": -1}}), "invalid options"),
        (json!([1, 2]), "must be an object"),
        (json!(0.8), "must be an object"),
    ];
    for (given, expected) in cases {
        let message = error_message(similarity_js(ENTITY, ENTITY, options(given.clone())));
        assert!(message.contains(expected), "{given}: {message}");
        let message = error_message(PreparedExample::new(ENTITY, "", options(given.clone())));
        assert!(message.contains(expected), "{given}: {message}");
    }
    // The module is still usable afterwards (an error is not an abort).
    assert_eq!(
        json_of(similarity_js(LISTING, LISTING, JsValue::NULL))["similarity"],
        1.0
    );
}

#[wasm_bindgen_test]
fn too_large_input_and_bad_urls_are_js_errors() {
    let small_limit = options(json!({"parse": {"maxBytes": 1000}}));
    let message = error_message(similarity_js(ENTITY, "<p>x</p>", small_limit));
    assert!(message.contains("page too large"), "{message}");

    // Over the default limit (16 MiB).
    let huge = "<p>imóvel</p>".repeat((16 << 20) / 12);
    assert!(huge.len() > 16 << 20);
    let message = error_message(classify_page(&huge, &url("huge.html")));
    assert!(message.contains("page too large"), "{message}");
    drop(huge);

    let message = error_message(classify_page(ENTITY, "not a url"));
    assert!(message.contains("invalid page URL"), "{message}");
    assert_eq!(json_of(parse_page("<title>ok</title>", ""))["title"], "ok");
}

/// Every key of a serialized default, recursively (`view.collapse`, …).
fn keys(value: &Value, out: &mut Vec<String>) {
    if let Value::Object(map) = value {
        for (key, inner) in map {
            out.push(key.clone());
            keys(inner, out);
        }
    }
}

#[wasm_bindgen_test]
fn typescript_types_name_every_option() {
    let mut all = Vec::new();
    keys(
        &serde_json::to_value(similarity::Options::default()).unwrap_or_default(),
        &mut all,
    );
    keys(
        &serde_json::to_value(ParseOptions::default()).unwrap_or_default(),
        &mut all,
    );
    assert!(all.len() > 4, "{all:?}");
    for key in all {
        assert!(
            TS_TYPES.contains(&format!("{key}?:")),
            "TS_TYPES in crates/wasm/src/lib.rs lacks the option {key}"
        );
    }
}

// ---------------------------------------------------------------- jobs (the extension's driver API)

mod jobs {
    use super::*;
    use exemplar_wasm::exports::{
        WarcExport, export_csv, export_jsonl, export_scrapy_zip, export_warc,
    };
    use exemplar_wasm::jobs::{Job, page_retry_wait_ms, render_pattern, validate_pattern};

    /// The wait before asking the example page again, as the jobs wait: its `Retry-After`, else
    /// 2, 4, 8 s, for 429 and 503 only, three times at most.
    #[wasm_bindgen_test]
    fn the_example_page_waits_as_the_jobs_wait() {
        assert_eq!(page_retry_wait_ms(429, Some("5".into()), 1), Some(5000.0));
        assert_eq!(page_retry_wait_ms(503, None, 2), Some(4000.0));
        assert_eq!(
            page_retry_wait_ms(503, Some("3600".into()), 3),
            Some(30_000.0)
        );
        assert_eq!(page_retry_wait_ms(429, None, 4), None);
        assert_eq!(page_retry_wait_ms(500, None, 1), None);
        assert_eq!(page_retry_wait_ms(200, None, 1), None);
        // A date: the seconds from the browser's clock until then (9 or 10 s, as the second
        // turns), not the first attempt's default 2 s.
        let at = js_sys::Date::new(&(js_sys::Date::now() + 10_000.0).into());
        let date = String::from(at.to_utc_string());
        let wait = page_retry_wait_ms(429, Some(date.clone()), 1).expect("asked again");
        assert!((9000.0..=10_000.0).contains(&wait), "{date}: {wait}");
    }

    const SITE: &str = "http://shop.test/";
    /// Anchor texts: listings that differ only in numbers would be one page to the mapper's
    /// duplicate detection (it compares text terms).
    const NAMES: [&str; 9] = [
        "",
        "lapa",
        "mooca",
        "butanta",
        "pinheiros",
        "perdizes",
        "brooklin",
        "santana",
        "tatuape",
    ];

    fn item(i: u32) -> String {
        format!(
            "<html><head><title>Item {i}</title></head><body><nav><a href='/'>Home</a></nav>\
             <h1>Item {i}</h1><div class='photos'><img src='/p/{i}.jpg'></div>\
             <p class='price'>R$ {i}00,00</p><table class='specs'><tr><td>Rooms</td><td>{i}</td></tr></table>\
             <p>Description of item {i}.</p></body></html>"
        )
    }

    fn listing(items: std::ops::Range<u32>) -> String {
        let links: String = items
            .map(|i| {
                format!(
                    "<li><a href='/item/{i}.html'>{}</a></li>",
                    NAMES[i as usize]
                )
            })
            .collect();
        format!(
            "<html><head><title>Items</title></head><body><nav><a href='/'>Home</a></nav>\
             <ul class='list'>{links}</ul></body></html>"
        )
    }

    /// The in-memory site: a home page, two listings, eight items, a robots.txt.
    fn serve(url: &str) -> (u16, &'static str, String) {
        let path = url.strip_prefix("http://shop.test").unwrap_or(url);
        match path {
            "/robots.txt" => (
                200,
                "text/plain",
                "User-agent: *\nDisallow: /private/\n".into(),
            ),
            "/" => (
                200,
                "text/html",
                "<html><body><a href='/cat/a.html'>A</a> <a href='/cat/b.html'>B</a> \
                 <a href='/private/x.html'>x</a> <a href='/about.html'>About</a></body></html>"
                    .into(),
            ),
            "/cat/a.html" => (200, "text/html", listing(1..5)),
            "/cat/b.html" => (200, "text/html", listing(5..9)),
            "/about.html" => (
                200,
                "text/html",
                "<html><body><p>About us</p></body></html>".into(),
            ),
            p if p.starts_with("/item/") => {
                let n: u32 = p[6..p.len() - 5].parse().unwrap_or(0);
                (200, "text/html", item(n))
            }
            _ => (404, "text/plain", "not found".into()),
        }
    }

    fn value(v: Result<JsValue, js_sys::Error>) -> Value {
        json_of(v)
    }

    /// Pumps the job through its JS-facing methods until done (or `stop_after` responses); returns
    /// the events.
    fn drive(job: &mut Job, stop_after: Option<usize>) -> Vec<Value> {
        let mut events = Vec::new();
        let mut now = 1_000.0;
        let mut handled = 0;
        for _ in 0..10_000 {
            if stop_after == Some(handled) {
                break;
            }
            let p = value(job.poll(now));
            let done = p["type"] == "done";
            match p["type"].as_str() {
                Some("fetch") => {
                    let url = p["url"].as_str().expect("url").to_string();
                    let (status, ct, body) = serve(&url);
                    let headers = options(json!([["Content-Type", ct]]));
                    job.handle_response(
                        p["id"].as_f64().expect("id"),
                        status,
                        url,
                        headers,
                        body.into_bytes(),
                        false,
                        now,
                    )
                    .expect("handled");
                    handled += 1;
                }
                Some("wait") => now = p["untilMs"].as_f64().expect("until"),
                Some("done") => {}
                other => panic!("unexpected poll {other:?}"),
            }
            let drained = job.drain_events().expect("events");
            for e in drained.iter() {
                // Target bodies are bytes (a Uint8Array), not JSON: check and drop them.
                let body = js_sys::Reflect::get(&e, &"body".into()).expect("get");
                if !body.is_undefined() {
                    assert!(body.is_instance_of::<js_sys::Uint8Array>());
                    js_sys::Reflect::delete_property(
                        e.unchecked_ref::<js_sys::Object>(),
                        &"body".into(),
                    )
                    .expect("delete");
                }
                events.push(serde_wasm_bindgen::from_value::<Value>(e).expect("event"));
            }
            if done {
                break;
            }
        }
        events
    }

    fn learn_job() -> Job {
        let example = item(1);
        Job::learn(
            SITE,
            "http://shop.test/item/1.html",
            example.as_bytes(),
            Some("text/html; charset=utf-8".into()),
            options(json!({"politeness": {"delayMs": 0}, "similarity": {"threshold": 0.75}})),
        )
        .expect("learn job")
    }

    #[wasm_bindgen_test]
    fn a_learning_job_learns_the_pattern_and_a_crawl_job_runs_it() {
        let mut job = learn_job();
        assert_eq!(job.kind(), "learn");
        let events = drive(&mut job, None);
        assert!(events.iter().any(|e| e["type"] == "finished"), "{events:?}");
        let learned = value(job.learn_pattern(None, 5_000.0, JsValue::UNDEFINED));
        let targets = learned["targets"].as_array().expect("targets");
        assert_eq!(targets.len(), 8, "items 1..8: {learned}");
        let regexes = &learned["pattern"]["levels"];
        assert_eq!(regexes.as_array().map(Vec::len), Some(2), "{learned}");
        let pattern_json = learned["patternJson"].as_str().expect("json").to_string();
        assert!(
            render_pattern(&pattern_json)
                .expect("render")
                .contains("level 2")
        );

        // A crawl with the pattern reaches all of them, and coverage says so.
        let mut crawl =
            Job::crawl(&pattern_json, options(json!({})), None, None, None).expect("crawl");
        let events = drive(&mut crawl, None);
        let found: Vec<&str> = events
            .iter()
            .filter(|e| e["type"] == "target")
            .filter_map(|e| e["url"].as_str())
            .collect();
        assert_eq!(found.len(), 8, "{events:?}");
        let coverage = value(crawl.coverage());
        assert_eq!(coverage["reached"], coverage["known"], "{coverage}");
        assert!(
            learn_job().coverage().is_err(),
            "a learning job has no coverage"
        );
    }

    /// Fields induced from the items go into the pattern; a crawl's target events carry each
    /// page's values, and the CSV export a column per field.
    #[wasm_bindgen_test]
    fn a_crawl_carries_the_fields_learned_from_the_items() {
        use exemplar_wasm::fields::{field_sample_urls, induce_fields};
        let mut job = learn_job();
        drive(&mut job, None);
        let learned = value(job.learn_pattern(None, 5_000.0, JsValue::UNDEFINED));
        let pattern_json = learned["patternJson"].as_str().expect("json");
        let sample = field_sample_urls(pattern_json).expect("sample");
        assert_eq!(
            sample.len(),
            7,
            "the known targets but the example: {sample:?}"
        );
        let pages = js_sys::Array::new();
        for url in std::iter::once("http://shop.test/item/1.html".to_string()).chain(sample) {
            let page = js_sys::Object::new();
            let (_, ct, body) = serve(&url);
            js_sys::Reflect::set(&page, &"url".into(), &url.as_str().into()).expect("set");
            js_sys::Reflect::set(&page, &"contentType".into(), &ct.into()).expect("set");
            let bytes = js_sys::Uint8Array::from(body.as_bytes());
            js_sys::Reflect::set(&page, &"body".into(), &bytes).expect("set");
            pages.push(&page);
        }
        let induced = value(induce_fields(pattern_json, pages.into()));
        let names: Vec<&str> = induced["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .filter_map(|f| f["name"].as_str())
            .collect();
        assert!(names.contains(&"price"), "{induced}");
        assert!(
            induced["values"]
                .as_array()
                .expect("values")
                .iter()
                .any(|v| v[0] == "price" && v[1].as_f64() == Some(100.0)),
            "the example's values: {induced}"
        );
        let with_fields = induced["patternJson"].as_str().expect("json");
        assert_eq!(value(validate_pattern(with_fields))["version"], 2);

        let mut crawl =
            Job::crawl(with_fields, options(json!({})), None, None, None).expect("crawl");
        let targets: Vec<Value> = drive(&mut crawl, None)
            .into_iter()
            .filter(|e| e["type"] == "target")
            .collect();
        assert_eq!(targets.len(), 8);
        for t in &targets {
            let n: f64 = t["url"].as_str().expect("url")[22..]
                .trim_end_matches(".html")
                .parse()
                .expect("item number");
            assert!(
                t["fields"]
                    .as_array()
                    .expect("fields")
                    .iter()
                    .any(|v| v[0] == "price" && v[1].as_f64() == Some(n * 100.0)),
                "{t}"
            );
        }
        // Stored as the extension stores them, exported with a column per field.
        let stored = js_sys::Array::new();
        for t in &targets {
            stored.push(&options(t.clone()));
        }
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let csv = export_csv(stored.into(), Some(names)).expect("csv");
        let header = csv.lines().next().expect("header");
        assert!(
            header.ends_with(",price") || header.contains(",price,"),
            "{header}"
        );
        assert!(csv.contains(",300\r\n") || csv.contains(",300,"), "{csv}");
    }

    #[wasm_bindgen_test]
    fn a_job_restored_from_a_snapshot_mid_run_ends_like_an_uninterrupted_one() {
        let mut clean = learn_job();
        drive(&mut clean, None);
        let clean = value(clean.learn_pattern(None, 5_000.0, JsValue::UNDEFINED));

        let mut first = learn_job();
        drive(&mut first, Some(4));
        let snapshot = first.snapshot().expect("snapshot");
        drop(first);
        let mut resumed = Job::restore(&snapshot).expect("restore");
        drive(&mut resumed, None);
        let resumed = value(resumed.learn_pattern(None, 5_000.0, JsValue::UNDEFINED));
        assert_eq!(resumed["pattern"]["levels"], clean["pattern"]["levels"]);
        assert_eq!(resumed["targets"], clean["targets"]);

        assert!(error_message(Job::restore("{}")).contains("not a job snapshot"));
        assert!(error_message(Job::restore("nope")).contains("not a job snapshot"));
    }

    #[wasm_bindgen_test]
    fn relearning_at_another_threshold_refetches_nothing() {
        let mut job = learn_job();
        drive(&mut job, None);
        // θ = 1 keeps the pages identical in structure to the example (all eight items); a low θ
        // makes the listings targets too. Neither fetches anything.
        let strict = value(job.learn_pattern(Some(1.0), 0.0, JsValue::UNDEFINED));
        assert_eq!(
            strict["targets"].as_array().map(Vec::len),
            Some(8),
            "{strict}"
        );
        assert_eq!(strict["threshold"], 1.0);
        assert!(
            error_message(job.learn_pattern(Some(1.5), 0.0, JsValue::UNDEFINED))
                .contains("outside [0, 1]")
        );
        let loose = value(job.learn_pattern(Some(0.3), 0.0, JsValue::UNDEFINED));
        assert!(
            loose["targets"].as_array().map(Vec::len) > Some(8),
            "{loose}"
        );
        // Nothing was asked of the site.
        assert_eq!(value(job.poll(10_000.0))["type"], "done");
    }

    #[wasm_bindgen_test]
    fn the_users_verdicts_over_theta_are_learned_and_recorded() {
        let mut job = learn_job();
        drive(&mut job, None);
        let plain = value(job.learn_pattern(None, 0.0, JsValue::UNDEFINED));
        let near = plain["nearMisses"].as_array().expect("nearMisses").clone();
        assert!(!near.is_empty(), "{plain}");
        let sims: Vec<f64> = near
            .iter()
            .filter_map(|n| n["similarity"].as_f64())
            .collect();
        assert!(
            sims.windows(2).all(|w| w[0] >= w[1]) && sims[0] < 0.75,
            "{sims:?}"
        );
        assert!(
            near.iter().all(|n| n["urlLikeTargets"].is_boolean()),
            "{near:?}"
        );
        // No heading names a kind on this shop: no target is taken for its heading.
        let doubtful = plain["doubtfulTargets"]
            .as_array()
            .expect("doubtfulTargets");
        assert!(!doubtful.is_empty(), "{plain}");
        assert!(
            doubtful.iter().all(|d| d["byHeading"] == false),
            "{doubtful:?}"
        );
        // Like the closest page below θ, unlike one item: one target gained, one lost.
        let liked = near[0]["url"].as_str().expect("url").to_string();
        let unliked = "http://shop.test/item/3.html";
        let verdicts = options(json!({"like": [liked], "unlike": [unliked]}));
        let fixed = value(job.learn_pattern(None, 0.0, verdicts));
        let urls: Vec<&str> = fixed["targets"]
            .as_array()
            .expect("targets")
            .iter()
            .filter_map(|t| t["url"].as_str())
            .collect();
        assert_eq!(urls.len(), 8, "{fixed}");
        assert!(urls.contains(&liked.as_str()) && !urls.contains(&unliked));
        assert_eq!(fixed["pattern"]["corrections"]["like"], json!([liked]));
        assert_eq!(fixed["pattern"]["corrections"]["unlike"], json!([unliked]));
        assert!(
            !fixed["nearMisses"]
                .as_array()
                .expect("nearMisses")
                .iter()
                .any(|n| n["url"] == json!(liked) || n["url"] == json!(unliked))
        );
        // Verdicts on pages mapping never fetched, or of the wrong shape, are refused.
        let nowhere = options(json!({"like": ["http://shop.test/nowhere"]}));
        assert!(error_message(job.learn_pattern(None, 0.0, nowhere)).contains("not met"));
        let wrong = options(json!({"like": "x"}));
        assert!(error_message(job.learn_pattern(None, 0.0, wrong)).contains("corrections"));
    }

    #[wasm_bindgen_test]
    fn malformed_patterns_and_settings_are_clear_errors() {
        assert!(error_message(validate_pattern("{")).starts_with("not JSON"));
        assert!(error_message(validate_pattern("{\"version\": 9}")).contains("not supported"));
        assert!(error_message(validate_pattern("{\"version\": 1}")).starts_with("invalid pattern"));
        assert!(
            error_message(Job::crawl("[]", JsValue::UNDEFINED, None, None, None))
                .contains("version")
        );
        let bad = Job::learn(SITE, SITE, b"<p>x", None, options(json!({"maxPagez": 3})));
        assert!(error_message(bad).contains("unknown option maxPagez"));
        let bad = Job::learn("not a url", SITE, b"<p>x", None, JsValue::UNDEFINED);
        assert!(!error_message(bad).is_empty());
    }

    #[wasm_bindgen_test]
    fn exports_read_stored_pages_with_byte_bodies() {
        let page = js_sys::Object::new();
        for (k, v) in [
            ("url", JsValue::from_str("http://shop.test/item/1.html")),
            ("status", JsValue::from_f64(200.0)),
            ("title", JsValue::from_str("Item \"1\", with comma")),
            ("similarity", JsValue::from_f64(0.9)),
            ("fetchedAtMs", JsValue::from_f64(1_700_000_000_000.0)),
            ("headers", options(json!([["Content-Type", "text/html"]]))),
            ("body", js_sys::Uint8Array::from(item(1).as_bytes()).into()),
        ] {
            js_sys::Reflect::set(&page, &k.into(), &v).expect("set");
        }
        let pages: JsValue = js_sys::Array::of1(&page).into();
        let jsonl = export_jsonl(pages.clone(), true).expect("jsonl");
        let line: Value = serde_json::from_str(jsonl.trim()).expect("one JSON line");
        assert_eq!(line["url"], "http://shop.test/item/1.html");
        assert!(line["html"].as_str().is_some_and(|h| h.contains("Item 1")));
        let csv = export_csv(pages.clone(), None).expect("csv");
        assert!(csv.contains("\"Item \"\"1\"\", with comma\""), "{csv}");
        let warc = export_warc(pages.clone(), "test", 1_700_000_000_000.0).expect("warc");
        let text = String::from_utf8_lossy(&warc);
        assert!(text.starts_with("WARC/1.1"));
        assert!(text.contains("WARC-Target-URI: http://shop.test/item/1.html"));
        // Batch by batch (as the extension exports a large crawl): one file, ids unique.
        let mut w = WarcExport::new("test", 1_700_000_000_000.0).expect("warc export");
        let mut batched = w.push(pages.clone()).expect("first batch");
        assert_eq!(batched, warc, "one batch: the same file");
        batched.extend(w.push(pages.clone()).expect("second batch"));
        batched.extend(w.finish().expect("finish"));
        let text = String::from_utf8_lossy(&batched);
        assert_eq!(text.matches("WARC-Type: warcinfo").count(), 1);
        assert_eq!(text.matches("WARC-Type: response").count(), 2);
        // Each response is followed by its metadata: the similarity the crawl measured.
        assert_eq!(text.matches("WARC-Type: metadata").count(), 2);
        assert_eq!(text.matches("\r\nsimilarity: 0.9000\r\n").count(), 2);
        let ids: std::collections::HashSet<&str> = text
            .lines()
            .filter(|l| l.starts_with("WARC-Record-ID"))
            .collect();
        assert_eq!(ids.len(), 5);
        assert!(error_message(w.push(pages.clone())).contains("finished"));
        assert!(error_message(export_csv(JsValue::from_str("x"), None)).contains("array"));

        let mut job = learn_job();
        drive(&mut job, None);
        let learned = value(job.learn_pattern(None, 0.0, JsValue::UNDEFINED));
        let zip = export_scrapy_zip(learned["patternJson"].as_str().expect("json")).expect("zip");
        assert_eq!(&zip[..2], b"PK");
        assert!(String::from_utf8_lossy(&zip).contains("shop_test-scrapy/scrapy.cfg"));
    }
}

/// `defaultSettings()` gives the core's defaults of a learning run, which the extension starts
/// from: one source of them for the extension and the command line.
#[wasm_bindgen_test]
fn default_settings_are_the_cores() {
    let js = exemplar_wasm::jobs::default_settings().expect("defaults");
    let v: Value = serde_wasm_bindgen::from_value(js).expect("an object");
    let c = exemplar_core::mapper::MapConfig::default();
    assert_eq!(v["maxPages"], json!(c.max_pages));
    assert_eq!(v["maxDepth"], json!(c.max_depth));
    assert_eq!(v["delayMs"], json!(c.politeness.delay_ms));
    assert_eq!(v["concurrency"], json!(c.politeness.max_in_flight_per_host));
    assert_eq!(v["threshold"], json!(c.similarity.threshold));
    assert_eq!(v["maxBytes"], json!(c.max_bytes));
    assert_eq!(v["obeyRobots"], json!(c.politeness.obey_robots));
}
