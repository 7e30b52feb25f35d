//! The integration tests, as one test binary (as ripgrep's are): the suite links once instead
//! of once per file, and every module shares the helpers in `support`.

mod support;

mod adaptive;
mod all_features;
mod bad_input;
mod baseline;
mod branches;
mod charts;
mod check;
mod cli_tools;
mod deploy;
mod determinism;
mod diff;
mod divergence;
mod docs;
mod duration_hints;
mod fanout;
mod faults;
mod files;
mod finite;
mod fuzz;
mod generator;
mod golden;
mod golden_diff;
mod init;
mod layering;
mod model;
mod operations;
mod pace;
mod policies;
mod preflight;
mod queueing;
mod recovery;
mod report;
mod run_metric;
mod seed_operations;
mod shards;
mod sweep;
mod sweep_variant;
mod trace;
mod trace_filters;
mod trust;
mod variants;
