#![no_main]
//! See `exemplar_testkit::checks::check_tree_json`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| exemplar_testkit::checks::check_tree_json(data));
