//! A plan's steps laid out for the engine: steps with a probability (`p`), weighted choices
//! among sequences of steps (`choose`) and their names, checked here. A choice becomes a head
//! (a step without calls that draws) followed by its options' steps, one after another; the
//! last step of each option jumps past the rest (`Branch::exit`). A plan without `p` or
//! `choose` gets no branches at all, so the engine's plain path sees an empty list.

use super::compile::{Res, check_name};
use super::document::Source;
use super::schema::RawStep;
use crate::model::{Branch, Rule};

/// A plan's steps in the engine's order: each written step (`Some`) or a choice's head
/// (`None`), with the path errors name it by, and the branches (empty when no step needs one).
pub(super) struct Layout<'a> {
    pub steps: Vec<(Option<&'a RawStep>, String)>,
    pub branches: Vec<Option<Branch>>,
}

/// Lays out `calls`, written at `path` (`service.<s>` or `service.<s>.operation.<o>`); `streams`
/// prefixes the purposes of the branches' random streams (empty, or `operation.<o>.`).
pub(super) fn layout<'a>(
    src: &Source,
    calls: &'a [RawStep],
    path: &str,
    streams: &str,
) -> Res<Layout<'a>> {
    let mut out = Layout {
        steps: Vec::new(),
        branches: Vec::new(),
    };
    let mut names: Vec<(&str, String)> = Vec::new();
    let mut ctx = Walk {
        src,
        streams,
        names: &mut names,
        out: &mut out,
        any: false,
    };
    ctx.sequence(calls, &format!("{path}.calls"), "", true)?;
    let any = ctx.any;
    if !any {
        out.branches.clear();
    }
    Ok(out)
}

struct Walk<'w, 'a> {
    src: &'w Source,
    streams: &'w str,
    /// The names seen so far, with the paths they were written at.
    names: &'w mut Vec<(&'a str, String)>,
    out: &'w mut Layout<'a>,
    /// Some step has a `p` or a `choose`.
    any: bool,
}

impl<'a> Walk<'_, 'a> {
    /// The steps of one sequence (a plan's `calls`, or an option's), written at `path`
    /// (`….calls`); `key` prefixes unnamed steps' labels and streams (empty at the top, where
    /// an unnamed step is known by its index); `top` allows a `choose`.
    fn sequence(&mut self, calls: &'a [RawStep], path: &str, key: &str, top: bool) -> Res<()> {
        for (i, step) in calls.iter().enumerate() {
            // As the document addresses an element (`document::element_name`): by its name,
            // else its callee, else its index.
            let at_key = step.name.as_ref().or(step.to.as_ref());
            let at = format!(
                "{path}.{}",
                at_key.cloned().unwrap_or_else(|| i.to_string())
            );
            let index = format!("{key}{i}");
            self.name(step, &at)?;
            if !top && step.p.is_some() && step.name.is_none() {
                return Err(self.src.error_at(
                    &format!("{at}.p"),
                    "a step with a `p` inside a `choose` option needs a `name`, which keys its draws and its metrics",
                ));
            }
            check_parallel_elements(self.src, &at, step)?;
            let (stream, label) = match step.name.as_deref() {
                Some(name) => (format!("{}branch.{name}", self.streams), name.to_string()),
                None => (
                    format!("{}branch.calls.{index}", self.streams),
                    index.clone(),
                ),
            };
            match &step.choose {
                None => {
                    let rule = match step.p {
                        None => None,
                        Some(p) if (0.0..=1.0).contains(&p) => Some(Rule::Maybe(p)),
                        Some(p) => {
                            return Err(self.src.error_at(
                                &format!("{at}.p"),
                                format!("is a probability: a number from 0 to 1, got {p}"),
                            ));
                        }
                    };
                    self.any |= rule.is_some();
                    self.out.steps.push((Some(step), at));
                    self.out.branches.push(rule.map(|rule| Branch {
                        rule,
                        stream,
                        label,
                        exit: None,
                    }));
                }
                Some(options) => self.choice(step, options, &at, &index, stream, label, top)?,
            }
        }
        Ok(())
    }

    /// A `choose` step: its head, then each option's steps, the last of each leading past
    /// the others.
    #[allow(clippy::too_many_arguments)]
    fn choice(
        &mut self,
        step: &'a RawStep,
        options: &'a [super::schema::RawOption],
        at: &str,
        index: &str,
        stream: String,
        label: String,
        top: bool,
    ) -> Res<()> {
        if !top {
            return Err(self.src.error_at(
                at,
                "a `choose` inside an option is not supported: write the inner choice as options of the outer one",
            ));
        }
        if step.to.is_some() || step.parallel.is_some() {
            return Err(self
                .src
                .error_at(at, "a step has exactly one of `to`, `parallel` or `choose`"));
        }
        let beside = [
            ("p", step.p.is_some()),
            ("operation", step.operation.is_some()),
            ("policy", step.policy.is_some()),
            ("optional", step.optional.is_some()),
            ("latency", step.latency.is_some()),
            ("fail_as", step.fail_as.is_some()),
            ("idempotent", step.idempotent.is_some()),
            ("idempotency_key", step.idempotency_key.is_some()),
            ("count", step.count.is_some()),
        ];
        if let Some((key, _)) = beside.iter().find(|(_, set)| *set) {
            return Err(self.src.error_at(
                &format!("{at}.{key}"),
                "a `choose` step takes only `name` beside its options: settings go on the calls inside them (an option with `calls = []` does nothing)",
            ));
        }
        if options.is_empty() {
            return Err(self
                .src
                .error_at(&format!("{at}.choose"), "needs at least one option"));
        }
        let total: f64 = options.iter().map(|o| o.weight).sum();
        for (k, o) in options.iter().enumerate() {
            if !(o.weight.is_finite() && o.weight > 0.0) {
                return Err(self.src.error_at(
                    &format!("{at}.choose.{k}.weight"),
                    format!("is a share of the jobs: a number above 0, got {}", o.weight),
                ));
            }
        }
        self.any = true;
        let head = self.out.steps.len();
        self.out.steps.push((None, at.to_string()));
        self.out.branches.push(None);
        let mut until = Vec::new();
        let mut starts = Vec::new();
        let mut ends = Vec::new();
        let mut cumulative = 0.0;
        for (k, o) in options.iter().enumerate() {
            cumulative += o.weight / total;
            until.push(if k + 1 == options.len() {
                1.0
            } else {
                cumulative
            });
            starts.push(self.out.steps.len());
            let calls = o.calls.as_deref().unwrap_or_default();
            self.sequence(
                calls,
                &format!("{at}.choose.{k}.calls"),
                &format!("{index}.{k}."),
                false,
            )?;
            ends.push(self.out.steps.len());
        }
        let exit = self.out.steps.len();
        for k in 0..options.len() {
            if starts[k] == ends[k] {
                // An option without steps goes straight past the choice.
                starts[k] = exit;
                continue;
            }
            let last = ends[k] - 1;
            let entry = &mut self.out.branches[last];
            match entry {
                Some(b) => b.exit = Some(exit),
                None => {
                    *entry = Some(Branch {
                        rule: Rule::Always,
                        stream: String::new(),
                        label: String::new(),
                        exit: Some(exit),
                    })
                }
            }
        }
        self.out.branches[head] = Some(Branch {
            rule: Rule::Choose { until, starts },
            stream,
            label,
            exit: None,
        });
        Ok(())
    }

    /// A step's name: valid, not digits alone (it would read as another step's index), and
    /// unique among the plan's steps.
    fn name(&mut self, step: &'a RawStep, at: &str) -> Res<()> {
        let Some(name) = step.name.as_deref() else {
            return Ok(());
        };
        let at = format!("{at}.name");
        check_name(self.src, &at, name)?;
        if name.chars().all(|c| c.is_ascii_digit()) {
            return Err(self.src.error_at(
                &at,
                format!("`{name}` is not a valid step name: digits alone read as a step's index; use a letter too"),
            ));
        }
        if let Some((_, first)) = self.names.iter().find(|(n, _)| *n == name) {
            // Both written at the same path (same sequence): point at the second.
            let nth = usize::from(*first == at);
            return Err(self
                .src
                .error_at_nth(&at, nth, format!("two steps are named `{name}`")));
        }
        self.names.push((name, at));
        Ok(())
    }
}

/// `p` belongs to a whole step: on one call of a `parallel` list it is refused, not ignored.
fn check_parallel_elements(src: &Source, path: &str, step: &RawStep) -> Res<()> {
    for call in step.parallel.iter().flatten() {
        if call.p.is_some() {
            return Err(src.error_at(
                &format!("{path}.parallel.{}.p", call.to),
                "a call inside `parallel` takes no `p`: put `p` beside `parallel` to make the whole step with that probability",
            ));
        }
    }
    Ok(())
}
