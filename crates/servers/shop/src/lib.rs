//! `shop`: simulated MCP server (being written).
