//! The bodies of a request and of its answer as the serve loop hands them on: the request's must
//! arrive whole within its deadline, and both tell the connection where its request is (see
//! `connections`).

use super::connections::Connection;
use axum::BoxError;
use hyper::body::{Body, Bytes, Frame, SizeHint};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// A request body that fails once `limit` has passed since its head arrived without it being
/// whole — a deadline for the whole body, not for each read, so a trickle of a byte now and then
/// cannot hold the connection either.
pub(crate) struct TimedBody<B> {
    inner: B,
    deadline: Pin<Box<tokio::time::Sleep>>,
    connection: Arc<Connection>,
    /// Set when the deadline passed, so the serve loop answers `Timeout` whatever the handler made
    /// of the failed read.
    timed_out: Arc<AtomicBool>,
}

/// The error a handler reading a late body gets.
#[derive(Debug, thiserror::Error)]
#[error("the request's body did not arrive in time")]
pub(crate) struct BodyTimedOut;

impl<B> TimedBody<B> {
    pub(crate) fn new(
        inner: B,
        limit: Duration,
        connection: Arc<Connection>,
        timed_out: Arc<AtomicBool>,
    ) -> Self {
        TimedBody { inner, deadline: Box::pin(tokio::time::sleep(limit)), connection, timed_out }
    }
}

impl<B> Body for TimedBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(None) => {
                this.connection.body_complete();
                Poll::Ready(None)
            }
            Poll::Ready(Some(frame)) => {
                if this.inner.is_end_stream() {
                    this.connection.body_complete();
                }
                Poll::Ready(Some(frame.map_err(Into::into)))
            }
            // What has arrived is taken even after the deadline; only waiting for more is not.
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.timed_out.store(true, Ordering::Release);
                    Poll::Ready(Some(Err(BodyTimedOut.into())))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// An answer's body: once it has been sent, or dropped unsent, the connection waits for its
/// next request. An event stream's answer lasts as long as the stream, so its connection counts
/// as served all that time.
pub(crate) struct AnswerBody<B> {
    inner: B,
    connection: Arc<Connection>,
}

impl<B> AnswerBody<B> {
    pub(crate) fn new(inner: B, connection: Arc<Connection>) -> Self {
        AnswerBody { inner, connection }
    }
}

impl<B> Drop for AnswerBody<B> {
    fn drop(&mut self) {
        self.connection.answered();
    }
}

impl<B> Body for AnswerBody<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
