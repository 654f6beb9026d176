// Generated from crates/cowork-wire/src/streams.rs: do not edit. Refresh:
// COWORK_WRITE_TS=1 cargo test -p cowork-wire --features typescript --lib streams

export type StreamOpen = { 
/**
 * The program and its arguments; the consent is for these words joined by spaces.
 */
argv: Array<string>, 
/**
 * A ticket from `consent.request` for this argv; none when it is approved ahead.
 */
consent?: string, 
/**
 * The terminal's columns (80 unless told).
 */
cols?: number, 
/**
 * The terminal's rows (24 unless told).
 */
rows?: number, };

export type StreamWrite = { 
/**
 * The stream (the `x-cowork-stream` header of its answer).
 */
id: string, 
/**
 * The input, at most 64 KiB.
 */
data: string, };

export type StreamResize = { 
/**
 * The stream.
 */
id: string, 
/**
 * Columns.
 */
cols: number, 
/**
 * Rows.
 */
rows: number, };

export type StreamClose = { 
/**
 * The stream.
 */
id: string, };

export type StreamAck = { 
/**
 * The stream.
 */
id: string, 
/**
 * Bytes of output (frames' payloads) taken since the last acknowledgement.
 */
bytes: number, };
