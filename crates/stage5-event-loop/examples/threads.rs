//! # threads (stage 5): placeholder
fn main() {}
