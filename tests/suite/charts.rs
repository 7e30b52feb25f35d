//! `cascade chart`: every chart kind renders from small runs and sweep files, including empty
//! and single-point data; the SVGs are well-formed and titled; reruns give identical bytes.

use crate::support::*;
use std::path::Path;

fn chart(dir: &Path, png: bool) -> String {
    let mut args = vec!["chart", dir.to_str().unwrap()];
    if png {
        args.push("--png");
    }
    String::from_utf8(cascade(&args, 0).stdout).unwrap()
}

/// Reads a chart, checks it parses as XML, and that it holds every `want` text.
fn svg(dir: &Path, file: &str, want: &[&str]) -> String {
    let text = read(&dir.join("charts").join(file));
    assert_well_formed(file, &text);
    for w in want {
        assert!(text.contains(w), "{file} lacks {w:?}");
    }
    text
}

#[test]
fn a_run_gets_a_timeline_per_variant_and_latency_curves() {
    let dir = scratch("chart-run");
    small_run(&dir);
    let printed = chart(&dir, true);
    assert!(printed.contains("timeline.svg"), "{printed}");
    let t = svg(
        &dir,
        "timeline.svg",
        &[
            "small: timeline",
            "web offered",
            "web goodput",
            "api→db attempts",
            "Faults",
            "F0 outage on db",
            "Breakers open",
            "api→db",
            "Queue length (mean)",
            "Utilization",
            "p99 latency (ms)",
            "time since start (s)",
        ],
    );
    // Okabe–Ito blue for the first series, vermillion for the fault.
    assert!(t.contains("#0072B2") || t.contains("#0072b2"), "palette");
    svg(
        &dir,
        "timeline-no-retry.svg",
        &["small — variant no-retry: timeline"],
    );
    svg(
        &dir,
        "latency-web.svg",
        &[
            "latency distribution of web",
            "p99.9",
            "base",
            "no-retry",
            "latency (log scale)",
        ],
    );
    for png in ["timeline.png", "timeline-no-retry.png", "latency-web.png"] {
        let bytes = std::fs::read(dir.join("charts").join(png)).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{png} is a PNG");
        // The header chunk: the size the chart is drawn at (as its SVG says), 8-bit RGB.
        assert_eq!(&bytes[12..16], b"IHDR", "{png}");
        let size = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
        let svg =
            std::fs::read_to_string(dir.join("charts").join(png.replace(".png", ".svg"))).unwrap();
        let (w, h) = (size(16), size(20));
        assert!(
            svg.contains(&format!("width=\"{w}\"")) && svg.contains(&format!("height=\"{h}\"")),
            "{png}: {w}x{h}"
        );
        assert_eq!((bytes[24], bytes[25]), (8, 2), "{png}: 8-bit RGB");
    }
}

/// A PNG's width and height, from its IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR");
    let at = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (at(16), at(20))
}

#[test]
fn png_scale_multiplies_both_sides_and_defaults_to_the_svg_size() {
    let dir = scratch("chart-scale");
    small_run(&dir);
    let d = dir.to_str().unwrap();
    cascade(&["chart", d, "--png"], 0);
    let charts = dir.join("charts");
    // The default: one pixel per SVG pixel, the latency chart 960 x 520, the timeline 1,100
    // wide (its height grows with its panels).
    assert_eq!(png_size(&charts.join("latency-web.png")), (960, 520));
    let (tw, th) = png_size(&charts.join("timeline.png"));
    assert_eq!(tw, 1100);
    let latency_1x = std::fs::read(charts.join("latency-web.png")).unwrap();
    cascade(&["chart", d, "--png", "--scale", "2"], 0);
    assert_eq!(png_size(&charts.join("latency-web.png")), (1920, 1040));
    assert_eq!(png_size(&charts.join("timeline.png")), (2 * tw, 2 * th));
    cascade(&["chart", d, "--png", "--scale", "1"], 0);
    assert_eq!(
        std::fs::read(charts.join("latency-web.png")).unwrap(),
        latency_1x
    );
    // A scale is a whole number from 1 to 8, and only for PNGs.
    for bad in [
        vec!["--png", "--scale", "0"],
        vec!["--png", "--scale", "9"],
        vec!["--png", "--scale", "1.5"],
        vec!["--scale", "2"],
    ] {
        let mut args = vec!["chart", d];
        args.extend(bad.iter().copied());
        let out = cascade(&args, 2);
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

#[test]
fn run_with_chart_draws_svg_only_unless_png() {
    let dir = scratch("chart-run-flag");
    let scenario = fixture("small.toml");
    let out = dir.join("out");
    cascade(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--chart",
        ],
        0,
    );
    assert!(out.join("charts/timeline.svg").is_file());
    assert!(!out.join("charts/timeline.png").exists());
}

#[test]
fn a_two_parameter_sweep_gets_lines_with_bands_and_heatmaps_per_variant() {
    let dir = scratch("chart-sweep");
    sweep_fixture(&dir);
    chart(&dir, false);
    for variant in ["base", "budget"] {
        svg(
            &dir,
            &format!("sweep-client.web.goodput_rps-{variant}.svg"),
            &[
                "client.web.goodput_rps by client.web.rate",
                "attempts = 1",
                "attempts = 3",
                "95% confidence band",
                "mean of 3 replications",
                "(/s)",
            ],
        );
        svg(
            &dir,
            &format!("heatmap-fault.0.recovered-{variant}.svg"),
            &[
                "fault.0.recovered over rate × attempts",
                "policy.db-client.retry.attempts",
                "Mean over replications",
            ],
        );
    }
    // Ratios read as percentages, in the cells too.
    svg(
        &dir,
        "heatmap-client.web.success_ratio-base.svg",
        &["99%", "100%", "3%"],
    );
}

#[test]
fn one_parameter_without_a_variant_column_and_single_points_render() {
    let dir = scratch("chart-sweep-one");
    std::fs::write(
        dir.join("points.csv"),
        "point,client.web.rate,metric,n,mean,sd,ci95_low,ci95_high\n\
         0,250,client.web.goodput_rps,1,240,,,\n\
         0,250,client.web.latency_p99_ms,1,1800,,,\n",
    )
    .unwrap();
    chart(&dir, true);
    svg(
        &dir,
        "sweep-client.web.goodput_rps.svg",
        &["by client.web.rate", "base"],
    );
    // 1.8 s of latency is shown in seconds.
    svg(
        &dir,
        "sweep-client.web.latency_p99_ms.svg",
        &["latency_p99_ms (s)"],
    );
}

#[test]
fn empty_data_draws_empty_charts_with_a_note() {
    let sweep = scratch("chart-empty-sweep");
    std::fs::write(
        sweep.join("points.csv"),
        "point,variant,metric,n,mean,sd,ci95_low,ci95_high\n",
    )
    .unwrap();
    chart(&sweep, true);
    svg(&sweep, "sweep.svg", &["no data"]);

    let run = scratch("chart-empty-run");
    std::fs::write(
        run.join("summary.json"),
        r#"{"scenario": "empty", "seed": 1, "duration_s": 0, "warmup_s": 0, "metrics": {}}"#,
    )
    .unwrap();
    std::fs::write(run.join("timeseries.csv"), "time_s,metric,value\n").unwrap();
    chart(&run, true);
    svg(&run, "timeline.svg", &["empty: timeline", "no data"]);
    svg(&run, "latency.svg", &["no data"]);
}

#[test]
fn a_one_bucket_run_renders() {
    let dir = scratch("chart-one-bucket");
    let scenario = dir.join("one.toml");
    std::fs::write(
        &scenario,
        "[scenario]\nname = \"one\"\nduration = \"1s\"\nseed = 1\n\n\
         [[client]]\nname = \"c\"\ntarget = \"s\"\nrate = 50\n\n\
         [[service]]\nname = \"s\"\nworkers = 2\nwork = \"5ms\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    cascade(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--chart",
            "--png",
        ],
        0,
    );
    svg(&out, "timeline.svg", &["one: timeline", "c goodput"]);
    svg(&out, "latency-c.svg", &["p50"]);
}

#[test]
fn a_directory_that_is_neither_run_nor_sweep_is_refused() {
    let dir = scratch("chart-neither");
    let out = cascade(&["chart", dir.to_str().unwrap()], 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("neither a run's directory"), "{err}");
    let missing = dir.join("missing");
    let out = cascade(&["chart", missing.to_str().unwrap()], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
    // A broken points.csv names the file.
    std::fs::write(dir.join("points.csv"), "point,metric\n").unwrap();
    let out = cascade(&["chart", dir.to_str().unwrap()], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `n` column"));
}

#[test]
fn charting_again_gives_identical_files() {
    let run = scratch("chart-again-run");
    small_run(&run);
    let sweep = scratch("chart-again-sweep");
    sweep_fixture(&sweep);
    for dir in [&run, &sweep] {
        chart(dir, true);
        let first = snapshot(&dir.join("charts"));
        assert!(first.len() >= 4);
        std::fs::remove_dir_all(dir.join("charts")).unwrap();
        chart(dir, true);
        assert!(
            first == snapshot(&dir.join("charts")),
            "{} changed",
            dir.display()
        );
    }
}

#[test]
fn a_real_sweep_with_a_variant_is_charted_and_reported() {
    let dir = scratch("chart-real-sweep");
    let scenario = fixture("small.toml");
    cascade(
        &[
            "sweep",
            scenario.to_str().unwrap(),
            "--param",
            "client.web.rate=100,200",
            "--reps",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ],
        0,
    );
    chart(&dir, false);
    svg(
        &dir,
        "sweep-client.web.goodput_rps.svg",
        &[
            "by client.web.rate",
            "base",
            "no-retry",
            "mean of 2 replications",
        ],
    );
    svg(
        &dir,
        "sweep-fault.0.recovered.svg",
        &["fault.0.recovered (%)"],
    );
    cascade(&["report", dir.to_str().unwrap(), "--quiet"], 0);
    let html = read(&dir.join("report.html"));
    assert_well_formed("sweep report", &html);
    assert!(html.contains("aria-label=\"topology of small\""));
    assert!(html.contains("variants: base, no-retry"));
    // `sweep --chart` draws the same charts once the sweep is whole; a lone shard has no
    // tables yet and says so instead.
    let again = scratch("chart-sweep-flag");
    let args = |out: &Path, shard: &str| {
        vec![
            "sweep".to_string(),
            scenario.display().to_string(),
            "--param".into(),
            "client.web.rate=100,200".into(),
            "--reps".into(),
            "2".into(),
            "--out".into(),
            out.display().to_string(),
            "--chart".into(),
            "--shard".into(),
            shard.into(),
        ]
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        cascade(&a, 0)
    };
    let lone = run(args(&again, "1/2"));
    assert!(String::from_utf8_lossy(&lone.stdout).contains("no charts yet"));
    assert!(!again.join("charts").exists());
    run(args(&again, "2/2"));
    assert!(
        read(&again.join("charts/sweep-client.web.goodput_rps.svg"))
            == read(&dir.join("charts/sweep-client.web.goodput_rps.svg"))
    );
}

#[test]
fn legends_that_run_out_of_room_say_how_many_are_left_out() {
    let dir = scratch("chart-many");
    let services: String = (0..12)
        .map(|i| format!("[[service]]\nname = \"s{i}\"\nworkers = 4\nwork = \"1ms\"\n\n"))
        .collect();
    let calls: Vec<String> = (0..12).map(|i| format!("{{ to = \"s{i}\" }}")).collect();
    let scenario = dir.join("many.toml");
    std::fs::write(
        &scenario,
        format!(
            "[scenario]\nname = \"many\"\nduration = \"3s\"\n\n\
             [[client]]\nname = \"c\"\ntarget = \"gw\"\nrate = 100\n\n\
             [[service]]\nname = \"gw\"\nworkers = 50\nwork = \"1ms\"\n\
             calls = [ {{ parallel = [ {} ] }} ]\n\n{services}",
            calls.join(", ")
        ),
    )
    .unwrap();
    let out = dir.join("out");
    cascade(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--chart",
        ],
        0,
    );
    // 13 services: a per-service panel draws 8 and names the other 5 (its legend grows to
    // hold them); the load panel draws all 13 edges.
    svg(
        &out,
        "timeline.svg",
        &["not drawn (5):", "gw→s0 attempts", "gw→s11 attempts"],
    );
}
