#![no_main]
//! See `exemplar_testkit::checks::check_saved_state`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| exemplar_testkit::checks::check_saved_state(data));
