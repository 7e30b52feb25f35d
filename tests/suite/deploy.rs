//! The deployment examples in deploy/, run locally. For each platform, the example's own shard
//! script runs once per shard index with the variables the platform would set, then the
//! example's own merge step runs, and the merged directory must hold exactly the files of one
//! unsharded `cascade sweep` of the same grid.
//!
//! The scripts are taken from the files as written, never copied here. In the YAML files a
//! script is the lines from `# BEGIN <name>` to `# END <name>` inside a block scalar, dedented;
//! `${{ matrix.shard }}` is the only GitHub expression allowed in one and is substituted. The
//! Slurm scripts are bash scripts and run whole. Every script reads `CASCADE`, `SCENARIO` and
//! `OUT`, pointed here at the test binary, a 5-second scenario and a temporary directory; the
//! grid (`--param`, `--reps`) is read from the scripts for the unsharded reference sweep.

use crate::support::{Scratch, scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Shaped like scenarios/retry-storm.toml (client `app`, service `api`, policy `clients`), so the
/// examples' grid applies, but 5 seconds long; a variant makes variants part of the sweep.
const SCENARIO: &str = r#"[scenario]
name = "deploy-storm"
duration = "5s"
warmup = "1s"
seed = 5

[[client]]
name = "app"
target = "api"
rate = 300
policy = "clients"
phases = [ { at = "2s", rate = 900 }, { at = "3s", rate = 300 } ]

[[service]]
name = "api"
workers = 4
work = { dist = "exponential", mean = "10ms" }

[policy.clients]
timeout = "50ms"
retry = { attempts = 4, backoff = "constant", base = "5ms" }

[[variant]]
name = "cancel"
set = { "policy.clients.cancel" = true }
"#;

const TABLES: [&str; 4] = ["runs.csv", "points.csv", "runs.json", "points.json"];

/// Variables a script reads that the test environment must not leak into it.
const PLATFORM_VARS: [&str; 9] = [
    "CASCADE",
    "SCENARIO",
    "OUT",
    "SHARDS",
    "CPUS",
    "JOB_COMPLETION_INDEX",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_CPUS_PER_TASK",
];

fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo_file(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The script between `# BEGIN name` and `# END name` (both kept: they are comments),
/// dedented by the indentation of the BEGIN line.
fn block(text: &str, name: &str, file: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let find = |marker: String| {
        let at: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].trim() == marker)
            .collect();
        assert_eq!(at.len(), 1, "{file}: want exactly one `{marker}` line");
        at[0]
    };
    let (begin, end) = (
        find(format!("# BEGIN {name}")),
        find(format!("# END {name}")),
    );
    assert!(begin < end, "{file}: `# END {name}` before its BEGIN");
    let indent = " ".repeat(lines[begin].len() - lines[begin].trim_start().len());
    let mut script = String::new();
    for line in &lines[begin..=end] {
        if !line.trim().is_empty() {
            assert!(
                line.starts_with(&indent),
                "{file}: `{line}` is less indented than `# BEGIN {name}`"
            );
            script.push_str(&line[indent.len()..]);
        }
        script.push('\n');
    }
    script
}

/// The index of the line that reads `marker` (trimmed).
fn line_index(text: &str, marker: &str) -> usize {
    text.lines()
        .position(|l| l.trim() == marker)
        .unwrap_or_else(|| panic!("no line `{marker}`"))
}

/// The values of `key: value` lines (comments after the value dropped), in order.
fn yaml_values(text: &str, key: &str) -> Vec<String> {
    let prefix = format!("{key}:");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|v| v.split(" #").next().unwrap().trim().to_string())
        .collect()
}

fn only(values: Vec<String>, what: &str) -> String {
    assert_eq!(values.len(), 1, "want exactly one {what}, got {values:?}");
    values.into_iter().next().unwrap()
}

/// The value given to `var` by a line `VAR=value` (a trailing comment dropped).
fn assignment(script: &str, var: &str) -> String {
    let prefix = format!("{var}=");
    let values: Vec<String> = script
        .lines()
        .filter_map(|l| l.trim().strip_prefix(&prefix))
        .map(|v| v.split(" #").next().unwrap().trim().to_string())
        .collect();
    only(values, &format!("assignment of {var}"))
}

/// The default in `VAR=${VAR:-default}`.
fn default(script: &str, var: &str) -> String {
    let value = assignment(script, var);
    value
        .strip_prefix(&format!("${{{var}:-"))
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or_else(|| panic!("{var}={value}: want {var}=${{{var}:-default}}"))
        .to_string()
}

/// The `--param` and `--reps` arguments of the script's `cascade sweep` command, in order.
fn grid(script: &str) -> Vec<String> {
    let command = script.replace("\\\n", " ");
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut grid = Vec::new();
    for pair in words.windows(2) {
        if pair[0] == "--param" || pair[0] == "--reps" {
            assert!(
                !pair[1].contains(['"', '\'', '$']),
                "keep the grid's words unquoted and literal: {}",
                pair[1]
            );
            grid.extend([pair[0].to_string(), pair[1].to_string()]);
        }
    }
    assert!(
        grid.iter().any(|w| w == "--param"),
        "no --param in\n{script}"
    );
    grid
}

fn bash() -> Command {
    let mut c = Command::new("bash");
    for var in PLATFORM_VARS {
        c.env_remove(var);
    }
    c
}

/// Runs a command and insists on exit code `want`.
fn expect(mut c: Command, want: i32, what: &str) -> Output {
    let o = c.output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(want),
        "{what}\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// One example's working place: the scenario, the directory the example writes to, and the
/// unsharded sweep of the example's grid to compare with.
struct Place {
    tmp: Scratch,
    scenario: PathBuf,
    out: PathBuf,
}

impl Place {
    fn new(tag: &str, grid: &[String]) -> Place {
        let tmp = scratch(&format!("deploy-{tag}"));
        let scenario = tmp.join("storm.toml");
        std::fs::write(&scenario, SCENARIO).unwrap();
        let mut c = Command::new(env!("CARGO_BIN_EXE_cascade"));
        c.arg("sweep")
            .arg(&scenario)
            .args(grid)
            .arg("--out")
            .arg(tmp.join("unsharded"))
            .arg("--quiet");
        expect(c, 0, "the unsharded sweep");
        let out = tmp.join("out");
        Place { tmp, scenario, out }
    }

    /// `bash` in the temporary directory with CASCADE, SCENARIO and OUT set.
    fn bash(&self) -> Command {
        let mut c = bash();
        c.current_dir(&self.tmp)
            .env("CASCADE", env!("CARGO_BIN_EXE_cascade"))
            .env("SCENARIO", &self.scenario)
            .env("OUT", &self.out);
        c
    }

    /// Shard k's directory holds the records of slice k of n, and only those.
    fn assert_slice(&self, k: usize, n: usize) {
        let manifest = std::fs::read_to_string(self.tmp.join("unsharded/sweep.json")).unwrap();
        let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
        let runs = manifest["runs"].as_u64().unwrap() as usize;
        let want: Vec<String> = (0..runs)
            .filter(|i| i % n == k - 1)
            .map(|i| format!("runs/run-{i:06}.json"))
            .collect();
        let got: Vec<String> = files(&self.out.join(format!("shard-{k}")))
            .into_keys()
            .filter(|f| f.starts_with("runs/"))
            .collect();
        assert_eq!(got, want, "shard {k}/{n} ran other runs than its slice");
    }

    /// The merged sweep holds exactly the unsharded sweep's files, tables included.
    fn assert_merged(&self) {
        let (merged, unsharded) = (self.out.join("merged"), self.tmp.join("unsharded"));
        for table in TABLES {
            assert!(merged.join(table).exists(), "the merge wrote no {table}");
        }
        let (a, b) = (files(&unsharded), files(&merged));
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "file lists differ"
        );
        for (name, bytes) in &a {
            assert!(
                bytes == &b[name],
                "{name} differs from the unsharded sweep's"
            );
        }
        assert!(self.out.join("headline.md").exists());
    }
}

/// Every file under `dir`, by relative path (`/`-separated), with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                all.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    all
}

const K8S_SWEEP: &str = "deploy/kubernetes/sweep-job.yaml";
const K8S_MERGE: &str = "deploy/kubernetes/merge-job.yaml";
const SLURM_SWEEP: &str = "deploy/slurm/sweep.sbatch";
const SLURM_MERGE: &str = "deploy/slurm/merge.sbatch";
const GHA: &str = "deploy/github-actions/sweep.yml";

#[test]
fn kubernetes_indexed_job_shards_merge_to_the_unsharded_sweep() {
    let job = read(K8S_SWEEP);
    let merge_job = read(K8S_MERGE);
    // An Indexed Job of N completions whose script deals N shards.
    assert_eq!(
        only(yaml_values(&job, "completionMode"), "completionMode"),
        "Indexed"
    );
    let n: usize = only(yaml_values(&job, "completions"), "completions")
        .parse()
        .unwrap();
    let parallelism: usize = only(yaml_values(&job, "parallelism"), "parallelism")
        .parse()
        .unwrap();
    assert!((1..=n).contains(&parallelism), "parallelism {parallelism}");
    let shard = block(&job, "shard", K8S_SWEEP);
    assert_eq!(assignment(&shard, "SHARDS"), n.to_string());
    assert!(shard.contains("JOB_COMPLETION_INDEX"));
    // Run by `sh -c` with the script as the block scalar after it.
    let begin = line_index(&job, "# BEGIN shard");
    let before: Vec<&str> = job.lines().take(begin).map(str::trim).collect();
    assert_eq!(before[before.len() - 3..], ["- sh", "- -c", "- |"]);
    // Both Jobs restart nothing themselves and share the results volume.
    for (file, text) in [(K8S_SWEEP, &job), (K8S_MERGE, &merge_job)] {
        assert_eq!(
            only(yaml_values(text, "restartPolicy"), "restartPolicy"),
            "Never",
            "{file}"
        );
    }
    assert_eq!(
        only(yaml_values(&job, "claimName"), "claimName"),
        only(yaml_values(&merge_job, "claimName"), "claimName")
    );
    assert!(yaml_values(&merge_job, "completionMode").is_empty());
    let merge = block(&merge_job, "merge", K8S_MERGE);
    for var in ["CASCADE", "OUT"] {
        assert_eq!(default(&shard, var), default(&merge, var), "default {var}");
    }

    let place = Place::new("k8s", &grid(&shard));
    for index in 0..n {
        let mut c = place.bash();
        c.arg("-c")
            .arg(&shard)
            .env("JOB_COMPLETION_INDEX", index.to_string());
        expect(c, 0, &format!("pod {index}"));
        place.assert_slice(index + 1, n);
    }
    let mut c = place.bash();
    c.arg("-c").arg(&merge);
    expect(c, 0, "the merge Job");
    place.assert_merged();
}

#[test]
fn slurm_job_array_shards_merge_to_the_unsharded_sweep() {
    let sweep = read(SLURM_SWEEP);
    let merge = read(SLURM_MERGE);
    // `--array=0-(N-1)`, and the fallback shard count equal to the array's size.
    let array = only(
        sweep
            .lines()
            .filter_map(|l| l.strip_prefix("#SBATCH --array="))
            .map(str::to_string)
            .collect(),
        "#SBATCH --array",
    );
    let last: usize = array
        .strip_prefix("0-")
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("--array={array}: want 0-(N-1)"));
    let n = last + 1;
    let shards = assignment(&sweep, "SHARDS");
    assert_eq!(
        shards,
        format!("${{SHARDS:-${{SLURM_ARRAY_TASK_COUNT:-{n}}}}}"),
        "the shard count: SHARDS, else SLURM_ARRAY_TASK_COUNT, else the array's size"
    );
    assert!(sweep.contains("--jobs \"${SLURM_CPUS_PER_TASK:-1}\""));
    // merge.sbatch is one job, submitted after the array, as both files show.
    assert!(!merge.contains("--array"));
    for text in [&sweep, &merge] {
        assert!(text.starts_with("#!/bin/bash\n"));
        assert!(text.contains("sbatch --dependency=afterok:${jobid%%;*}"));
    }
    for var in ["CASCADE", "OUT"] {
        assert_eq!(default(&sweep, var), default(&merge, var), "default {var}");
    }

    let place = Place::new("slurm", &grid(&sweep));
    for task in 0..n {
        let mut c = place.bash();
        c.arg(repo_file(SLURM_SWEEP))
            .env("SLURM_ARRAY_TASK_ID", task.to_string());
        // Half the tasks see SLURM_ARRAY_TASK_COUNT, half take the fallback.
        if task % 2 == 0 {
            c.env("SLURM_ARRAY_TASK_COUNT", n.to_string());
        }
        expect(c, 0, &format!("array task {task}"));
        place.assert_slice(task + 1, n);
    }
    let mut c = place.bash();
    c.arg(repo_file(SLURM_MERGE));
    expect(c, 0, "merge.sbatch");
    place.assert_merged();

    // Outside a job array the script refuses to guess its slice.
    let mut c = place.bash();
    c.arg(repo_file(SLURM_SWEEP));
    let o = c.output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("job array"));
}

/// The numbers of the one flow-style list `key: [a, b, ...]`.
fn yaml_list(text: &str, key: &str) -> Vec<usize> {
    let lists: Vec<String> = yaml_values(text, key)
        .into_iter()
        .filter(|v| v.starts_with('['))
        .collect();
    let list = only(lists, &format!("list `{key}: [...]`"));
    list.strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .unwrap_or_else(|| panic!("{key}: {list}: want a [..] list on one line"))
        .split(',')
        .map(|v| v.trim().parse().unwrap())
        .collect()
}

#[test]
fn github_actions_matrix_shards_merge_to_the_unsharded_sweep() {
    let workflow = read(GHA);
    // A matrix of shards 1..=N, each uploaded as its own artifact, and a merge job after them
    // that downloads them all.
    let matrix = yaml_list(&workflow, "shard");
    let n = matrix.len();
    assert_eq!(matrix, (1..=n).collect::<Vec<_>>(), "matrix.shard: 1..=N");
    let shard = block(&workflow, "shard", GHA);
    assert_eq!(assignment(&shard, "SHARDS"), n.to_string());
    assert!(workflow.contains("name: shard-${{ matrix.shard }}"));
    assert!(workflow.contains("path: ${{ env.OUT }}/shard-${{ matrix.shard }}"));
    assert!(workflow.contains("pattern: shard-*"));
    assert_eq!(yaml_values(&workflow, "needs"), ["build", "shard"]);
    let uses = yaml_values(&workflow, "- uses");
    assert!(
        uses.iter()
            .any(|u| u.starts_with("actions/upload-artifact@"))
    );
    assert!(
        uses.iter()
            .any(|u| u.starts_with("actions/download-artifact@"))
    );
    let merge = block(&workflow, "merge", GHA);
    let gate = block(&workflow, "gate", GHA);
    for script in [&merge, &gate] {
        assert!(!script.contains("${{"), "{script}");
    }
    for var in ["CASCADE", "OUT"] {
        assert_eq!(default(&shard, var), default(&merge, var), "default {var}");
    }
    assert_eq!(default(&shard, "OUT"), default(&gate, "OUT"));

    let place = Place::new("gha", &grid(&shard));
    for k in &matrix {
        let script = shard.replace("${{ matrix.shard }}", &k.to_string());
        assert!(!script.contains("${{"), "an expression left in\n{script}");
        let mut c = place.bash();
        c.arg("-c").arg(&script);
        expect(c, 0, &format!("matrix job shard={k}"));
        place.assert_slice(*k, n);
    }
    // Upload of $OUT/shard-K as artifact shard-K, download of each into $OUT/shard-K: the
    // directories stay where the shard jobs wrote them.
    let mut c = place.bash();
    c.arg("-c").arg(&merge);
    expect(c, 0, "the merge step");
    place.assert_merged();

    // The gate, with the workflow's metric and point but a bar every point clears, then one
    // none does: exit 0, then 1 with the failing points named.
    let metric = only(yaml_values(&workflow, "METRIC"), "METRIC");
    let at = only(yaml_values(&workflow, "AT"), "AT");
    let gate_with = |min: &str| {
        let mut c = place.bash();
        c.arg("-c")
            .arg(&gate)
            .env("METRIC", &metric)
            .env("MIN", min)
            .env("AT", &at);
        c
    };
    let o = expect(gate_with("0"), 0, "the gate with MIN=0");
    assert!(String::from_utf8_lossy(&o.stdout).contains("points pass"));
    let o = expect(gate_with("1.01"), 1, "the gate with MIN=1.01");
    assert!(String::from_utf8_lossy(&o.stdout).contains("ci95_low"));
    // A metric or parameter the sweep does not have is an error, not a pass.
    let mut c = gate_with("0");
    c.env("METRIC", "client.app.sucess_ratio");
    expect(c, 2, "the gate with a misspelt metric");
    let mut c = gate_with("0");
    c.env("AT", "policy.clients.retry.budgte=0.1");
    expect(c, 2, "the gate with a misspelt parameter");
}

#[test]
fn every_example_sweeps_the_same_grid() {
    let k8s = grid(&block(&read(K8S_SWEEP), "shard", K8S_SWEEP));
    let slurm = grid(&read(SLURM_SWEEP));
    let gha = grid(&block(&read(GHA), "shard", GHA));
    assert_eq!(k8s, slurm, "{K8S_SWEEP} and {SLURM_SWEEP}");
    assert_eq!(k8s, gha, "{K8S_SWEEP} and {GHA}");
    // docs/sharding.md shows the same grid.
    let docs = read("docs/sharding.md");
    for pair in k8s.chunks(2) {
        let words = format!("{} {}", pair[0], pair[1]);
        assert!(docs.contains(&words), "docs/sharding.md lacks `{words}`");
    }
}
