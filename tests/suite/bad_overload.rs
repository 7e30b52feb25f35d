//! Bad overload physics (`[service.contention]`, `reject_work`, `after_work`): exit 2 naming
//! the field, as every bad input does (`bad_input.rs`).

use crate::bad_input::{Case, GOOD};

fn with_db(keys: &str) -> String {
    GOOD.replace("work = \"3ms\"", &format!("work = \"3ms\"\n{keys}"))
}

#[test]
fn contention_laws_and_tables_are_checked() {
    let c = Case::new("contention");
    c.rejects(
        &with_db("contention = { k = -0.1, knee = 1 }"),
        &["scenario.toml:23", "service.db.contention.k", "at least 0"],
    );
    c.rejects(
        &with_db("contention = { k = 0.1, knee = 5 }"),
        &[
            "service.db.contention.knee",
            "between 0 and the instance's 4 workers",
        ],
    );
    c.rejects(
        &with_db("contention = { k = 0.1, knee = -1 }"),
        &["service.db.contention.knee"],
    );
    c.rejects(
        &with_db("contention = { table = [[4, 1.0], [2, 2.0]] }"),
        &["service.db.contention.table", "point 1", "increase"],
    );
    c.rejects(
        &with_db("contention = { table = [[0, 1.0], [4, 0.5]] }"),
        &["service.db.contention.table", "point 1", "below 1"],
    );
    c.rejects(
        &with_db("contention = { table = [] }"),
        &["service.db.contention.table", "no point"],
    );
    c.rejects(
        &with_db("contention = { table = [[0, 1.0]], k = 1 }"),
        &["service.db.contention.table", "leave out `k`"],
    );
    c.rejects(
        &with_db("contention = { counts = \"working\" }"),
        &["service.db.contention", "needs a law"],
    );
    c.rejects(
        &with_db("contention = { k = 0.1, counts = \"threads\" }"),
        &["service.db.contention.counts", "held", "working"],
    );
}

#[test]
fn refusal_and_after_work_are_checked() {
    let c = Case::new("overload-work");
    c.rejects(
        &with_db("reject_work = \"-2ms\""),
        &["scenario.toml:23", "service.db.reject_work"],
    );
    c.rejects(
        &with_db("after_work_on_failure = true"),
        &["service.db.after_work_on_failure", "give `after_work` too"],
    );
    c.rejects(
        &with_db("after_work = \"-1ms\""),
        &["service.db.after_work"],
    );
}
