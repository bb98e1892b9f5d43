//! The tests of `heading` (a sibling file: they outgrew the module).
use super::fixtures::{classes_and_a_struct, node};
use super::*;
use crate::map::Node;

fn names(ws: &[&str]) -> HashSet<String> {
    ws.iter().map(|w| w.to_string()).collect()
}

#[test]
fn a_template_keeps_the_kind_words_and_slots_the_name() {
    let t = |h: &str, n: &[&str]| template(h, &names(n), &names(&["sf", "gtk"]), true);
    assert_eq!(
        t(
            "sf::Utf< N > Class Template Reference System module",
            &["utf"]
        ),
        Some("sf * Class Template Reference System module".into())
    );
    assert_eq!(
        t(
            "sf::Shader::CurrentTextureType Struct Reference",
            &["shader", "currenttexturetype"]
        ),
        Some("sf * Struct Reference".into())
    );
    // Only a name, or a name and the site's: no template.
    assert_eq!(t("QString", &["qstring"]), None);
    assert_eq!(t("Gtk Button", &["button"]), None);
    assert_eq!(t("sf::Glsl", &["glsl"]), None);
    assert_eq!(t("42 ¶", &[]), None);
    // No word names the page: a label, not a kind.
    assert_eq!(t("Caution", &["sql", "vacuum"]), None);
    assert_eq!(t("Class Reference", &["utf"]), None);
    assert_eq!(words("é·ab c d2e fg").collect::<Vec<_>>(), ["ab", "fg"]);
    assert!(is_template("sf * Class Template Reference System module"));
    assert!(is_template("* Größe"));
    for bad in [
        "",
        " * File",
        "* File ",
        "*  File",
        "* File\u{1b}[2J",
        "<b>*</b>",
        "C++ *",
    ] {
        assert!(!is_template(bad), "{bad:?}");
    }
}

/// Doxygen glues a name's words in its URLs (`structai_export_data_blob.html` for
/// "aiExportDataBlob"): such a heading word names the page; a kind's word glued to a name
/// (`namespacesf`), a word outside the URL, or one on many headings does not.
#[test]
fn glued_names_are_names_kinds_glued_to_names_are_not() {
    let none = HashSet::new();
    let glued = |h: &str, url: &str, n: &[&str], frequent: &HashSet<String>| {
        glued_names(h, &format!("http://h/{url}"), &names(n), frequent)
    };
    assert_eq!(
        glued(
            "aiExportDataBlob Struct Reference",
            "structai_export_data_blob.html",
            &["export", "data", "blob"],
            &none
        ),
        ["aiexportdatablob"]
    );
    assert_eq!(
        glued(
            "BaseImporter.h File Reference",
            "_base_importer_8h.html?x#y",
            &["base", "importer"],
            &none
        ),
        ["baseimporter"]
    );
    let no: [&str; 0] = [];
    assert_eq!(
        glued(
            "sf::Glsl Namespace Reference",
            "namespacesf_1_1Glsl.html",
            &["glsl"],
            &none
        ),
        no
    );
    assert_eq!(glued("Reference", "ref.html", &["ref"], &none), no);
    assert_eq!(
        glued(
            "aiExportDataBlob Struct Reference",
            "structai_export_data_blob.html",
            &["export", "data", "blob"],
            &names(&["aiexportdatablob"])
        ),
        no
    );
    // The rule reads glued names only where learning did (patterns that carry `frequent`).
    let mut rule = HeadingRule {
        templates: vec!["* Struct Reference".into()],
        kind_words: vec!["html".into(), "structai".into()],
        frequent: Some(vec!["reference".into(), "struct".into()]),
        ..HeadingRule::default()
    };
    let (url, h) = (
        "http://h/structai_mesh_data.html",
        "aiMeshData Struct Reference",
    );
    assert_eq!(
        rule.template_of(url, h).as_deref(),
        Some("* Struct Reference")
    );
    assert!(rule.takes(url, h));
    rule.frequent = None;
    assert_eq!(rule.template_of(url, h), None);
}

/// rustdoc and javadoc qualify a name with the modules its URL's directories are named
/// after: those words name the page, so one kind is one template, not one per module.
#[test]
fn a_qualified_names_module_words_name_the_page() {
    let q = |h: &str, url: &str, n: &[&str]| {
        let mut q = qualified_names(h, &format!("http://127.0.0.1:8080/{url}"), &names(n));
        q.sort();
        q
    };
    assert_eq!(
        q(
            "Struct std::collections::hash_map::DefaultHasher",
            "std/collections/hash_map/struct.DefaultHasher.html",
            &["defaulthasher"]
        ),
        ["collections", "hash", "map", "std"]
    );
    // A module's own page: its name is its directory.
    assert_eq!(
        q("Module std::iter", "std/iter/index.html", &[]),
        ["iter", "std"]
    );
    assert_eq!(
        q(
            "Uses of Class org.apache.commons.lang3.StringUtils",
            "org/apache/commons/lang3/class-use/StringUtils.html",
            &["stringutils"]
        ),
        ["apache", "commons", "lang", "org"]
    );
    let no: [&str; 0] = [];
    // A directory word standing alone may name the kind; words outside the URL, a
    // token of one word, or a flat site's URL qualify nothing; the host is not a directory.
    assert_eq!(
        q(
            "Blog Post title",
            "blog/post-title.html",
            &["post", "title"]
        ),
        no
    );
    assert_eq!(
        q("Struct core::cell::Cell", "x/struct.Cell.html", &["cell"]),
        no
    );
    assert_eq!(q("sf::Utf Class", "classsf_1_1Utf.html", &["utf"]), no);
    assert_eq!(
        qualified_names(
            "Struct docs::Cell",
            "https://docs.rs/struct.Cell.html",
            &names(&["cell"])
        ),
        no
    );
    assert!(dir_words("not a url").is_empty());
    // rustdoc's heading text has spaces around its separators.
    assert_eq!(
        q(
            "Struct std :: iter :: Map",
            "std/iter/struct.Map.html",
            &["map"]
        ),
        ["iter", "std"]
    );
    assert_eq!(
        name_tokens("Struct  std :: iter ::Map. x / y z"),
        ["Struct", "std::iter::Map.x/y", "z"]
    );

    // Templates: one kind across modules; the rule reads them only where learning did.
    let mut rule = HeadingRule {
        templates: vec!["Struct *".into()],
        kind_words: ["html", "std", "core", "iter", "struct"]
            .map(String::from)
            .to_vec(),
        frequent: Some(vec!["struct".into()]),
        qualified: true,
        ..HeadingRule::default()
    };
    let iter = (
        "http://h/core/iter/struct.Map.html",
        "Struct core::iter::Map",
    );
    assert_eq!(
        rule.template_of(iter.0, iter.1).as_deref(),
        Some("Struct *")
    );
    assert!(rule.takes("http://h/std/iter/struct.Rev.html", "Struct std::iter::Rev"));
    rule.qualified = false;
    assert_eq!(
        rule.template_of(iter.0, iter.1).as_deref(),
        Some("Struct core iter *")
    );
    let back: HeadingRule = serde_json::from_str(r#"{"templates":[],"kindWords":[],"common":[]}"#)
        .expect("a rule learned before qualified names");
    assert!(!back.qualified);
}

#[test]
fn the_rest_of_a_name_names_the_page() {
    let rule = HeadingRule {
        templates: vec!["Struct template *".into(), "Global *".into()],
        kind_words: ["html", "boost"].map(String::from).to_vec(),
        frequent: Some(["struct", "template", "global"].map(String::from).to_vec()),
        qualified: true,
        whole_names: true,
        ..HeadingRule::default()
    };
    let t = |url: &str, h: &str| rule.template_of(&format!("http://h/doc/html/boost/{url}"), h);
    // BoostBook cuts long names to five letters; an identifier is one name.
    assert_eq!(
        t(
            "xpressive/op/str/resu_1_3_45_5_3_2_1_6_21_3.html",
            "Struct template result<This(Sub)>"
        )
        .as_deref(),
        Some("Struct template *")
    );
    assert_eq!(
        t(
            "accumulators/extract/with_1_3_2_6_3_13_1_1_12_3.html",
            "Global with_p_square_cumulative_distribution_median"
        )
        .as_deref(),
        Some("Global *")
    );
    assert!(rule.takes(
        "http://h/doc/html/boost/mpi/python/regist_1_3_25_7_20_2_1_1_2.html",
        "Global register_skeleton_and_content"
    ));
    // A kind's word beside a name, or beginning with a name too short to be cut from it,
    // stays.
    assert_eq!(
        t(
            "container/vector.html",
            "Class template vector<T, Allocator>"
        )
        .as_deref(),
        Some("Class template * Allocator")
    );
    assert_eq!(
        t("io/ab_1_2.html", "Struct template abstract").as_deref(),
        None,
        "no name: a label, not a kind"
    );
    // A frequent heading word is a kind's even when a name begins it.
    assert_eq!(
        t("x/templ_1_2.html", "Struct template templ").as_deref(),
        Some("Struct template *")
    );
    // Rules learned before read a heading as they did.
    let before = HeadingRule {
        whole_names: false,
        ..rule.clone()
    };
    assert_eq!(
        before
            .template_of(
                "http://h/doc/html/boost/xpressive/op/str/resu_1_3.html",
                "Struct template result<This(Sub)>"
            )
            .as_deref(),
        None,
        "no word of the heading was the page's name"
    );
    let back: HeadingRule =
        serde_json::from_str(r#"{"templates":[],"kindWords":[],"common":[]}"#).unwrap();
    assert!(!back.whole_names);
}

/// rustdoc's case on a map: struct pages in many modules are one kind, so a struct of a
/// module no target is in, just below θ, is taken, and a module page as close is not.
#[test]
fn structs_of_every_module_are_one_kind() {
    use NodeState::{Page, Target};
    let mut nodes = Vec::new();
    // Enough pages under each module that its words are the site's, not a page's name.
    for (m, structs) in [
        ("std/iter", ["Map", "Rev", "Zip"]),
        ("core/cell", ["Cell", "RefCell", "Ref"]),
        ("std/io", ["Stdin", "Stdout", "Bytes"]),
    ] {
        let path = m.replace('/', "::");
        nodes.push(node(
            &format!("{m}/index.html"),
            Page,
            0.3,
            &format!("Module {path}"),
        ));
        let spaced = path.replace("::", " :: ");
        for s in structs {
            let h = format!("Struct {spaced} :: {s}");
            nodes.push(node(&format!("{m}/struct.{s}.html"), Target, 0.9, &h));
        }
        // Other kinds, so that "Struct" is not on most headings (the site's name).
        for (kind, file, name) in [("Trait", "trait", "Step"), ("Function", "fn", "once")] {
            for i in 0..2 {
                let (url, h) = (
                    format!("{m}/{file}.{name}{i}.html"),
                    format!("{kind} {spaced} :: {name}{i}"),
                );
                nodes.push(node(&url, Page, 0.2, &h));
            }
        }
    }
    nodes.push(node(
        "std/cmp/struct.Reverse.html",
        Page,
        0.86,
        "Struct std :: cmp :: Reverse",
    ));
    nodes.push(node("std/cmp/index.html", Page, 0.86, "Module std :: cmp"));
    let map = SiteMap {
        threshold: 0.875,
        example: "http://h/std/iter/struct.Map.html".into(),
        nodes,
        ..SiteMap::default()
    };
    let k = kinds(&map, &[], &[]);
    let summary: Vec<(&str, usize)> = k.iter().map(|k| (k.template.as_str(), k.targets)).collect();
    assert_eq!(summary, [("Struct *", 9)]);
    let promoted: Vec<&str> = promoted(&map, &HashSet::new())
        .into_iter()
        .map(|id| map.nodes[id as usize].url.as_str())
        .collect();
    assert_eq!(promoted, ["http://h/std/cmp/struct.Reverse.html"]);
    let rule = Templates::of(&map).rule().expect("a rule");
    assert_eq!(rule.templates, ["Struct *"]);
    assert!(rule.qualified);
    assert!(rule.takes(
        "http://h/alloc/vec/struct.Drain.html",
        "Struct alloc :: vec :: Drain"
    ));
    assert!(!rule.takes("http://h/alloc/vec/index.html", "Module alloc :: vec"));
}

/// SFML's case: a member-less class and a tag struct just below θ follow targets'
/// templates; the namespace and header pages, as close, do not; a template that pages far
/// below θ also carry marks nothing.
#[test]
fn pages_below_theta_are_marked_when_their_heading_is_a_targets() {
    use NodeState::{Page, Target};
    let mut nodes = vec![node("index.html", Page, 0.4, "SFML Documentation")];
    for (i, class) in ["Texture", "Vector2", "Sprite", "Font"].iter().enumerate() {
        let h = if i == 1 {
            format!("sf::{class}< T > Class Template Reference System module")
        } else {
            format!("sf::{class} Class Reference")
        };
        nodes.push(node(&format!("classsf_1_1{class}.html"), Target, 0.95, &h));
    }
    nodes.push(node(
        "structsf_1_1Event_1_1SizeEvent.html",
        Target,
        0.92,
        "sf::Event::SizeEvent Struct Reference",
    ));
    let band = [
        (
            "classsf_1_1Utf.html",
            "sf::Utf< N > Class Template Reference System module",
            true,
        ),
        (
            "structsf_1_1Shader_1_1CurrentTextureType.html",
            "sf::Shader::CurrentTextureType Struct Reference",
            true,
        ),
        (
            "namespacesf_1_1Glsl.html",
            "sf::Glsl Namespace Reference",
            false,
        ),
        (
            "GpuPreference_8hpp.html",
            "GpuPreference.hpp File Reference",
            false,
        ),
        // A class's template, but a class far below θ has it too.
        (
            "classsf_1_1Context.html",
            "sf::Context Class Reference",
            false,
        ),
    ];
    for (url, h, _) in band {
        nodes.push(node(url, Page, 0.80, h));
    }
    // Far below θ: a member list, a header, and a class whose template vetoes Context's.
    nodes.push(node(
        "classsf_1_1Font-members.html",
        Page,
        0.6,
        "sf::Font Member List",
    ));
    nodes.push(node("Font_8hpp.html", Page, 0.5, "Font.hpp File Reference"));
    nodes.push(node(
        "classsf_1_1Old.html",
        Page,
        0.5,
        "sf::Old Class Reference",
    ));
    // A target without a heading, and a duplicate, count for nothing.
    nodes.push(node("classsf_1_1Rect.html", Target, 0.9, ""));
    nodes.push(Node {
        state: NodeState::Duplicate { of: 1 },
        ..node(
            "classsf_1_1Dup.html",
            Page,
            0.9,
            "sf::Dup Namespace Reference",
        )
    });
    let map = SiteMap {
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    let t = Templates::of(&map);
    for (url, _, like) in band {
        let id = map
            .nodes
            .iter()
            .position(|n| n.url.ends_with(url))
            .unwrap_or(0) as u32;
        assert_eq!(t.like_targets(id), like, "{url}: {:?}", t.template(id));
    }
    assert_eq!(t.template(0), None, "no word of index.html names it");
    assert!(!t.like_targets(0));
}

/// A word most URLs carry names a kind: it stays in the template, so a namespace page does
/// not take a class's template when the generator writes the kind into its URLs.
#[test]
fn a_word_many_urls_carry_is_a_kind_not_a_name() {
    use NodeState::{Page, Target};
    let mut nodes: Vec<Node> = (0..30)
        .map(|i| {
            let name = format!("thing{}", "x".repeat(i % 26 + 1));
            node(
                &format!("class_json_1_1_{name}.html"),
                Target,
                0.95,
                &format!("Json::{name} Class Reference"),
            )
        })
        .collect();
    // More member lists, far below θ: `Class` and `Reference` are on fewer than half of
    // the headings.
    let members: Vec<Node> = (0..40)
        .map(|i| {
            let name = format!("thing{}", "x".repeat(i % 26 + 1));
            node(
                &format!("class_json_1_1_{name}-members.html"),
                Page,
                0.5,
                &format!("Json::{name} Member List"),
            )
        })
        .collect();
    nodes.push(node(
        "namespace_json.html",
        Page,
        0.83,
        "Json Namespace Reference",
    ));
    nodes.push(node(
        "class_json_1_1_path.html",
        Page,
        0.80,
        "Json::Path Class Reference",
    ));
    nodes.extend(members);
    let map = SiteMap {
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    let t = Templates::of(&map);
    assert_eq!(t.template(30), Some("Json * Reference"));
    assert!(!t.like_targets(30));
    // `json` is in every URL: a kind word here, kept like `class`.
    assert_eq!(t.template(31), Some("Json * Class Reference"));
    assert!(t.like_targets(31));
    // Were classes most of the pages, `Class` would be the site's word, not a kind's: the
    // mark stays off rather than guess.
    let mut classes = map.clone();
    classes.nodes.truncate(32);
    assert!(!Templates::of(&classes).like_targets(31));
}

/// Learning takes the band pages whose heading is a target's kind — not those a user judged
/// unlike the example, nor pages whose template a judged page shares, nor pages below the
/// band, nor a heading whose only words besides the name are stop words.
#[test]
fn promoted_pages_are_the_marked_band_pages_the_user_did_not_judge() {
    use NodeState::{Page, Target};
    let mut nodes = classes_and_a_struct();
    // Articles: the title's words are in the URL but for "of" and "the".
    nodes.push(node("history-rome.html", Target, 0.9, "History of Rome"));
    nodes.push(node("class-Utf.html", Page, 0.80, "Utf Class Reference"));
    nodes.push(node("struct-Tag.html", Page, 0.79, "Tag Struct Reference"));
    nodes.push(node("class-Low.html", Page, 0.70, "Low Class Reference"));
    nodes.push(node("list-authors.html", Page, 0.85, "List of the Authors"));
    nodes.push(node(
        "namespace-Gl.html",
        Page,
        0.86,
        "Gl Namespace Reference",
    ));
    let map = SiteMap {
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    // `class-Low` is below the band, and its template then vetoes `class-Utf`'s.
    assert_eq!(
        urls_of(&map, promoted(&map, &HashSet::new())),
        ["http://h/struct-Tag.html"]
    );
    let mut above = map.clone();
    above.nodes.retain(|n| !n.url.ends_with("class-Low.html"));
    assert_eq!(
        urls_of(&above, promoted(&above, &HashSet::new())),
        ["http://h/class-Utf.html", "http://h/struct-Tag.html"]
    );
    // The user's "unlike": that page stays, and its template takes no other page.
    let unlike: HashSet<&str> = ["http://h/struct-Tag.html"].into_iter().collect();
    assert_eq!(
        urls_of(&above, promoted(&above, &unlike)),
        ["http://h/class-Utf.html"]
    );
    let unlike: HashSet<&str> = ["http://h/class-Font.html"].into_iter().collect();
    assert_eq!(
        urls_of(&above, promoted(&above, &unlike)),
        ["http://h/struct-Tag.html"]
    );
}

/// The example's own template is vetoed by no page well below θ: the site names those
/// pages as it names the example (ocamldoc's "Class *" on a site whose class pages score
/// from 0.66 to 1.0). Another template still is, and a user's verdict still vetoes the
/// example's.
#[test]
fn pages_well_below_theta_do_not_veto_the_examples_template() {
    use NodeState::Page;
    let mut nodes = classes_and_a_struct();
    nodes.push(node("class-Utf.html", Page, 0.80, "Utf Class Reference"));
    nodes.push(node("class-Low.html", Page, 0.70, "Low Class Reference"));
    nodes.push(node("struct-Tag.html", Page, 0.79, "Tag Struct Reference"));
    nodes.push(node("struct-Pad.html", Page, 0.60, "Pad Struct Reference"));
    // Other pages, so that "Class" is not on most headings (the site's name).
    for page in ["Introduction", "Questions", "News"] {
        nodes.push(node(&format!("{page}.html"), Page, 0.3, page));
    }
    let mut map = SiteMap {
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    // No example among the pages: both templates are vetoed.
    assert_eq!(
        urls_of(&map, promoted(&map, &HashSet::new())),
        Vec::<&str>::new()
    );
    map.example = "http://h/class-Texture.html".into();
    assert_eq!(
        urls_of(&map, promoted(&map, &HashSet::new())),
        ["http://h/class-Utf.html"]
    );
    let rule = Templates::of(&map).rule().expect("a rule");
    assert_eq!(rule.templates, ["* Class Reference"]);
    // The user judged the class far below unlike the example: that vetoes the template.
    let unlike: HashSet<&str> = ["http://h/class-Low.html"].into_iter().collect();
    assert_eq!(urls_of(&map, promoted(&map, &unlike)), Vec::<&str>::new());
}

/// A page the user judged like the example is a target whatever its similarity
/// (`SiteMap::correct` runs first), so its heading's template takes the band pages that
/// share it: the user's verdict names a kind, not one page.
#[test]
fn a_liked_page_takes_the_band_pages_of_its_kind() {
    use NodeState::{Page, Target};
    let mut nodes = vec![node("index.html", Page, 0.4, "Guide")];
    for name in ["Texture", "Sprite"] {
        let h = format!("{name} Class Reference");
        nodes.push(node(&format!("class-{name}.html"), Target, 0.95, &h));
    }
    nodes.push(node("alias-Rgb.html", Page, 0.81, "Rgb Typedef Reference"));
    nodes.push(node("alias-Hsv.html", Page, 0.79, "Hsv Typedef Reference"));
    for name in ["Io", "Gl", "Al", "Xy"] {
        let h = format!("{name} Namespace Reference");
        nodes.push(node(&format!("ns-{name}.html"), Page, 0.5, &h));
    }
    let mut map = SiteMap {
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    assert!(promoted(&map, &HashSet::new()).is_empty());
    map.nodes[3].state = Target;
    assert_eq!(
        urls_of(&map, promoted(&map, &HashSet::new())),
        ["http://h/alias-Hsv.html"]
    );
}

/// The rule the pattern carries takes a page met later as learning took the map's: by its
/// heading's template, its URL's words the slots but for the site's kind words; only
/// templates two targets share and no unlike page has.
#[test]
fn the_rule_takes_pages_met_later_as_learning_took_the_maps() {
    use NodeState::Page;
    let mut nodes = classes_and_a_struct();
    nodes.push(node(
        "namespace-Gl.html",
        Page,
        0.5,
        "Gl Namespace Reference",
    ));
    let map = SiteMap {
        threshold: 0.875,
        nodes,
        ..SiteMap::default()
    };
    let Judgement {
        promoted: taken,
        rule,
        left_out,
        liked,
    } = judge(&map, &Verdicts::default());
    assert!(liked.is_empty());
    assert!(taken.is_empty() && left_out.is_empty());
    let rule = rule.expect("two classes share a template");
    assert!(rule.unlike.is_empty());
    assert_eq!(rule.templates, ["* Class Reference"]);
    assert!(rule.kind_words.iter().any(|w| w == "class"), "{rule:?}");
    assert!(rule.takes("http://h/class-Shader.html", "Shader Class Reference"));
    assert!(rule.takes("http://h/a/class-Shader.html?x=1", "Shader Class Reference"));
    // Another kind; a name its URL does not carry; a template one target has.
    assert!(!rule.takes("http://h/namespace-Sf.html", "Sf Namespace Reference"));
    assert!(!rule.takes("http://h/class-x.html", "Shader Class Reference"));
    assert!(!rule.takes("http://h/struct-Tag.html", "Tag Struct Reference"));
    assert!(!rule.takes("http://h/class-Shader.html", ""));
    // Read back from JSON as written.
    let json = serde_json::to_string(&rule).expect("json");
    assert!(json.contains("\"kindWords\""), "{json}");
    assert_eq!(serde_json::from_str::<HeadingRule>(&json).ok(), Some(rule));
    // A user's "unlike" on a class vetoes the template: no rule is left, and no other class
    // is left out with it.
    let verdicts = Verdicts {
        unlike: ["http://h/class-Font.html"].into_iter().collect(),
        ..Verdicts::default()
    };
    let j = judge(&map, &verdicts);
    assert_eq!((j.rule, j.left_out), (None, vec![]));
}

/// Doxygen with a tree view (assimp): header pages headed "… File Reference" pass θ with
/// the classes. The kinds list them apart; the kind judged unlike the example leaves out its
/// targets (not the example, nor a page judged like it), vetoes the band, and the rule
/// refuses such pages met later.
#[test]
fn a_kind_judged_unlike_leaves_out_its_targets() {
    use NodeState::{Page, Target};
    let mut nodes = classes_and_a_struct();
    for (name, score) in [("Importer", 0.90), ("Logger", 0.93), ("Mesh", 0.91)] {
        let h = format!("{name}.h File Reference");
        nodes.push(node(&format!("{name}_8h.html"), Target, score, &h));
    }
    nodes.push(node("Scene_8h.html", Page, 0.80, "Scene.h File Reference"));
    let map = SiteMap {
        threshold: 0.875,
        example: "http://h/class-Texture.html#top".into(),
        nodes,
        ..SiteMap::default()
    };
    let files = "* File Reference".to_string();
    let k = kinds(&map, &[], &[]);
    let summary: Vec<(&str, usize, bool, bool)> = k
        .iter()
        .map(|k| (k.template.as_str(), k.targets, k.example, k.unlike))
        .collect();
    assert_eq!(
        summary,
        [
            ("* Class Reference", 3, true, false),
            ("* File Reference", 3, false, false)
        ]
    );
    assert_eq!(
        k[1].samples,
        [
            "http://h/Logger_8h.html",
            "http://h/Mesh_8h.html",
            "http://h/Importer_8h.html"
        ],
        "the most similar, the middle one, the least"
    );
    // Without a verdict the band page Scene.h is taken for its heading.
    let none = judge(&map, &Verdicts::default());
    assert_eq!(urls_of(&map, none.promoted), ["http://h/Scene_8h.html"]);
    assert!(none.left_out.is_empty());
    let verdicts = Verdicts {
        like: ["http://h/Mesh_8h.html"].into_iter().collect(),
        unlike_kinds: [files.as_str()].into_iter().collect(),
        ..Verdicts::default()
    };
    let j = judge(&map, &verdicts);
    assert_eq!(
        urls_of(&map, j.left_out.clone()),
        ["http://h/Importer_8h.html", "http://h/Logger_8h.html"]
    );
    assert!(j.promoted.is_empty(), "the kind's band page is not taken");
    let rule = j.rule.expect("a rule");
    assert_eq!(rule.unlike, [files.as_str()]);
    assert_eq!(rule.templates, ["* Class Reference"]);
    assert!(rule.refuses("http://h/Camera_8h.html", "Camera.h File Reference"));
    assert!(!rule.refuses("http://h/class-Shader.html", "Shader Class Reference"));
    assert!(!rule.refuses("http://h/Camera_8h.html", ""));
    let json = serde_json::to_string(&rule).expect("json");
    assert_eq!(serde_json::from_str::<HeadingRule>(&json).ok(), Some(rule));
    // The kinds count the left-out targets and say which kind was judged.
    let left: Vec<String> = urls_of(&map, j.left_out);
    let k = kinds(&map, &left, std::slice::from_ref(&files));
    assert_eq!(
        (k[1].template.as_str(), k[1].targets, k[1].unlike),
        (files.as_str(), 3, true)
    );
    // The example's own kind judged unlike leaves the example in.
    assert_eq!(
        urls_of(&map, judged_unlike(&map, ["* Class Reference"]).left_out),
        ["http://h/class-Font.html", "http://h/class-Sprite.html"]
    );
}

#[test]
fn section_numbers_are_told_from_names_that_start_with_a_digit() {
    for h in [
        "2 gen_server Behaviour",
        "53.26. pg_index",
        "1.1. Introduction",
        "  14 Processes",
        "3.2 Überblick",
    ] {
        assert!(numbered(h), "{h:?}");
    }
    for h in [
        "lists",
        "3D Graphics",
        "2",
        "1. ",
        "1.2.",
        "2 + 2",
        "Chapter 5. Sets",
        "",
        "v1.2 Notes",
    ] {
        assert!(!numbered(h), "{h:?}");
    }
    assert!(is_template(NUMBERED));
    assert!(!is_template("##") && !is_template("# *"));
}

/// Erlang's documentation (erl_docgen): a module page is headed by its name alone, a
/// user's-guide chapter in the same directory by its section number and title, and both
/// pass θ. The chapters' words make a kind of their own each (or none), their number makes
/// one kind: judged unlike, it leaves out every chapter, vetoes the band, and the rule
/// refuses numbered pages met later.
#[test]
fn numbered_headings_are_one_kind_whatever_their_words() {
    use NodeState::{Page, Target};
    let mut nodes = vec![node("index.html", Page, 0.3, "Reference Manual")];
    for name in ["lists", "maps", "string", "array"] {
        nodes.push(node(&format!("{name}.html"), Target, 0.97, name));
    }
    for (url, h) in [
        ("gen_server_concepts.html", "2 gen_server Behaviour"),
        ("statem.html", "3 gen_statem Behaviour"),
        ("maps_chapter.html", "5 Maps"),
        ("logger_chapter.html", "3 Logging"),
    ] {
        nodes.push(node(url, Target, 0.93, h));
    }
    nodes.push(node("processes.html", Page, 0.86, "14 Processes"));
    let map = SiteMap {
        threshold: 0.875,
        example: "http://h/lists.html".into(),
        nodes,
        ..SiteMap::default()
    };
    let k = kinds(&map, &[], &[]);
    let summary: Vec<(&str, usize, bool)> = k
        .iter()
        .map(|k| (k.template.as_str(), k.targets, k.example))
        .collect();
    assert_eq!(summary, [(NUMBERED, 4, false), ("* Behaviour", 2, false)]);
    let j = judged_unlike(&map, [NUMBERED]);
    assert_eq!(
        urls_of(&map, j.left_out.clone()),
        [
            "http://h/gen_server_concepts.html",
            "http://h/logger_chapter.html",
            "http://h/maps_chapter.html",
            "http://h/statem.html"
        ]
    );
    assert!(j.promoted.is_empty());
    let rule = j.rule.expect("a rule");
    assert_eq!(rule.unlike, [NUMBERED]);
    assert!(rule.refuses("http://h/efficiency.html", "7 Efficiency Guide"));
    assert!(!rule.refuses("http://h/queue.html", "queue"));
    assert!(!rule.takes("http://h/sup_princ.html", "5 Supervisor Behaviour"));
    // Left-out targets are still counted, and the kind says it was judged.
    let left = urls_of(&map, j.left_out);
    let k = kinds(&map, &left, &[NUMBERED.to_string()]);
    assert_eq!(
        (k[0].template.as_str(), k[0].targets, k[0].unlike),
        (NUMBERED, 4, true)
    );
    // Without the verdict nothing numbered is refused.
    let plain = judge(&map, &Verdicts::default()).rule;
    assert!(plain.is_none_or(|r| !r.refuses("http://h/x.html", "7 Efficiency Guide")));
}

#[test]
fn manual_sections_are_told_from_other_parentheses() {
    let sections =
        |h: &str| -> Vec<String> { manual_sections(h).into_iter().map(|(_, s)| s).collect() };
    assert_eq!(
        manual_sections("git-commit(1) Manual Page"),
        [(10, "(1)".into())]
    );
    assert_eq!(sections("LS(1)"), ["(1)"]);
    assert_eq!(sections("printf(3P) — POSIX"), ["(3p)"]);
    assert_eq!(sections("openssl-req(1ssl)"), ["(1ssl)"]);
    assert_eq!(sections("crontab(1) and crontab(5)"), ["(1)", "(5)"]);
    for h in [
        "Chapter (1)",
        "f(int)",
        "v(2.0)",
        "x(1)y",
        "(1) Intro",
        "size(12345678)",
        "Größe(",
        "a(1",
        "",
    ] {
        assert!(sections(h).is_empty(), "{h:?}");
    }
    let t = |h: &str, n: &[&str], sections| {
        template(h, &names(n), &names(&["manual", "page", "git"]), sections)
    };
    // The section names the kind however many headings carry it.
    assert_eq!(
        t("gitattributes(5) Manual Page", &["gitattributes"], true),
        Some("* (5) Manual Page".into())
    );
    assert_eq!(
        t("git-commit(1) Manual Page", &["commit"], true),
        Some("git * (1) Manual Page".into())
    );
    // Rules learned before sections were read: only words, here all common.
    assert_eq!(
        t("gitattributes(5) Manual Page", &["gitattributes"], false),
        None
    );
    assert!(is_template("* (5) Manual Page") && is_template("* (3pm)"));
    for bad in ["* (int)", "* (1x2y3z4)", "* ()", "* (1) ", "*(1)"] {
        assert!(!is_template(bad), "{bad:?}");
    }
}

/// AsciiDoc's manual pages (Git's): every page is built alike and headed "NAME(N) Manual
/// Page". With a command's page as the example, learning proposes to leave out the other
/// sections' pages (file formats, overviews), the pattern's rule refuses such pages met
/// later, and the user can take a section back.
#[test]
fn manual_pages_of_another_section_than_the_examples_are_proposed_unlike() {
    use NodeState::{Page, Target};
    let mut nodes = vec![node("index.html", Page, 0.5, "git(1) Manual Page")];
    for name in ["git-commit", "git-add", "git-log", "gitk"] {
        nodes.push(node(
            &format!("{name}.html"),
            Target,
            0.95,
            &format!("{name}(1) Manual Page"),
        ));
    }
    for (name, section) in [
        ("gitattributes", 5),
        ("githooks", 5),
        ("gitcli", 7),
        ("gitglossary", 7),
    ] {
        nodes.push(node(
            &format!("{name}.html"),
            Target,
            0.93,
            &format!("{name}({section}) Manual Page"),
        ));
    }
    nodes.push(node("howto.html", Page, 0.4, "How to use git daemon"));
    let map = SiteMap {
        threshold: 0.875,
        example: "http://h/git-commit.html".into(),
        nodes,
        ..SiteMap::default()
    };
    let proposed = other_sections(&map);
    assert_eq!(proposed, ["* (5) Manual Page", "* (7) Manual Page"]);
    let j = judged_unlike(&map, proposed.iter().map(String::as_str));
    assert_eq!(
        urls_of(&map, j.left_out.clone()),
        [
            "http://h/gitattributes.html",
            "http://h/gitcli.html",
            "http://h/gitglossary.html",
            "http://h/githooks.html"
        ]
    );
    let rule = j.rule.expect("a rule");
    assert!(rule.sections);
    assert!(rule.refuses("http://h/gitignore.html", "gitignore(5) Manual Page"));
    assert!(!rule.refuses("http://h/git-push.html", "git-push(1) Manual Page"));
    assert!(rule.takes("http://h/git-push.html", "git-push(1) Manual Page"));
    // The kinds list them left out, counted, beside the example's.
    let left = urls_of(&map, j.left_out);
    let k = kinds(&map, &left, &proposed);
    let summary: Vec<(&str, usize, bool, bool)> = k
        .iter()
        .map(|k| (k.template.as_str(), k.targets, k.example, k.unlike))
        .collect();
    assert_eq!(
        summary,
        [
            ("* (1) Manual Page", 4, true, false),
            ("* (5) Manual Page", 2, false, true),
            ("* (7) Manual Page", 2, false, true)
        ]
    );
    let sections: Vec<Option<&str>> = k.iter().map(|k| k.section.as_deref()).collect();
    assert_eq!(sections, [Some("1"), Some("5"), Some("7")]);
    // An example without a section proposes nothing.
    let plain = SiteMap {
        example: "http://h/howto.html".into(),
        ..map
    };
    assert!(other_sections(&plain).is_empty());
}

/// ocamldoc (LablGTK): a class is headed "Class *", a virtual class "Class virtual *", and
/// virtual classes score 0.66–0.86 against a plain one. The kinds below θ list them; judged
/// like the example, every page of the kind is a target whatever its similarity (not one
/// judged unlike by itself), and the rule takes such pages met later.
#[test]
fn a_kind_below_theta_judged_like_is_taken_whatever_its_similarity() {
    use NodeState::{Page, Target};
    let mut nodes = vec![node("index.html", Page, 0.3, "LablGTK")];
    for (m, name, s) in [
        ("Gw", "window", 1.0),
        ("Gb", "button", 0.95),
        ("Gl", "label", 0.9),
    ] {
        let h = format!("Class {m}.{name}");
        nodes.push(node(&format!("{m}.{name}-c.html"), Target, s, &h));
    }
    for (m, name, s) in [
        ("Ga", "action_group", 0.86),
        ("Gs", "ml_signals", 0.76),
        ("Gf", "focus", 0.66),
    ] {
        let h = format!("Class virtual {m}.{name}");
        nodes.push(node(&format!("{m}.{name}-c.html"), Page, s, &h));
    }
    for name in ["Mw", "Mo", "Mt"] {
        nodes.push(node(
            &format!("{name}.html"),
            Page,
            0.7,
            &format!("Module {name}"),
        ));
    }
    nodes.push(node("Gx.box-c.html", Page, 0.6, "Class Gx.box"));
    // Other pages, so that "Class" is not on most headings (the site's name).
    for page in [
        "Intro", "Guide", "News", "Faq", "Build", "Authors", "Changes", "Terms",
    ] {
        nodes.push(node(&format!("{page}.html"), Page, 0.3, page));
    }
    let map = SiteMap {
        threshold: 0.875,
        example: "http://h/Gw.window-c.html".into(),
        nodes,
        ..SiteMap::default()
    };
    let below = kinds_below(&map, &[], |_| false);
    let summary: Vec<(&str, usize, bool, bool)> = below
        .iter()
        .map(|k| (k.template.as_str(), k.pages, k.example, k.like))
        .collect();
    assert_eq!(
        summary,
        [
            ("Class virtual *", 3, false, false),
            ("Module *", 3, false, false)
        ]
    );
    assert_eq!(below[0].best, 0.86);
    assert_eq!(below[0].samples[0], "http://h/Ga.action_group-c.html");
    let focus = "http://h/Gf.focus-c.html";
    let verdicts = Verdicts {
        like_kinds: ["Class virtual *"].into_iter().collect(),
        unlike: [focus].into_iter().collect(),
        ..Verdicts::default()
    };
    let j = judge(&map, &verdicts);
    assert_eq!(
        urls_of(&map, j.liked),
        [
            "http://h/Ga.action_group-c.html",
            "http://h/Gs.ml_signals-c.html"
        ]
    );
    let rule = j.rule.expect("a rule");
    assert_eq!(rule.like, ["Class virtual *"]);
    assert!(rule.likes(
        "http://h/GEdit.combo_box-c.html",
        "Class virtual GEdit.combo_box"
    ));
    assert!(!rule.likes("http://h/GEdit.html", "Module GEdit"));
    // Listed as judged, with the pages it took; a kind judged like is listed even when
    // fewer than two pages are left of it.
    let liked = kinds_below(
        &map,
        &["Class virtual *".to_string(), "Struct *".to_string()],
        |_| false,
    );
    assert!(
        liked
            .iter()
            .any(|k| k.template == "Class virtual *" && k.like && k.pages == 3)
    );
    assert!(
        liked
            .iter()
            .any(|k| k.template == "Struct *" && k.like && k.pages == 0)
    );
    // The example's kind below θ is marked as such once two pages hold it.
    let mut more = map.clone();
    more.nodes
        .push(node("Gy.tag-c.html", Page, 0.62, "Class Gy.tag"));
    let k = kinds_below(&more, &[], |_| false);
    assert!(
        k.iter()
            .any(|k| k.template == "Class *" && k.example && k.pages == 2),
        "{k:?}"
    );
    // Pages a verdict on their language or directory left out are no kind to take: two of
    // the three modules, and the kind is gone (one page is no kind).
    let left_out = kinds_below(&more, &[], |n| {
        n.heading.starts_with("Module") && !n.url.ends_with("Mw.html")
    });
    assert!(
        !left_out.iter().any(|k| k.template == "Module *"),
        "{left_out:?}"
    );
    assert!(left_out.iter().any(|k| k.template == "Class virtual *"));
    assert!(Templates::of(&map).names_kind("Class virtual *"));
    assert!(
        !Templates::of(&map).names_kind("Struct *") && !Templates::of(&map).names_kind(NUMBERED)
    );
}

/// [`judge`] with the kinds `unlike` judged unlike the example, and no other verdict.
fn judged_unlike<'a>(map: &SiteMap, unlike: impl IntoIterator<Item = &'a str>) -> Judgement {
    let verdicts = Verdicts {
        unlike_kinds: unlike.into_iter().collect(),
        ..Verdicts::default()
    };
    judge(map, &verdicts)
}

fn urls_of(map: &SiteMap, ids: Vec<u32>) -> Vec<String> {
    ids.iter()
        .map(|&i| map.nodes[i as usize].url.clone())
        .collect()
}
