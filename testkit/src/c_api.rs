//! A C library's interface pages documented like SQLite's, served by a test: the example alone
//! reaches the default θ ([`exemplar_core::pattern::lowered_threshold`]).

/// Interface pages of a C library documented like SQLite's: content straight under `body`, no
/// layout around it; the example (`f0`) has every optional section, the others one to three,
/// so that the example alone reaches the default θ. Four more in `/ext/` (an extension's
/// interface), a list, thirty pages of prose and the home page.
pub fn site(path: &str) -> exemplar_native::serve::Response {
    use exemplar_native::serve::Response;
    const SECTIONS: [&str; 6] = [
        "<dl><dt><a href='#x'>flag</a></dt><dd>What it does.</dd></dl>",
        "<h3>Notes</h3>",
        "<ul><li><b>One</b> case.</li></ul>",
        "<table><tr><th>Code</th><td>Meaning</td></tr></table>",
        "<ol><li>First step.</li></ol>",
        "<h4>See also</h4>",
    ];
    let page = |title: &str, body: &str| {
        Response::html(format!(
            "<!DOCTYPE html><html><head><title>{title}</title></head><body><div class=nav>\
             <a href='/'>Home</a> <a href='/docs.html'>Docs</a></div>{body}</body></html>"
        ))
    };
    let interface = |i: usize, sections: usize| {
        page(
            &format!("f{i}"),
            &format!(
                "<h2>C Interface</h2><h2>Function {i}</h2><blockquote><pre>int f{i}(int);</pre>\
                 </blockquote><p>About f{i}.</p>{}<p>See <a href='/c3ref/list.html'>the list</a>.</p>",
                SECTIONS[..sections].concat()
            ),
        )
    };
    let number = |prefix: &str| {
        path.strip_prefix(prefix)?
            .strip_suffix(".html")?
            .parse::<usize>()
            .ok()
    };
    match path {
        "/" => page(
            "Home",
            "<h1>Home</h1><p><a href='docs.html'>Documentation</a></p>",
        ),
        "/docs.html" => {
            let docs: String = (0..30)
                .map(|j| format!("<li><a href='doc{j}.html'>doc {j}</a></li>"))
                .collect();
            let ext: String = (0..4)
                .map(|i| format!("<li><a href='ext/e{i}.html'>e{i}</a></li>"))
                .collect();
            page(
                "Docs",
                &format!(
                    "<h1>Docs</h1><ul>{docs}</ul><p><a href='c3ref/list.html'>C API</a></p><ul>{ext}</ul>"
                ),
            )
        }
        "/c3ref/list.html" => {
            let links: String = (0..24)
                .map(|i| format!("<li><a href='f{i}.html'>f{i}</a></li>"))
                .collect();
            page("List", &format!("<h1>Functions</h1><ul>{links}</ul>"))
        }
        _ => match (number("/c3ref/f"), number("/ext/e"), number("/doc")) {
            (Some(i), _, _) if i < 24 => interface(i, if i == 0 { 6 } else { 1 + i % 3 }),
            (_, Some(i), _) if i < 4 => interface(100 + i, 1 + i % 3),
            (_, _, Some(j)) if j < 30 => {
                let paras: String = (0..=j % 4)
                    .map(|p| format!("<p>Paragraph {p} of page {j}.</p>"))
                    .collect();
                page(
                    &format!("Doc {j}"),
                    &format!("<h1>Doc {j}</h1>{paras}<div class=box><p>Box.</p></div>"),
                )
            }
            _ => Response::not_found(),
        },
    }
}
