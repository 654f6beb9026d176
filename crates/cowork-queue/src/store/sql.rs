//! The store's SQL plumbing: statements from the connection's cache, and the write transaction.

use rusqlite::Connection;

/// Runs a statement from the connection's cache: compiling the SQL would cost more than running it.
pub(super) fn run(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// One row of a cached statement.
pub(super) fn row<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached(sql)?.query_row(params, read)
}

/// A write transaction (`BEGIN IMMEDIATE`: the write lock from the start, so two writers never
/// deadlock upgrading a read), rolled back when dropped uncommitted. rusqlite's `Transaction`
/// parses `BEGIN` and `COMMIT` afresh every time; from the statement cache they are free, and
/// every send, receive and ack is one transaction.
pub(super) struct Write<'c> {
    conn: &'c Connection,
}

impl<'c> Write<'c> {
    pub(super) fn begin(conn: &'c Connection) -> rusqlite::Result<Write<'c>> {
        run(conn, "BEGIN IMMEDIATE", [])?;
        Ok(Write { conn })
    }

    pub(super) fn commit(self) -> rusqlite::Result<()> {
        run(self.conn, "COMMIT", []).map(drop)
    }
}

impl Drop for Write<'_> {
    fn drop(&mut self) {
        // After a COMMIT that failed too: SQLite may have left the transaction open.
        if !self.conn.is_autocommit() {
            let _ = run(self.conn, "ROLLBACK", []);
        }
    }
}

impl std::ops::Deref for Write<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.conn
    }
}
