#![no_main]
//! Our HTML tokenizer against html5ever's, and our tree builder against html5ever's wherever it
//! does not give up: the same tokens and the same built tree for any input, with the product's
//! depth-guard cap and a tiny one (`exemplar_html::tokenizer_diff`, feature `tokenizer-diff`).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    for cap in [2048, 3] {
        if let Err(e) = exemplar_html::tokenizer_diff::compare(&html, 1 << 16, cap) {
            panic!("{e}\ninput: {html:?}");
        }
    }
});
