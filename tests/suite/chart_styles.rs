//! Timelines of many services (issue 20): no two series of a panel share a colour and a dash
//! pattern, the services that matter are drawn first, and the ones left out are named.

use crate::support::*;
use cascade::chart::timeline::Timeline;

/// A chain web → s0 → s1 → … → s11, every service calling the next; a fault slows s9.
fn chain_of_twelve() -> String {
    let mut toml = String::from(
        "[scenario]\nname = \"twelve\"\nduration = \"6s\"\nwarmup = \"1s\"\n\n\
         [[client]]\nname = \"web\"\ntarget = \"s0\"\nrate = 50\n\n",
    );
    for i in 0..12 {
        toml.push_str(&format!(
            "[[service]]\nname = \"s{i}\"\nworkers = 50\nwork = \"1ms\"\n"
        ));
        if i < 11 {
            toml.push_str(&format!("calls = [ {{ to = \"s{}\" }} ]\n", i + 1));
        }
        toml.push('\n');
    }
    toml.push_str(
        "[[fault]]\nkind = \"latency\"\ntarget = \"s9\"\nadd = \"5ms\"\nstart = \"3s\"\nend = \"4s\"\n",
    );
    toml
}

#[test]
fn a_twelve_service_timeline_repeats_no_style_and_names_what_it_leaves_out() {
    let dir = scratch("chart-twelve");
    let file = dir.join("twelve.toml");
    std::fs::write(&file, chain_of_twelve()).unwrap();
    let out = dir.join("out");
    cascade(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--chart",
        ],
        0,
    );
    let runs = cascade::output::read_run::read_run_with_variants(&out).unwrap();
    let t = Timeline::from_run(&runs[0]);
    let panels = std::iter::once(&t.load).chain(&t.panels);
    for p in panels {
        let styles: Vec<_> = p.lines.iter().map(|l| (l.color, l.dash)).collect();
        for (i, s) in styles.iter().enumerate() {
            assert!(
                !styles[..i].contains(s),
                "panel {}: {} repeats the style of an earlier series",
                p.heading,
                p.lines[i].label
            );
        }
    }
    // 2 client lines and 12 edges fit the load panel's 16.
    assert_eq!(t.load.lines.len(), 14);
    assert!(t.load.folded.is_empty());
    // Per service: the faulted s9 first, 8 drawn, 4 named as left out.
    let queue = (t.panels.iter())
        .find(|p| p.heading == "Queue length (mean)")
        .unwrap();
    assert_eq!(queue.lines.len(), 8);
    assert_eq!(queue.lines[0].label, "s9");
    assert_eq!(queue.folded.len(), 4);
    let drawn: Vec<&str> = queue.lines.iter().map(|l| l.label.as_str()).collect();
    for f in &queue.folded {
        assert!(!drawn.contains(&f.as_str()), "{f} both drawn and folded");
    }
    let svg = read(&out.join("charts").join("timeline.svg"));
    assert!(
        svg.contains("not drawn (4):"),
        "the legend names the left-out services"
    );
}
