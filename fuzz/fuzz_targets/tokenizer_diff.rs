#![no_main]
// `sink.rs`, `builder.rs` and `tokenizer.rs` are included whole; the fuzz target uses part of them.
#![allow(dead_code)]
//! Our HTML tokenizer against html5ever's, and our tree builder against html5ever's wherever it
//! does not give up: the same tokens and the same built tree for any input, with the product's
//! depth-guard cap and a tiny one (`src/dom/tokenizer_diff.rs`).
use libfuzzer_sys::fuzz_target;

#[path = "../../src/dom/builder.rs"]
mod builder;
#[path = "../../src/dom/sink.rs"]
mod sink;
#[path = "../../src/dom/tokenizer.rs"]
mod tokenizer;
/// What the tokenizer uses of the crate's `dom::text`.
mod text {
    pub use exemplar::dom::text::pack_bytes;
}
#[path = "../../src/dom/tokenizer_diff.rs"]
mod tokenizer_diff;

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    for cap in [2048, 3] {
        if let Err(e) = tokenizer_diff::compare(&html, 1 << 16, cap) {
            panic!("{e}\ninput: {html:?}");
        }
    }
});
