//! Owned by the manifest/registry work: see the module list in lib.rs.
