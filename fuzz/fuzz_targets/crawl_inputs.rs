#![no_main]
//! See `exemplar_fuzz::check_crawl_inputs`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| exemplar_fuzz::check_crawl_inputs(data));
