//! `calendar`: simulated MCP server (being written).
