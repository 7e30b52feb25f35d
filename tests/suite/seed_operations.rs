//! The seeds' "one slow operation starves a shared pool" scenarios of `scenarios/` (issue 14):
//! seed 003's login and analytics, seed 000's product page and shipping quote. Each is a gate
//! that holds with its partition, fails without it (the `--set`s its header documents, which
//! are exactly its `shared-pool` variant), and still recovers either way.

use crate::support::golden::repo;
use crate::support::*;

/// One committed scenario whose protection is a partition of one operation.
struct Gate {
    file: &'static str,
    /// The seed document its `# source:` header names.
    seed: &'static str,
    /// The `--set`s that remove the partition, as the header documents them.
    unprotect: [&'static str; 2],
    /// The expectations that hold only with the partition.
    protected: &'static [&'static str],
    /// Those that hold either way (the fault's recovery; calm-time ones).
    either_way: &'static [&'static str],
}

const LOGIN_ANALYTICS: Gate = Gate {
    file: "scenarios/login-analytics.toml",
    seed: "003_d16c45dd23bb18b2.txt",
    unprotect: [
        "service.api.operation.analytics.workers=10",
        "service.api.operation.analytics.overflow=queue",
    ],
    protected: &[
        "window.slow-events.client.users.op.login.success_ratio >= 0.999",
        "window.slow-events.client.users.op.login.latency_p99_ms <= 20",
        "window.slow-events.service.api.op.analytics.utilization <= 0.3",
    ],
    either_way: &["fault.0.recovered == 1"],
};

const SHIPPING_PRODUCT: Gate = Gate {
    file: "scenarios/shipping-product.toml",
    seed: "000_d019d6b265ca68f3.txt",
    unprotect: [
        "service.shop.operation.shipping.workers=64",
        "service.shop.operation.shipping.overflow=queue",
    ],
    protected: &[
        "window.slow-shipping.client.browsers.op.product.success_ratio >= 0.999",
        "window.slow-shipping.client.browsers.op.product.latency_p99_ms <= 250",
        // Pages answered degraded, not failed: the estimate left out, and said so.
        "window.slow-shipping.client.browsers.op.product.degraded >= 3800",
        "window.slow-shipping.service.shop.op.shipping.utilization <= 0.125",
    ],
    either_way: &[
        "window.calm.client.browsers.op.product.degraded <= 50",
        "fault.0.recovered == 1",
    ],
};

impl Gate {
    fn path(&self) -> String {
        repo().join(self.file).to_str().unwrap().to_string()
    }

    /// `cascade check` of the scenario, with the partition removed when `unprotected`.
    fn check(&self, unprotected: bool, code: i32) -> String {
        let path = self.path();
        let mut args = vec!["check", path.as_str()];
        if unprotected {
            for set in &self.unprotect {
                args.extend(["--set", set]);
            }
        }
        String::from_utf8_lossy(&cascade(&args, code).stdout).into_owned()
    }

    /// The header says where the scenario comes from and how to undo its protection.
    fn assert_documented(&self) {
        let text = read(&repo().join(self.file));
        let header: String = text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| l.trim_start_matches('#').trim())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            text.starts_with("# source: seed 0") && header.contains(self.seed),
            "{}: header does not name {}",
            self.file,
            self.seed
        );
        for set in &self.unprotect {
            assert!(
                header.contains(&format!("--set {set}")),
                "{}: header does not document --set {set}",
                self.file
            );
        }
    }

    fn assert_holds_and_fails_without_its_partition(&self) {
        self.assert_documented();
        let with = self.check(false, 0);
        // Each protected claim, each either-way one, and the comparison with the variant.
        let all = self.protected.len() + self.either_way.len() + 1;
        assert!(with.contains(&format!("{all} passed, 0 failed")), "{with}");
        let without = self.check(true, 1);
        // The protected claims fail, and so does the comparison with the shared-pool
        // variant, which the base now equals.
        let counts = format!(
            "{} passed, {} failed",
            self.either_way.len(),
            self.protected.len() + 1
        );
        assert!(without.contains(&counts), "{without}");
        let line = |expectation: &str| {
            without
                .lines()
                .find(|l| l.contains(expectation))
                .unwrap_or_else(|| panic!("no line for {expectation}:\n{without}"))
                .to_string()
        };
        for expectation in self.protected {
            let line = line(expectation);
            assert!(line.starts_with('✗'), "should fail unprotected: {line}");
        }
        for expectation in self.either_way {
            let line = line(expectation);
            assert!(line.starts_with('✓'), "should hold either way: {line}");
        }
    }

    /// The `shared-pool` variant is exactly the documented `--set`s: same seed, same draws,
    /// byte-identical summaries.
    fn assert_variant_is_the_documented_set(&self, tag: &str) {
        let dir = scratch(&format!("seed-ops-{tag}"));
        let (base, set) = (dir.join("base"), dir.join("set"));
        let path = self.path();
        cascade(
            &["run", &path, "--quiet", "--out", base.to_str().unwrap()],
            0,
        );
        let mut args = vec![
            "run",
            path.as_str(),
            "--quiet",
            "--out",
            set.to_str().unwrap(),
        ];
        for s in &self.unprotect {
            args.extend(["--set", s]);
        }
        cascade(&args, 0);
        let variant = read(&base.join("shared-pool/summary.json"));
        assert_eq!(variant, read(&set.join("summary.json")));
        assert_ne!(variant, read(&base.join("summary.json")));
    }
}

#[test]
fn login_stays_fast_while_analytics_is_slow_only_with_analytics_partitioned() {
    LOGIN_ANALYTICS.assert_holds_and_fails_without_its_partition();
}

#[test]
fn product_pages_keep_their_slots_while_shipping_is_slow_only_with_shipping_partitioned() {
    SHIPPING_PRODUCT.assert_holds_and_fails_without_its_partition();
}

#[test]
fn each_seed_scenarios_shared_pool_variant_is_the_set_its_header_documents() {
    LOGIN_ANALYTICS.assert_variant_is_the_documented_set("login");
    SHIPPING_PRODUCT.assert_variant_is_the_documented_set("shipping");
}
