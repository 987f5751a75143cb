//! `katas lesson`: render a lesson in the terminal (owned by the lessons work; stub for now).
