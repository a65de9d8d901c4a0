//! Write-behind output: a thread writes finished buffers while the next chunk is read and
//! cast, so the output's write calls overlap the cast. At most three buffers exist at a time
//! (one being filled, one queued, one being written), so memory stays bounded.

use std::io::Write;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};

use crate::error::IoError;

/// Where a streamed cast sends its output, in order.
pub(crate) struct Sink {
    /// Buffers to write, in order.
    queue: SyncSender<Vec<u8>>,
    /// Written buffers coming back for reuse.
    spare: Receiver<Vec<u8>>,
}

impl Sink {
    /// A buffer to fill (a written one when one has come back: its old bytes are still
    /// there, so a caller that does not overwrite every byte must clear it).
    pub(crate) fn buffer(&mut self) -> Vec<u8> {
        self.spare.try_recv().unwrap_or_default()
    }

    /// Queues `buf` to be written after everything sent before it.
    pub(crate) fn send(&mut self, buf: Vec<u8>) -> Result<(), IoError> {
        // The writer only stops early on an error, which `write_behind` reports.
        self.queue
            .send(buf)
            .map_err(|_| IoError::Os(std::io::Error::other("output writer stopped")))
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
        let mut sink = Sink { queue, spare };
        let produced = produce(&mut sink);
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
        let mut out = Full {
            ok: 10,
            got: Vec::new(),
        };
        let e = write_behind(&mut out, |sink| {
            for _ in 0..1000 {
                let mut b = sink.buffer();
                b.clear();
                b.extend_from_slice(&[1, 2, 3, 4]);
                sink.send(b)?;
            }
            Ok(())
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "disk full");
        assert_eq!(out.got.len(), 8);
    }
}
