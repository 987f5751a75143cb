//! `katas quiz`: a lesson's check-yourself questions (owned by the lessons work; stub for now).
