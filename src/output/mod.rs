//! Output: result files and the tables printed on stdout.

pub mod describe;
pub mod run_files;
pub mod sweep_files;
pub mod sweep_table;
pub mod table;
