//! Integration tests of the real `cowork` binary: routines on Bun and Node, the daemon, the CLI's
//! listings and its error output.

mod consent;
mod daemon;
mod demo;
mod listings;
mod routines;
mod secrets;
mod support;
