//! `github`: simulated MCP server (being written).
