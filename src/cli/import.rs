//! `cascade import envoy|grpc|resilience4j FILE [--name NAME]`: prints `[policy.NAME]` tables
//! (and `--set` lines for clients and services) on stdout, every source key not imported on
//! stderr. `cascade import prometheus FILE…` prints `[[service]]` work and `[[expect]]`
//! calibration targets from latency histograms the same way. The mappings live in
//! `cascade::import`; docs/import.md describes them.

use cascade::import::Format;
use cascade::import::prometheus::{Options, Recorded, Shape, Topology};
use cascade::import::traces::TraceFormat;
use cascade::{Error, Result};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
pub enum Library {
    /// Envoy v3 clusters and routes (YAML or JSON).
    Envoy,
    /// A gRPC service config (JSON).
    Grpc,
    /// Spring Boot resilience4j (application.yml or .properties).
    Resilience4j,
}

impl Library {
    pub fn format(self) -> Format {
        match self {
            Library::Envoy => Format::Envoy,
            Library::Grpc => Format::Grpc,
            Library::Resilience4j => Format::Resilience4j,
        }
    }
}

/// What `import` reads: a library's config, or Prometheus's histograms.
#[derive(Clone, Copy, ValueEnum)]
pub enum Source {
    /// Envoy v3 clusters and routes (YAML or JSON).
    Envoy,
    /// A gRPC service config (JSON).
    Grpc,
    /// Spring Boot resilience4j (application.yml or .properties).
    Resilience4j,
    /// Latency histograms: exposition text, or the HTTP API's JSON (.json).
    Prometheus,
    /// Traces: OTLP JSON (or the collector's JSON Lines), Jaeger JSON, Zipkin v2 JSON.
    Traces,
}

#[derive(Args)]
pub struct ImportArgs {
    /// What FILE is.
    #[arg(value_enum)]
    library: Source,
    /// The configuration file; for prometheus and traces, one or more (snapshots, or several
    /// services; trace files are read as one).
    #[arg(required = true, num_args = 1..)]
    file: Vec<PathBuf>,
    /// The policy's name, when the file yields one policy.
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    prometheus: PrometheusArgs,
    #[command(flatten)]
    traces: TracesArgs,
}

#[derive(Args)]
#[command(next_help_heading = "Traces")]
struct TracesArgs {
    /// The traces' format, for every file [default: told by each file's first bytes].
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<TraceFile>,
    /// Traces held open at once while their spans are grouped; the oldest closes past it.
    #[arg(long, value_name = "N")]
    open_traces: Option<usize>,
    /// The share of requests the traces hold (a head sampler's ratio, `--trace-sample`'s F):
    /// the clients' rates and the services' in-flight counts are divided by it [default: 1].
    #[arg(long, value_name = "F")]
    sampled: Option<f64>,
}

#[derive(Clone, Copy, ValueEnum)]
enum TraceFile {
    /// OTLP JSON: an ExportTraceServiceRequest, or one a line (the collector's file exporter).
    Otlp,
    /// Jaeger's query API answer: {"data": [traces]}.
    Jaeger,
    /// Zipkin v2: an array of spans, or of traces.
    Zipkin,
}

impl TracesArgs {
    fn given(&self) -> bool {
        self.format.is_some() || self.open_traces.is_some() || self.sampled.is_some()
    }
}

#[derive(Args)]
#[command(next_help_heading = "Prometheus")]
struct PrometheusArgs {
    /// The scenario the histograms calibrate: its leaves get work, the others expectations
    /// on each caller's edge.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Every histogram is this service's, whatever its labels.
    #[arg(long, value_name = "NAME")]
    service: Option<String>,
    /// A label naming the service, the first present wins [default: service, job]. Repeatable.
    #[arg(long, value_name = "LABEL")]
    service_label: Vec<String>,
    /// A label naming the operation, the first present wins [default: route, handler,
    /// grpc_method]; `none` for none. Repeatable.
    #[arg(long, value_name = "LABEL")]
    operation_label: Vec<String>,
    /// Only the histogram of this name (without `_bucket`).
    #[arg(long, value_name = "NAME")]
    metric: Option<String>,
    /// The time between the first and last snapshot, when the samples have no timestamps.
    #[arg(long, value_name = "DURATION")]
    interval: Option<String>,
    /// The unit of results without a metric name (rate(), histogram_quantile): s, ms, us.
    #[arg(long, value_name = "UNIT")]
    unit: Option<String>,
    /// The quantile of histogram_quantile results without a `quantile` label.
    #[arg(long, value_name = "Q")]
    quantile: Option<f64>,
    /// Where the +Inf bucket's observations end (else from `_sum`).
    #[arg(long, value_name = "DURATION")]
    tail_max: Option<String>,
    /// The calibration band, ± this share of production's value.
    #[arg(long, value_name = "SHARE", default_value_t = 0.1)]
    tolerance: f64,
    /// A service whose histogram stands for its work (a leaf). Repeatable.
    #[arg(long, value_name = "NAME")]
    leaf: Vec<String>,
    /// Alerting rules: the cascade metric a rule's series selector stands for
    /// (`'http_requests_total{job="api"}=service.api.arrivals'`; a histogram's `_bucket`
    /// selector to a latency, `client.web.latency`). Repeatable.
    #[arg(long = "map", value_name = "SELECTOR=METRIC")]
    maps: Vec<String>,
    /// Alerting rules: how often a group without `interval` is evaluated (Prometheus'
    /// global evaluation_interval) [default: 1m].
    #[arg(long, value_name = "DURATION")]
    evaluation_interval: Option<String>,
}

impl PrometheusArgs {
    fn given(&self) -> bool {
        self.scenario.is_some()
            || self.service.is_some()
            || !self.service_label.is_empty()
            || !self.operation_label.is_empty()
            || self.metric.is_some()
            || self.interval.is_some()
            || self.unit.is_some()
            || self.quantile.is_some()
            || self.tail_max.is_some()
            || self.tolerance != 0.1
            || !self.leaf.is_empty()
            || !self.maps.is_empty()
            || self.evaluation_interval.is_some()
    }

    fn options(&self) -> Result<Options> {
        let seconds = |flag: &str, text: &str| -> Result<f64> {
            let ns = cascade_policy::table::parse_duration(text)
                .map_err(|e| Error::Usage(format!("--{flag} {text}: {e}")))?;
            if ns == 0 {
                return Err(Error::Usage(format!("--{flag} must be longer than 0")));
            }
            Ok(ns as f64 / 1e9)
        };
        let mut o = Options {
            service: self.service.clone(),
            ..Options::default()
        };
        if !self.service_label.is_empty() {
            o.service_labels = self.service_label.clone();
        }
        if !self.operation_label.is_empty() {
            o.operation_labels = self
                .operation_label
                .iter()
                .filter(|l| *l != "none")
                .cloned()
                .collect();
        }
        o.metric = self.metric.clone();
        o.interval_s = self
            .interval
            .as_deref()
            .map(|t| seconds("interval", t))
            .transpose()?;
        o.tail_max_s = self
            .tail_max
            .as_deref()
            .map(|t| seconds("tail-max", t))
            .transpose()?;
        o.unit_s = match self.unit.as_deref() {
            None => None,
            Some("s") => Some(1.0),
            Some("ms") => Some(1e-3),
            Some("us") => Some(1e-6),
            Some("ns") => Some(1e-9),
            Some(u) => {
                return Err(Error::Usage(format!("--unit {u}: give s, ms, us or ns")));
            }
        };
        if let Some(q) = self.quantile
            && !(q > 0.0 && q < 1.0)
        {
            return Err(Error::Usage(format!(
                "--quantile {q}: a quantile is between 0 and 1 (0.99)"
            )));
        }
        o.quantile = self.quantile;
        if !(self.tolerance > 0.0 && self.tolerance < 1.0) {
            return Err(Error::Usage(format!(
                "--tolerance {}: a share between 0 and 1 (0.1 is ±10%)",
                self.tolerance
            )));
        }
        o.tolerance = self.tolerance;
        o.leaf = self.leaf.clone();
        o.maps = self.maps.clone();
        if let Some(t) = &self.evaluation_interval {
            o.evaluation_ns = cascade_policy::table::parse_duration(t)
                .map_err(|e| Error::Usage(format!("--evaluation-interval {t}: {e}")))?;
            if o.evaluation_ns == 0 {
                return Err(Error::Usage(
                    "--evaluation-interval must be longer than 0".into(),
                ));
            }
        }
        o.topology = self.scenario.as_deref().map(topology).transpose()?;
        Ok(o)
    }
}

/// The shape of a scenario: which services call, and the edges into each.
fn topology(path: &Path) -> Result<Topology> {
    let scenario = cascade::scenario::load(path, &[])?;
    let model = &scenario.model;
    let mut services: Vec<Shape> = model
        .services
        .iter()
        .map(|s| Shape {
            name: s.name.clone(),
            calls: !s.plan.steps.is_empty(),
            operations: s
                .operations
                .iter()
                .map(|o| (o.name.clone(), !o.plan.steps.is_empty()))
                .collect(),
            edges: Vec::new(),
        })
        .collect();
    for caller in model.callers() {
        for call in caller.calls {
            let edge = &model.edges[call.edge].name;
            let to = &mut services[call.to];
            let op = (call.operation > 0).then(|| {
                model.services[call.to].operations[usize::from(call.operation) - 1]
                    .name
                    .clone()
            });
            if !to.edges.iter().any(|(e, _)| e == edge) {
                to.edges.push((edge.clone(), op));
            }
        }
    }
    Ok(Topology {
        file: path.display().to_string(),
        services,
        bucket_ns: model.bucket,
        series: recorded(model),
    })
}

/// Every metric a run of `model` records per bucket, with its catalogue unit: the names a
/// recorder gives the model before any event, as `[[alert]]`'s own check reads them.
fn recorded(model: &cascade::model::Model) -> Vec<Recorded> {
    let mut short = model.clone();
    short.warmup = 0;
    short.duration = model.bucket.max(1);
    cascade::metrics::recorder::Recorder::new(&short)
        .finish(short.end())
        .names
        .into_iter()
        .filter_map(|name| {
            let doc = cascade::metrics::catalogue::describe(&name)?;
            Some(Recorded {
                name,
                unit: doc.unit.to_string(),
            })
        })
        .collect()
}

pub fn import(args: ImportArgs) -> Result<ExitCode> {
    let library = match args.library {
        Source::Prometheus => return prometheus(args),
        Source::Traces => return traces(args),
        Source::Envoy => Library::Envoy,
        Source::Grpc => Library::Grpc,
        Source::Resilience4j => Library::Resilience4j,
    };
    let format = library.format();
    if args.traces.given() {
        return Err(Error::Usage(format!(
            "--format, --open-traces and --sampled are for `cascade import traces`, not {}",
            format.name()
        )));
    }
    if args.prometheus.given() {
        return Err(Error::Usage(format!(
            "the Prometheus options (--scenario, --service, --leaf, …) are for `cascade import prometheus`, not {}",
            format.name()
        )));
    }
    let [path] = args.file.as_slice() else {
        return Err(Error::Usage(format!(
            "cascade import {} reads one file; {} given",
            format.name(),
            args.file.len()
        )));
    };
    // Under the scenario's cap: `import envoy /dev/zero` once read 2.1 GB before dying.
    let text = cascade::scenario::read_text(path, "config")?;
    let file = path.display().to_string();
    let imported = cascade::import::import(format, &file, &text, args.name.as_deref())?;
    let command = format!("cascade import {} {file}", format.name());
    print!("{}", imported.toml(&command));
    eprint!("{}", imported.skipped_text());
    Ok(ExitCode::SUCCESS)
}

fn prometheus(args: ImportArgs) -> Result<ExitCode> {
    if args.name.is_some() {
        return Err(Error::Usage(
            "--name renames an imported policy; prometheus imports none".into(),
        ));
    }
    if args.traces.given() {
        return Err(Error::Usage(
            "--format, --open-traces and --sampled are for `cascade import traces`, not prometheus"
                .into(),
        ));
    }
    let options = args.prometheus.options()?;
    let mut files = Vec::new();
    for path in &args.file {
        let text = cascade::scenario::read_text(path, "file")?;
        files.push((path.display().to_string(), text));
    }
    let imported = cascade::import::prometheus::import(&files, &options)?;
    let names: Vec<&str> = files.iter().map(|(f, _)| f.as_str()).collect();
    let command = format!("cascade import prometheus {}", names.join(" "));
    print!("{}", imported.toml(&command));
    eprint!("{}", imported.skipped_text());
    Ok(ExitCode::SUCCESS)
}

fn traces(args: ImportArgs) -> Result<ExitCode> {
    if args.name.is_some() {
        return Err(Error::Usage(
            "--name renames an imported policy; `import traces` writes a scenario".into(),
        ));
    }
    if args.prometheus.given() {
        return Err(Error::Usage(
            "the Prometheus options (--scenario, --service, --leaf, …) are for `cascade import prometheus`, not traces".into(),
        ));
    }
    let mut options = cascade::import::traces::Options {
        format: args.traces.format.map(|f| match f {
            TraceFile::Otlp => TraceFormat::Otlp,
            TraceFile::Jaeger => TraceFormat::Jaeger,
            TraceFile::Zipkin => TraceFormat::Zipkin,
        }),
        ..Default::default()
    };
    if let Some(n) = args.traces.open_traces {
        if n == 0 {
            return Err(Error::Usage("--open-traces must be at least 1".into()));
        }
        options.open_traces = n;
    }
    if let Some(f) = args.traces.sampled {
        if !(f > 0.0 && f <= 1.0) {
            return Err(Error::Usage(format!(
                "--sampled must be a share in (0, 1], the sampler's ratio; {f} given"
            )));
        }
        options.sampled = f;
    }
    // Each file is read as a stream, never whole: a trace export may be gigabytes.
    let paths: Vec<&Path> = args.file.iter().map(PathBuf::as_path).collect();
    let imported = cascade::import::traces::import(&paths, &options)?;
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let command = format!("cascade import traces {}", names.join(" "));
    print!("{}", imported.toml(&command));
    eprint!("{}", imported.skipped_text());
    Ok(ExitCode::SUCCESS)
}
