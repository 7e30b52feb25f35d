//! Output: the result files, written and read back (charts and the report read them here),
//! the tables printed on stdout, and descriptions of policies and faults. It uses no consumer
//! after it: `chart` and `report` use `output`, never the reverse.

pub mod alert_table;
pub mod csv_text;
pub mod describe;
pub mod read_dir;
pub mod read_run;
pub mod read_sweep;
pub mod read_tune;
pub mod run_files;
pub mod run_tables;
pub mod sweep_files;
pub mod sweep_table;
pub mod text_table;
pub mod units;
