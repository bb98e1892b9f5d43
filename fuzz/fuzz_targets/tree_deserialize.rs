#![no_main]
//! See `exemplar_fuzz::check_tree_json`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| exemplar_fuzz::check_tree_json(data));
