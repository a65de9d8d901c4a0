//! Recorded events of a run (off by default) and their two renderings: one line per event,
//! and Chrome trace-event JSON (open it in a trace viewer: one process per PE, one track per
//! thread, one microsecond per cycle).

use std::fmt;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A router moved a wavelet.
    Hop,
    /// The main thread started a task.
    TaskStart,
    /// An operation ended.
    OpDone,
}

impl EventKind {
    /// A short name.
    pub const fn name(self) -> &'static str {
        match self {
            EventKind::Hop => "hop",
            EventKind::TaskStart => "task",
            EventKind::OpDone => "done",
        }
    }
}

/// One recorded event.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TraceEvent {
    /// The cycle.
    pub cycle: u64,
    /// Column of the PE.
    pub x: u32,
    /// Row of the PE.
    pub y: u32,
    /// What happened.
    pub kind: EventKind,
    /// `router`, `main` or `ut N`.
    pub thread: String,
    /// Details.
    pub text: String,
}

impl fmt::Display for TraceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} PE ({}, {}) {} {}: {}",
            self.cycle,
            self.x,
            self.y,
            self.thread,
            self.kind.name(),
            self.text
        )
    }
}

/// The thread an event happened on, written `main` or `ut N` in a trace.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Thread {
    /// The main thread.
    Main,
    /// Microthread N.
    Micro(u8),
}

impl fmt::Display for Thread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Thread::Main => f.write_str("main"),
            Thread::Micro(ut) => write!(f, "ut {ut}"),
        }
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How a trace is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// One event a line: `cycle PE (x, y) thread kind: text`.
    Lines,
    /// Chrome trace-event JSON (for a trace viewer such as Perfetto).
    Chrome,
}

impl TraceFormat {
    /// The format a file of this name gets by default: Chrome JSON for `.json`, lines
    /// otherwise.
    pub fn for_path(path: &std::path::Path) -> TraceFormat {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            TraceFormat::Chrome
        } else {
            TraceFormat::Lines
        }
    }

    /// What the format is, in a few words.
    pub fn description(self) -> &'static str {
        match self {
            TraceFormat::Lines => "one event a line",
            TraceFormat::Chrome => "Chrome trace-event JSON",
        }
    }
}

/// The events as Chrome trace-event JSON: each a one-cycle complete event (`"ph": "X"`) with
/// `pid` = the PE's row-major index in a grid `width` wide, `tid` = its thread.
pub fn chrome_trace(events: &[TraceEvent], width: u32) -> String {
    let mut out = String::from("{\"traceEvents\":[");
    for (k, e) in events.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        let pid = u64::from(e.y) * u64::from(width) + u64::from(e.x);
        out.push_str(&format!(
            "{{\"name\":{},\"cat\":{},\"ph\":\"X\",\"ts\":{},\"dur\":1,\"pid\":{},\"tid\":{}}}",
            json_string(&e.text),
            json_string(e.kind.name()),
            e.cycle,
            pid,
            json_string(&e.thread)
        ));
    }
    out.push_str("]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_for_json() {
        let e = TraceEvent {
            cycle: 7,
            x: 1,
            y: 2,
            kind: EventKind::TaskStart,
            thread: "main".into(),
            text: "a\"b\\c\nd\u{1}".into(),
        };
        let json = chrome_trace(&[e], 3);
        assert_eq!(
            json,
            "{\"traceEvents\":[{\"name\":\"a\\\"b\\\\c\\nd\\u0001\",\"cat\":\"task\",\"ph\":\"X\",\"ts\":7,\"dur\":1,\"pid\":7,\"tid\":\"main\"}]}"
        );
    }
}
