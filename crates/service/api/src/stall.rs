//! A connection whose client stops reading: [`Stalling`] wraps a socket so that a write (or a
//! flush) that cannot go on for [`WRITE_STALL`] fails, and hyper closes the connection. A
//! response the client does not take (an archive download left unread, a stream nobody
//! drains) is then dropped with everything it holds, instead of waiting on the socket for
//! good. A connection with nothing to send is never timed out here: only a write that is
//! waiting on the client counts.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// How long a write may wait on a client that does not read.
pub const WRITE_STALL: Duration = Duration::from_secs(60);

/// `io` whose writes fail once they have waited `limit` on the other side.
pub struct Stalling<T> {
    io: T,
    limit: Duration,
    /// Armed while a write waits; the waiting ends when the socket takes bytes again.
    waiting: Option<Pin<Box<Sleep>>>,
}

impl<T> Stalling<T> {
    pub fn new(io: T, limit: Duration) -> Self {
        Self {
            io,
            limit,
            waiting: None,
        }
    }

    /// Whether a pending write has waited out the limit (the clock armed on its first wait).
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        let limit = self.limit;
        let sleep = self
            .waiting
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(Instant::now() + limit)));
        sleep.as_mut().poll(cx).is_ready()
    }

    fn after<R>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        match polled {
            Poll::Ready(r) => {
                self.waiting = None;
                Poll::Ready(r)
            }
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing for {} s", self.limit.as_secs()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Stalling<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Stalling<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        self.after(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.after(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.io).poll_flush(cx);
        self.after(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_write_the_client_never_reads_fails_after_the_limit() {
        let (ours, mut theirs) = tokio::io::duplex(1024);
        let mut ours = Stalling::new(ours, Duration::from_millis(200));
        // The pipe holds 1 KiB; the rest waits on a reader that never comes.
        let err = ours.write_all(&[7; 64 * 1024]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        let mut got = vec![0; 1024];
        theirs.read_exact(&mut got).await.unwrap();
        assert!(got.iter().all(|&b| b == 7), "what fitted was sent");
    }

    #[tokio::test]
    async fn a_slow_reader_that_keeps_reading_is_never_cut() {
        let (ours, mut theirs) = tokio::io::duplex(512);
        let mut ours = Stalling::new(ours, Duration::from_secs(1));
        let reader = tokio::spawn(async move {
            let mut total = 0;
            let mut buf = [0; 512];
            loop {
                // A fifth of the limit between reads; all of them together take three times it.
                tokio::time::sleep(Duration::from_millis(200)).await;
                match theirs.read(&mut buf).await.unwrap() {
                    0 => return total,
                    n => total += n,
                }
            }
        });
        ours.write_all(&[1; 8 * 1024]).await.unwrap();
        ours.shutdown().await.unwrap();
        drop(ours);
        assert_eq!(reader.await.unwrap(), 8 * 1024);
    }
}
