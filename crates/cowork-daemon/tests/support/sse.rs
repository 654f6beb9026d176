//! A server-sent-event stream as a test reads it: the JSON of each event's `data:`, in order.

use futures_util::StreamExt;
use serde_json::Value;

/// The events of an answer the daemon holds open.
pub struct Events {
    body: axum::body::BodyDataStream,
    buffer: String,
}

impl Events {
    pub fn new(response: axum::response::Response) -> Events {
        Events { body: response.into_body().into_data_stream(), buffer: String::new() }
    }

    /// The next event's data; a test fails when none comes within 5 s or the stream ended.
    pub async fn next(&mut self) -> Value {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                if let Some(data) = event.lines().find_map(|l| l.strip_prefix("data: ")) {
                    return serde_json::from_str(data).unwrap();
                }
                continue;
            }
            let chunk = tokio::time::timeout(std::time::Duration::from_secs(5), self.body.next())
                .await
                .expect("an event within 5 s")
                .expect("the stream is open")
                .unwrap();
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}
