//! The link between a host script's `cerebras.sdk` (Python, the shim of [`super::shim`]) and
//! the Rust [`SdkRuntime`]: a line protocol over one Unix socket connection.
//!
//! A request is one line of space-separated words, an `h2d` request followed by its
//! little-endian 32-bit words; a reply is `ok` (with words), `ok <bytes>` followed by
//! that many bytes for `d2h`, or `err <message>` (newlines as `\n`). Requests:
//! `open <hex path>`, `get_id <rt> <name>`, `load <rt>`, `run <rt>`, `stop <rt>`,
//! `launch <rt> <name> <nonblock> [<arg>...]` (each `kind:value`, see `LaunchArg::parse`), `h2d <rt> <name> x y w h elements streaming
//! row|col 16|32 nonblock <words>`, `d2h <rt> <name> x y w h elements streaming row|col
//! 16|32 nonblock <words>`, `read_trace <hex path> <fabric x> <fabric y> <hex key>` (the
//! `<debug>` entries of that key on that PE of the last runtime of the directory, one
//! per line: `int <n>`, `float <value>` or `str <text>`).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;

use npusim_cerebras::sched::RunReport;

use super::memcpy::{MemcpyDataType, MemcpyOrder, MemcpyRect};
use super::runtime::SdkRuntime;

/// Longest request line read.
const MAX_LINE: u64 = 64 * 1024;
/// Most host words one copy may carry (1 GiB).
const MAX_WORDS: usize = 1 << 28;

/// What one runtime of the script did.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The compiled program's directory, as the script named it.
    pub out_dir: PathBuf,
    /// The report of its whole run (cycles, per-PE statistics, trace hash), if it ran.
    pub report: Option<RunReport>,
    /// Its Chrome trace, when traces are recorded.
    pub trace: Option<String>,
    /// The lines its PEs printed with `<simprint>` (PE by PE).
    pub simprint: Vec<String>,
}

/// The runtimes a connection opened.
pub struct Bridge {
    trace: bool,
    runtimes: Vec<(PathBuf, SdkRuntime)>,
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

type Reply = Result<(String, Vec<u8>), String>;

impl Bridge {
    /// A bridge that records each runtime's trace when `trace` is set.
    pub fn new(trace: bool) -> Bridge {
        Bridge {
            trace,
            runtimes: Vec::new(),
        }
    }

    /// Serves requests from `stream` until it closes. A request that fails gets its error
    /// as the reply; a broken connection ends the service.
    pub fn serve<S: Read + Write>(&mut self, stream: S) -> std::io::Result<()> {
        let mut reader = BufReader::new(stream);
        loop {
            let mut line = String::new();
            let n = (&mut reader).take(MAX_LINE).read_line(&mut line)?;
            if n == 0 {
                return Ok(());
            }
            let words: Vec<&str> = line.trim_end_matches('\n').split(' ').collect();
            let reply = self.request(&words, &mut reader);
            let out = reader.get_mut();
            match reply {
                Ok((text, bytes)) => {
                    out.write_all(text.as_bytes())?;
                    out.write_all(b"\n")?;
                    out.write_all(&bytes)?;
                }
                Err(e) => {
                    out.write_all(format!("err {}\n", escape(&e)).as_bytes())?;
                }
            }
            out.flush()?;
        }
    }

    /// What each runtime did; runtimes the script did not stop are included as they are.
    pub fn summaries(&self) -> Vec<RunSummary> {
        self.runtimes
            .iter()
            .map(|(dir, rt)| RunSummary {
                out_dir: dir.clone(),
                report: rt.report().cloned(),
                trace: self.trace.then(|| rt.chrome_trace()),
                simprint: rt.simprint_lines().into_iter().map(|(_, _, l)| l).collect(),
            })
            .collect()
    }

    fn runtime(&mut self, word: Option<&&str>) -> Result<&mut SdkRuntime, String> {
        let k: usize = word
            .and_then(|w| w.parse().ok())
            .ok_or("a request without a runtime number")?;
        self.runtimes
            .get_mut(k)
            .map(|(_, rt)| rt)
            .ok_or_else(|| format!("no runtime {k}"))
    }

    fn request<R: Read>(&mut self, w: &[&str], input: &mut R) -> Reply {
        let ok = |s: &str| Ok((s.to_string(), Vec::new()));
        let err = |e: super::SdkError| e.to_string();
        match w.first().copied().unwrap_or("") {
            "open" => {
                let path = w
                    .get(1)
                    .and_then(|h| unhex(h))
                    .ok_or("open: the directory name is not hex")?;
                let dir = PathBuf::from(String::from_utf8_lossy(&path).into_owned());
                let mut rt = SdkRuntime::new(&dir).map_err(err)?;
                rt.record_trace(self.trace);
                self.runtimes.push((dir, rt));
                Ok((format!("ok {}", self.runtimes.len() - 1), Vec::new()))
            }
            "get_id" => {
                let name = w.get(2).copied().unwrap_or("");
                let id = self.runtime(w.get(1))?.get_id(name).map_err(err)?;
                Ok((format!("ok {id}"), Vec::new()))
            }
            "load" => {
                self.runtime(w.get(1))?.load().map_err(err)?;
                ok("ok")
            }
            "run" => {
                self.runtime(w.get(1))?.run().map_err(err)?;
                ok("ok")
            }
            "stop" => {
                self.runtime(w.get(1))?.stop().map_err(err)?;
                ok("ok")
            }
            "launch" => {
                let name = w.get(2).copied().unwrap_or("");
                let nonblock = w.get(3) == Some(&"1");
                let args = w
                    .get(4..)
                    .unwrap_or_default()
                    .iter()
                    .map(|a| {
                        super::LaunchArg::parse(a)
                            .ok_or_else(|| format!("launch: malformed argument `{a}`"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                self.runtime(w.get(1))?
                    .launch_with(name, &args, nonblock)
                    .map_err(err)?;
                ok("ok")
            }
            op @ ("h2d" | "d2h") => {
                let c = Copy::parse(w).ok_or_else(|| format!("{op}: malformed request"))?;
                if c.words > MAX_WORDS {
                    return Err(format!(
                        "{op}: {} host elements, at most {MAX_WORDS} per copy",
                        c.words
                    ));
                }
                let name = w.get(2).copied().unwrap_or("");
                if op == "h2d" {
                    let mut bytes = vec![0u8; c.words * 4];
                    input
                        .read_exact(&mut bytes)
                        .map_err(|e| format!("h2d: the host array did not arrive: {e}"))?;
                    let data: Vec<u32> = bytes
                        .chunks_exact(4)
                        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect();
                    self.runtime(w.get(1))?
                        .memcpy_h2d(
                            name,
                            &data,
                            c.rect,
                            c.streaming,
                            c.order,
                            c.data_type,
                            c.nonblock,
                        )
                        .map_err(err)?;
                    ok("ok")
                } else {
                    let mut out = vec![0u32; c.words];
                    self.runtime(w.get(1))?
                        .memcpy_d2h(
                            &mut out,
                            name,
                            c.rect,
                            c.streaming,
                            c.order,
                            c.data_type,
                            c.nonblock,
                        )
                        .map_err(err)?;
                    let bytes: Vec<u8> = out.iter().flat_map(|v| v.to_le_bytes()).collect();
                    Ok((format!("ok {}", bytes.len()), bytes))
                }
            }
            "read_trace" => {
                let hex = |k: usize| {
                    w.get(k)
                        .and_then(|h| unhex(h))
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                };
                let n = |k: usize| w.get(k).and_then(|v| v.parse::<u32>().ok());
                let (Some(dir), Some(fx), Some(fy), Some(key)) = (hex(1), n(2), n(3), hex(4))
                else {
                    return Err("read_trace: malformed request".into());
                };
                let dir = PathBuf::from(dir);
                let rt = self
                    .runtimes
                    .iter()
                    .rev()
                    .find(|(d, _)| *d == dir)
                    .map(|(_, rt)| rt)
                    .ok_or_else(|| {
                        format!(
                            "read_trace: no SdkRuntime of `{}` ran in this script",
                            dir.display()
                        )
                    })?;
                let mut text = String::new();
                for e in rt.read_trace(fx, fy, &key).map_err(err)? {
                    let line = match e.value {
                        super::DebugValue::Int(v) => format!("int {v}"),
                        super::DebugValue::Float(v) => format!("float {v:?}"),
                        super::DebugValue::Str(s) => format!("str {}", escape(&s)),
                    };
                    text.push_str(&line);
                    text.push('\n');
                }
                Ok((format!("ok {}", text.len()), text.into_bytes()))
            }
            other => Err(format!("unknown request `{other}`")),
        }
    }
}

/// The arguments of an `h2d` or `d2h` request.
struct Copy {
    rect: MemcpyRect,
    streaming: bool,
    order: MemcpyOrder,
    data_type: MemcpyDataType,
    nonblock: bool,
    words: usize,
}

impl Copy {
    fn parse(w: &[&str]) -> Option<Copy> {
        let n = |k: usize| w.get(k)?.parse::<u32>().ok();
        if w.len() != 13 {
            return None;
        }
        Some(Copy {
            rect: MemcpyRect {
                x: n(3)?,
                y: n(4)?,
                w: n(5)?,
                h: n(6)?,
                elements: n(7)?,
            },
            streaming: w[8] == "1",
            order: match w[9] {
                "row" => MemcpyOrder::RowMajor,
                "col" => MemcpyOrder::ColMajor,
                _ => return None,
            },
            data_type: match w[10] {
                "16" => MemcpyDataType::Bits16,
                "32" => MemcpyDataType::Bits32,
                _ => return None,
            },
            nonblock: w[11] == "1",
            words: w[12].parse().ok()?,
        })
    }
}
