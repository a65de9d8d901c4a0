//! Write-behind output: a thread writes finished buffers while the next chunk is read and
//! cast, so the output's write calls overlap the cast. At most three buffers exist at a time
//! (one being filled, one queued, one being written), so memory stays bounded. Small
//! buffers (the tensors of a file of many small ones) are gathered into one before they are
//! handed over, so that the hand-over, not the work, does not set the pace.

use std::io::Write;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};

use crate::error::IoError;

/// Buffers shorter than this are gathered before they are handed to the writer.
const SMALL_BYTES: usize = 64 << 10;

/// Bytes gathered from small buffers before they are handed to the writer.
const GATHER_BYTES: usize = 1 << 20;

/// Where a streamed cast sends its output, in order.
pub(crate) struct Sink {
    /// Buffers to write, in order.
    queue: SyncSender<Vec<u8>>,
    /// Written buffers coming back for reuse.
    spare: Receiver<Vec<u8>>,
    /// Small buffers' bytes not yet handed over.
    gathered: Vec<u8>,
    /// The last small buffer sent, to be filled again.
    small: Option<Vec<u8>>,
}

impl Sink {
    /// A buffer to fill (a written one when one has come back: its old bytes are still
    /// there, so a caller that does not overwrite every byte must clear it).
    pub(crate) fn buffer(&mut self) -> Vec<u8> {
        if let Some(buf) = self.small.take() {
            return buf;
        }
        self.spare.try_recv().unwrap_or_default()
    }

    /// Queues `buf` to be written after everything sent before it.
    pub(crate) fn send(&mut self, buf: Vec<u8>) -> Result<(), IoError> {
        if buf.len() < SMALL_BYTES {
            self.gathered.extend_from_slice(&buf);
            self.small = Some(buf);
            if self.gathered.len() >= GATHER_BYTES {
                self.hand_over_gathered()?;
            }
            return Ok(());
        }
        self.hand_over_gathered()?;
        self.hand_over(buf)
    }

    /// Hands the gathered bytes to the writer.
    fn hand_over_gathered(&mut self) -> Result<(), IoError> {
        if self.gathered.is_empty() {
            return Ok(());
        }
        let next = self.spare.try_recv().unwrap_or_default();
        let gathered = std::mem::replace(&mut self.gathered, next);
        self.gathered.clear();
        self.hand_over(gathered)
    }

    /// Hands `buf` to the writer.
    fn hand_over(&mut self, buf: Vec<u8>) -> Result<(), IoError> {
        // The writer only stops early on an error, which `write_behind` reports.
        self.queue
            .send(buf)
            .map_err(|_| IoError::Os(std::io::Error::other("output writer stopped")))
    }
}

/// A [`Write`] into a [`Sink`] (for output written in many small pieces, as a header): its
/// bytes go out in buffers of about [`GATHER_BYTES`]; [`SinkWriter::finish`] sends the rest.
pub(crate) struct SinkWriter<'a> {
    sink: &'a mut Sink,
    buf: Vec<u8>,
}

impl<'a> SinkWriter<'a> {
    /// A writer into `sink`.
    pub(crate) fn new(sink: &'a mut Sink) -> SinkWriter<'a> {
        let mut buf = sink.buffer();
        buf.clear();
        SinkWriter { sink, buf }
    }

    /// Sends what is left.
    pub(crate) fn finish(mut self) -> Result<(), IoError> {
        let buf = std::mem::take(&mut self.buf);
        if buf.is_empty() {
            return Ok(());
        }
        self.sink.send(buf)
    }
}

impl Write for SinkWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= GATHER_BYTES {
            let mut next = self.sink.buffer();
            next.clear();
            let full = std::mem::replace(&mut self.buf, next);
            self.sink.send(full).map_err(std::io::Error::other)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `produce` with a [`Sink`] whose buffers a second thread writes to `out`, in order.
/// The writer's error (a full disk) comes first; then `produce`'s.
pub(crate) fn write_behind<T>(
    out: &mut (dyn Write + Send),
    produce: impl FnOnce(&mut Sink) -> Result<T, IoError>,
) -> Result<T, IoError> {
    let (queue, queued) = sync_channel::<Vec<u8>>(1);
    let (give_back, spare) = channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> std::io::Result<()> {
            for buf in queued {
                out.write_all(&buf)?;
                // The producer may be gone already; the buffer is then simply dropped.
                let _ = give_back.send(buf);
            }
            Ok(())
        });
        let mut sink = Sink {
            queue,
            spare,
            gathered: Vec::new(),
            small: None,
        };
        let produced = produce(&mut sink).and_then(|p| {
            sink.hand_over_gathered()?;
            Ok(p)
        });
        drop(sink);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("output writer panicked")));
        written?;
        produced
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails after `ok` bytes.
    struct Full {
        ok: usize,
        got: Vec<u8>,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.got.len() + buf.len() > self.ok {
                return Err(std::io::Error::other("disk full"));
            }
            self.got.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn buffers_are_written_in_order_and_reused() {
        let mut out = Vec::new();
        let n = write_behind(&mut out, |sink| {
            for i in 0..100u8 {
                let mut b = sink.buffer();
                b.clear();
                b.extend_from_slice(&[i, i]);
                sink.send(b)?;
            }
            Ok(7)
        })
        .unwrap();
        assert_eq!(n, 7);
        let want: Vec<u8> = (0..100u8).flat_map(|i| [i, i]).collect();
        assert_eq!(out, want);
    }

    #[test]
    fn a_failing_writer_stops_the_producer_with_its_error() {
        // Buffers big enough to be handed over one by one; the writer takes two and a half.
        let piece = SMALL_BYTES;
        let mut out = Full {
            ok: 2 * piece + piece / 2,
            got: Vec::new(),
        };
        let mut sent = 0;
        let e = write_behind(&mut out, |sink| {
            for _ in 0..1000 {
                let mut b = sink.buffer();
                b.clear();
                b.resize(piece, 7);
                sink.send(b)?;
                sent += 1;
            }
            Ok(())
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "disk full");
        assert_eq!(out.got.len(), 2 * piece);
        assert!(sent < 10, "the producer went on: {sent} buffers sent");
    }

    /// A writer that counts its write calls.
    struct Calls {
        calls: usize,
        got: Vec<u8>,
    }

    impl Write for Calls {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.calls += 1;
            self.got.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn small_buffers_are_gathered_in_order_and_big_ones_keep_their_place() {
        let mut out = Calls {
            calls: 0,
            got: Vec::new(),
        };
        let mut want = Vec::new();
        write_behind(&mut out, |sink| {
            for i in 0..100_000u32 {
                let mut b = sink.buffer();
                b.clear();
                b.extend_from_slice(&i.to_le_bytes());
                want.extend_from_slice(&b);
                sink.send(b)?;
                if i == 50_000 {
                    let big = vec![9u8; SMALL_BYTES];
                    want.extend_from_slice(&big);
                    sink.send(big)?;
                }
            }
            Ok(())
        })
        .unwrap();
        assert!(out.got == want);
        // 400 kB of 4-byte pieces and one big buffer: a handful of writes, not 100 001.
        assert!(out.calls <= 4, "{} write calls", out.calls);
    }
}
