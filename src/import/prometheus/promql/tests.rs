//! The PromQL reader's unit tests: each shape read into its tree, and each refusal.

use super::*;

fn sel(name: &str, range: Option<u64>) -> Expr {
    Expr::Sel(Selector {
        name: name.into(),
        matchers: Vec::new(),
        range_ns: range,
        shifted: None,
    })
}

#[test]
fn durations_as_prometheus_writes_them() {
    assert_eq!(duration("5m"), Some(300_000_000_000));
    assert_eq!(duration("1h30m"), Some(5_400_000_000_000));
    assert_eq!(duration("250ms"), Some(250_000_000));
    assert_eq!(duration("1y"), Some(365 * 86_400 * 1_000_000_000));
    assert_eq!(duration("0"), Some(0));
    assert_eq!(duration("30m1h"), None, "units largest first");
    assert_eq!(duration("5"), None);
    assert_eq!(duration("5 m"), None);
    assert_eq!(duration("1.5m"), None);
    assert_eq!(duration(""), None);
}

#[test]
fn precedence_and_aggregations() {
    let e = parse("sum(rate(a[5m])) / sum by (job) (rate(b[5m])) > 0.1").unwrap();
    let Expr::Bin { op, lhs, rhs, .. } = e else {
        panic!()
    };
    assert_eq!((op.as_str(), *rhs), (">", Expr::Num(0.1)));
    let Expr::Bin {
        op, lhs: a, rhs: b, ..
    } = *lhs
    else {
        panic!()
    };
    assert_eq!(op, "/");
    let ns = 300_000_000_000;
    assert_eq!(
        *a,
        Expr::Agg {
            op: "sum".into(),
            grouping: None,
            args: vec![Expr::Call("rate".into(), vec![sel("a", Some(ns))])]
        }
    );
    assert_eq!(
        *b,
        Expr::Agg {
            op: "sum".into(),
            grouping: Some((false, vec!["job".into()])),
            args: vec![Expr::Call("rate".into(), vec![sel("b", Some(ns))])]
        }
    );
    // The grouping may follow the arguments.
    let e = parse("sum(rate(h_bucket[1m])) by (le)").unwrap();
    assert!(matches!(e, Expr::Agg { grouping: Some((false, ref l)), .. } if l == &["le"]));
}

#[test]
fn selectors_keep_their_matchers_and_modifiers() {
    let e = parse(r#"up{job="api", instance!~"10\\..*"} offset 5m"#).unwrap();
    let Expr::Sel(s) = e else { panic!() };
    assert_eq!(s.key(), r#"up{instance!~"10\\..*",job="api"}"#);
    assert_eq!(s.shifted, Some("`offset`"));
    let e = parse("a > bool 1").unwrap();
    assert!(matches!(e, Expr::Bin { modified: true, .. }));
    let e = parse("a > on(job) b").unwrap();
    assert!(matches!(e, Expr::Bin { modified: true, .. }));
    assert!(parse("rate(a[5m:1m])").is_ok());
    assert!(parse("a > ").is_err());
    assert!(parse("sum(a").is_err());
    assert!(parse(r#"a{b="c}"#).is_err());
    assert!(parse("a[5x]").is_err());
    assert!(parse("a b").is_err());
    // Deep nesting is refused, not a stack overflow.
    let deep = format!("{}a{}", "(".repeat(100_000), ")".repeat(100_000));
    assert_eq!(parse(&deep).unwrap_err(), "nested more than 200 deep");
    assert!(parse(&"-".repeat(100_000)).is_err());
    assert!(parse(&format!("{}a", "a^".repeat(100_000))).is_err());
    let chain = format!("a{}", " + a".repeat(100_000));
    assert_eq!(parse(&chain).unwrap_err(), "more than 1000 operators");
}
