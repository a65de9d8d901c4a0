//! The schedule as a Chrome trace (§10.3), the JSON `chrome://tracing` and Perfetto read: one
//! process per context (pid 0 main, 1 sub), one thread (track) per engine (tid = its place in
//! [`Engine::ALL`] + 1), named by metadata events; one complete event (`"ph": "X"`) per engine
//! per invocation with `ts` = its start on the device and `dur` = finish − start (its `args`:
//! units, cycles per unit, busy, fill, stall, blocking, accesses per packet, same-bank run), 1 µs in the
//! viewer standing for 1 cycle (stated in `otherData`). Events come in a fixed order
//! (metadata by context and engine, then invocations in issue order, engines in pipeline
//! order) and keys are sorted, so the text is the same on every run.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::{Context, Engine, Schedule};

fn pid(c: Context) -> u64 {
    match c {
        Context::Main => 0,
        Context::Sub => 1,
    }
}

fn tid(e: Engine) -> u64 {
    Engine::ALL.iter().position(|x| *x == e).unwrap_or(0) as u64 + 1
}

impl Schedule {
    /// The trace as a JSON value.
    pub fn chrome_trace(&self) -> Value {
        let used: BTreeSet<(Context, Engine)> = self
            .invocations
            .iter()
            .flat_map(|s| {
                s.invocation
                    .engines
                    .iter()
                    .map(move |e| (s.invocation.context, e.record.engine))
            })
            .collect();
        let contexts: BTreeSet<Context> = used.iter().map(|(c, _)| *c).collect();
        let mut events = Vec::new();
        for c in &contexts {
            events.push(json!({
                "name": "process_name", "ph": "M", "pid": pid(*c), "tid": 0,
                "args": { "name": c.name() },
            }));
        }
        for (c, e) in &used {
            events.push(json!({
                "name": "thread_name", "ph": "M", "pid": pid(*c), "tid": tid(*e),
                "args": { "name": e.name() },
            }));
        }
        for (i, s) in self.invocations.iter().enumerate() {
            let c = s.invocation.context;
            for e in &s.invocation.engines {
                let r = &e.record;
                events.push(json!({
                    "name": r.engine.name(),
                    "cat": format!("invocation {}", i + 1),
                    "ph": "X",
                    "pid": pid(c),
                    "tid": tid(r.engine),
                    "ts": s.start + e.start,
                    "dur": e.finish - e.start,
                    "args": {
                        "units": r.units,
                        "cycles_per_unit": r.cycles_per_unit,
                        "busy": e.busy,
                        "fill": r.fill,
                        "stall": e.stall,
                        "blocking": r.blocking,
                        "accesses_per_packet": r.accesses_per_packet,
                        "bank_run": r.bank_run,
                    },
                }));
            }
        }
        json!({
            "traceEvents": events,
            "displayTimeUnit": "ns",
            "otherData": {
                "model": self.model,
                "time_unit": "1 us in the viewer = 1 cycle",
                "makespan": self.makespan,
            },
        })
    }

    /// The trace as pretty-printed JSON text, ending with a newline.
    pub fn chrome_trace_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.chrome_trace()).unwrap_or_default();
        text.push('\n');
        text
    }
}
