//! What the daemon's event stream carries (the workbench, the desktop shell and `cowork` listen).

// The events are the daemon's wire: their one definition is in cowork-wire, which the engine
// emits and every listener (the workbench, the desktop shell, `cowork start`) reads.
pub use cowork_wire::daemon::events::Event;
