//! Death: tests added below.
