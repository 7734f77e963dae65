//! placeholder (chapter 10; asyncio)
fn main() {}
