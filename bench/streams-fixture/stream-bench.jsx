// bench/streams.mjs's fixture (never shipped): a widget whose stream (a bash on cowork.stream.open)
// goes into a headless xterm.js — `@xterm/headless`, the parser and buffer without a renderer,
// which the bench evaluates in this frame and hands to `window.benchStart` (the widget import
// allowlist stays closed: it is not one of its modules). Each chunk is acknowledged once xterm.js
// has parsed it (its `write` callback), so the relay's window bounds what waits in the parser.
// `bench.until(text)` resolves, on the frame's clock, when a chunk holding `text` has been parsed;
// a keydown in the frame is written to the stream and its time kept (`bench.keydown`).
import { useEffect } from "react";

const cowork = window.cowork;
export const SHELL = ["bash", "--norc", "--noprofile"];

// Whether `w.bytes` is in `chunk`'s end (or across it and the chunk before), searched as bytes: a
// decode of every chunk to text cost the frame more than the path it measures. Only the last
// `TAIL` bytes: what the bench waits for is the end of what the shell printed (the marker, then
// at most its prompt; a key's echo), and a search of each whole chunk of a flood cost the frame
// 0.7 ms a MiB — 5% of the xterm.js parse it measures, in the process the flood waits on.
const TAIL = 1024;
function seen(w, chunk) {
  const { bytes } = w;
  const n = bytes.length;
  if (n === 0) return true;
  const joined = new Uint8Array(w.tail.length + Math.min(chunk.length, n - 1));
  joined.set(w.tail);
  joined.set(chunk.subarray(0, n - 1), w.tail.length);
  const tail = chunk.length >= n - 1 ? chunk.slice(chunk.length - (n - 1)) : joined.slice(-(n - 1));
  const found = (hay) => {
    for (let i = hay.indexOf(bytes[0]); i !== -1 && i + n <= hay.length; i = hay.indexOf(bytes[0], i + 1)) {
      let j = 1;
      while (j < n && hay[i + j] === bytes[j]) j++;
      if (j === n) return true;
    }
    return false;
  };
  w.tail = tail;
  return found(joined) || found(chunk.subarray(Math.max(0, chunk.length - TAIL)));
}

export default function StreamBench() {
  useEffect(() => {
    // `mode`: "parse" (the figure), "handover" (acknowledged when handed to xterm.js), "drop"
    // (not parsed at all: the path's own rate).
    window.benchStart = async (Terminal, mode = "parse") => {
      const term = new Terminal({ cols: 160, rows: 45, scrollback: 5000, allowProposedApi: true });
      const encoder = new TextEncoder();
      let watch = null;
      let bench = null;
      // "task" (a diagnostic): xterm.js gets one chunk at a time, each written in a task of its
      // own (a MessageChannel message) once the one before is parsed. Its write buffer parses for
      // 12 ms and then goes on in a `setTimeout`, which browsers clamp to 4 ms once nested five
      // deep; a chunk written into an empty buffer from outside a timer starts a chain of its own.
      // It tells whether that clamp idles the parser on this path (session 8: it did not — the
      // window keeps xterm.js's backlog short, so its chains rarely nest that deep).
      const queue = [];
      let writing = false;
      const channel = new MessageChannel();
      const next = () => {
        if (writing || !queue.length) return;
        writing = true;
        const [chunk, done] = queue.shift();
        term.write(chunk, () => {
          writing = false;
          done();
          channel.port2.postMessage(null);
        });
      };
      channel.port1.onmessage = next;
      const feed = (chunk) =>
        new Promise((done) => {
          queue.push([chunk, done]);
          next();
        });
      const stream = await cowork.stream.open({
        argv: SHELL,
        cols: 160,
        rows: 45,
        onData: (chunk) => {
          bench.chunks += 1;
          const w = watch;
          let hit = false;
          if (w) hit = seen(w, chunk);
          const parsed = () => {
            if (hit && watch === w) {
              watch = null;
              w.resolve(performance.now());
            }
          };
          if (mode === "drop") return parsed();
          if (mode === "handover") return term.write(chunk, parsed);
          if (mode === "task") return feed(chunk).then(parsed);
          return new Promise((resolve) =>
            term.write(chunk, () => {
              resolve();
              parsed();
            }),
          );
        },
      });
      bench = {
        term,
        stream,
        keydown: 0,
        chunks: 0,
        until: (text) =>
          new Promise((resolve) => (watch = { bytes: encoder.encode(text), tail: new Uint8Array(0), resolve })),
      };
      window.addEventListener("keydown", (event) => {
        if (event.key.length !== 1 && event.key !== "Enter") return;
        bench.keydown = performance.now();
        stream.write(event.key === "Enter" ? "\r" : event.ctrlKey ? String.fromCharCode(event.key.charCodeAt(0) & 31) : event.key);
      });
      window.bench = bench;
    };
  }, []);
  return <div data-testid="stream-bench" tabIndex={0} style={{ height: "100%" }}>stream bench</div>;
}
