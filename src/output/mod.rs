//! Output: result files and the tables printed on stdout.

pub mod csv_text;
pub mod describe;
pub mod read_dir;
pub mod read_run;
pub mod read_sweep;
pub mod run_files;
pub mod run_tables;
pub mod sweep_files;
pub mod sweep_table;
pub mod text_table;
