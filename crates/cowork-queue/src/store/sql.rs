//! The store's SQL plumbing: the connection with the hot statements it holds, and the write
//! transaction.

use rusqlite::{Connection, Statement};
use std::cell::RefCell;

/// The store's connection, holding every statement [`run`] and [`row`] have run on it, compiled
/// once and kept for the store's life. rusqlite's own cache (`prepare_cached`) hashes and
/// compares the SQL text on the way out and again on the way back, and clears the bindings each
/// time: with a one-at-a-time send, receive and ack running some twenty statements a task, that
/// was ~6% of the store's work. Here a statement is found by its text's address (the SQL is a
/// literal), among the few this store runs.
pub(crate) struct Conn {
    // Declared before `conn`: fields drop in order, so every held statement is finalized
    // before the connection it was compiled on closes.
    held: RefCell<Vec<Held>>,
    /// Boxed: a held statement points at the connection, which must not move with the store.
    conn: Box<Connection>,
}

/// A statement for one SQL literal; `None` while it is out running (a nested use of the same
/// SQL then compiles its own).
struct Held {
    sql: &'static str,
    statement: Option<Statement<'static>>,
}

// SAFETY: `Connection` is `Send`; a held `Statement` is `!Send` only because it borrows the
// connection, and it borrows only this `Conn`'s own, moving with it. `Conn` is not `Sync`
// (the `RefCell`), so one thread at a time uses the connection and its statements, as SQLite's
// no-mutex mode requires of them.
#[allow(unsafe_code)]
unsafe impl Send for Conn {}

impl Conn {
    pub(crate) fn new(conn: Connection) -> Conn {
        Conn { held: RefCell::new(Vec::new()), conn: Box::new(conn) }
    }

    /// Runs `use_it` on the held statement for `sql` (compiled now at its first use).
    pub(crate) fn held<T>(
        &self,
        sql: &'static str,
        use_it: impl FnOnce(&mut Statement<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        // By address and length: equal fat pointers are the same bytes, and a `&'static str`
        // is never freed, so no other text can come to have this one's address.
        let same = |held: &Held| std::ptr::eq(held.sql, sql);
        let out =
            self.held.borrow_mut().iter_mut().find(|h| same(h)).and_then(|h| h.statement.take());
        let mut statement = match out {
            Some(statement) => statement,
            None => {
                let statement = self.conn.prepare(sql)?;
                // SAFETY: the statement borrows `*self.conn`, which is boxed (it does not move
                // when the `Conn` does) and outlives it: `held` is dropped first (field order),
                // and `Conn` never gives the connection away nor replaces it.
                #[allow(unsafe_code)]
                unsafe {
                    std::mem::transmute::<Statement<'_>, Statement<'static>>(statement)
                }
            }
        };
        let result = use_it(&mut statement);
        // rusqlite resets a statement when its execution or its rows end; the bindings are
        // all bound again at the next use (rusqlite refuses a wrong count).
        let mut held = self.held.borrow_mut();
        match held.iter_mut().find(|h| same(h)) {
            Some(slot) if slot.statement.is_none() => slot.statement = Some(statement),
            Some(_) => {} // a nested use's own copy: dropped (finalized) here
            None => held.push(Held { sql, statement: Some(statement) }),
        }
        result
    }
}

impl std::ops::Deref for Conn {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

/// Runs a held statement: compiling the SQL would cost more than running it.
pub(super) fn run(
    conn: &Conn,
    sql: &'static str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<usize> {
    conn.held(sql, |statement| statement.execute(params))
}

/// One row of a held statement.
pub(super) fn row<T>(
    conn: &Conn,
    sql: &'static str,
    params: impl rusqlite::Params,
    read: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.held(sql, |statement| statement.query_row(params, read))
}

/// One row of a statement whose SQL is made at run time (a filter chosen by the caller), from
/// rusqlite's cache: such a text has no lasting address to hold it by.
pub(super) fn row_made<T>(
    conn: &Conn,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached(sql)?.query_row(params, read)
}

/// A write transaction (`BEGIN IMMEDIATE`: the write lock from the start, so two writers never
/// deadlock upgrading a read), rolled back when dropped uncommitted. rusqlite's `Transaction`
/// parses `BEGIN` and `COMMIT` afresh every time; held, they are free, and
/// every send, receive and ack is one transaction.
pub(super) struct Write<'c> {
    conn: &'c Conn,
}

impl<'c> Write<'c> {
    pub(super) fn begin(conn: &'c Conn) -> rusqlite::Result<Write<'c>> {
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
    type Target = Conn;

    fn deref(&self) -> &Conn {
        self.conn
    }
}
